import { readFileSync } from "node:fs";
import { canonicalJson, sha256Tagged } from "../evidence/jcs.ts";

/**
 * The Chamber toolset contracts as data. 0.3.0 is seed 000 verbatim and is never edited, so its
 * hash stays computable forever. 0.3.2 is derived from it: same five tools, plus two optional
 * fields of enter_open_challenge (ScoreIA protocol 0.2: "an optional pseudonymous route key and an
 * optional participation class").
 */

export interface CanonicalTool {
  name: string;
  purpose: string;
  description: string;
  aliases: string[];
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

export interface Toolset {
  protocol: string;
  toolset_id: string;
  status: string;
  supersedes?: string;
  note?: string;
  canonical_tools: CanonicalTool[];
  output_envelope: Record<string, unknown>;
  attempt_states: string[];
  error_codes: string[];
  schema_bundle: {
    canonicalization: string;
    payload_fields: string[];
    canonical_tools_fields: string[];
    hash_prefix: string;
  };
  suites: Array<{ id: string; generation: string; engine: string; status: string; default: boolean }>;
  action_ops: string[];
  origins: string[];
  limits: {
    max_actions: number;
    attempt_ttl_seconds: number;
    max_request_bytes: number;
    max_array_items: number;
    max_json_depth: number;
    finished_session_retention_seconds: number;
  };
  identity: {
    community_assurance: string;
    summoned_assurance: string;
    fields: string[];
    preflight_fields: string[];
    publication_notice: { en: string; fr: string; privacy: string; terms: string };
  };
  compatibility: Record<string, unknown>;
}

const here = new URL(".", import.meta.url);

export { canonicalJson, sha256Tagged };

export const TOOLSET_0_3_0: Toolset = JSON.parse(readFileSync(new URL("toolset-0.3.0.json", here), "utf8"));

export const PARTICIPATION_CLASSES = ["external", "sponsored"] as const;
export type ParticipationClass = (typeof PARTICIPATION_CLASSES)[number];

function derive0_3_2(base: Toolset): Toolset {
  const t: Toolset = structuredClone(base);
  t.toolset_id = "scoreia-chamber-tools/0.3.2";
  t.supersedes = base.toolset_id;
  t.note =
    "New sealed Evidence 0.2 cards bind 0.3.2. Same five tools as 0.3.0; enter_open_challenge gains an optional pseudonymous route_key and an optional participation_class (external | sponsored) that never changes Evidence. Cards sealed under 0.2.0, 0.3.0 or 0.3.1 stay bound to them.";
  const enter = t.canonical_tools.find((c) => c.name === "enter_open_challenge");
  if (!enter) throw new Error("contract 0.3.0 lacks enter_open_challenge");
  const props = enter.inputSchema.properties as Record<string, unknown>;
  props.route_key = {
    type: "string",
    minLength: 8,
    maxLength: 64,
    pattern: "^[A-Za-z0-9_-]{8,64}$",
    description:
      "Optional pseudonymous route key: the same key groups your attempts on public cards without identifying you. Never an email, URL, account id or secret.",
  };
  props.participation_class = {
    type: "string",
    enum: [...PARTICIPATION_CLASSES],
    description:
      "Optional. external (default) for outside participants, sponsored for tests run for or by ScoreIA. Shown on the card; never changes Evidence.",
  };
  return t;
}

export const TOOLSET_0_3_2: Toolset = derive0_3_2(TOOLSET_0_3_0);

/** The toolset new attempts bind. */
export const CURRENT_TOOLSET = TOOLSET_0_3_2;

export const TOOLSETS: Record<string, Toolset> = {
  [TOOLSET_0_3_0.toolset_id]: TOOLSET_0_3_0,
  [TOOLSET_0_3_2.toolset_id]: TOOLSET_0_3_2,
};

/** The payload `schema_bundle` says to hash: payload_fields, with each tool cut to canonical_tools_fields. */
export function schemaBundlePayload(t: Toolset): Record<string, unknown> {
  const b = t.schema_bundle;
  const payload: Record<string, unknown> = {};
  for (const field of b.payload_fields) {
    const v = (t as unknown as Record<string, unknown>)[field];
    if (field === "canonical_tools") {
      payload[field] = t.canonical_tools.map((tool) =>
        Object.fromEntries(b.canonical_tools_fields.map((f) => [f, (tool as unknown as Record<string, unknown>)[f]])),
      );
    } else {
      payload[field] = v;
    }
  }
  return payload;
}

export function toolsetHash(t: Toolset): string {
  if (t.schema_bundle.canonicalization !== "RFC8785") throw new Error("unsupported canonicalization");
  return sha256Tagged(canonicalJson(schemaBundlePayload(t))).replace(/^sha256:/, t.schema_bundle.hash_prefix);
}

export function toolDef(t: Toolset, name: string): CanonicalTool {
  const d = t.canonical_tools.find((c) => c.name === name);
  if (!d) throw new Error(`${t.toolset_id} has no tool ${name}`);
  return d;
}

/** Legacy names (0.2.0) and the last day they are accepted, inclusive, in UTC. */
export const ALIASES: Record<string, string> = Object.fromEntries(
  CURRENT_TOOLSET.canonical_tools.flatMap((c) => c.aliases.map((a) => [a, c.name])),
);
export const ALIASES_SUPPORTED_UNTIL = String(CURRENT_TOOLSET.compatibility.aliases_supported_until);

/** True while `nowMs` is on or before the alias cut-off day (UTC). */
export function aliasesAllowed(nowMs: number): boolean {
  return nowMs < Date.parse(`${ALIASES_SUPPORTED_UNTIL}T00:00:00.000Z`) + 86_400_000;
}
