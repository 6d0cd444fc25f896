import { createHash } from "node:crypto";
import { type DomainError, iso } from "kernel";
import { fail } from "../../platform/errors.ts";
import type { InboundItemRow } from "./schema.ts";

/** Inbound's ids, pins and public shapes. */

export type InboundKind = "tasks" | "knowledge";
export const LETTERS: Record<InboundKind, readonly InboundItemRow["item_kind"][]> = {
  tasks: ["t"],
  knowledge: ["e", "r"],
};

/** Canonical JSON: keys sorted at every depth, so one content has one digest. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The first 16 hex digits of the SHA-256 of the content's canonical JSON. */
export function digestOf(content: unknown): string {
  return createHash("sha256").update(canonical(content), "utf8").digest("hex").slice(0, 16);
}

export const idText = (r: Pick<InboundItemRow, "item_kind" | "n">): string => `${r.item_kind}:${r.n}`;
export const pinText = (r: Pick<InboundItemRow, "item_kind" | "n" | "digest">): string => `${idText(r)}@${r.digest}`;

export interface ItemRef {
  id: string;
  letter: InboundItemRow["item_kind"];
  n: number;
  /** The digest the caller pinned (inbound_list's `pin`), when given. */
  pin: string | undefined;
}

const ID = /^([ter]):([1-9][0-9]{0,9})(?:@([0-9a-f]{16}))?$/;

/** item_ids: a JSON array string of t:N / e:N / r:N ids (optionally pinned: `t:N@digest`), matching kind. */
export function parseItemIds(raw: string, kind: InboundKind): ItemRef[] {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw fail("validation", "item_ids must be a JSON array string of ids such as t:1, e:2, r:3");
  }
  if (!Array.isArray(v) || v.length === 0) throw fail("validation", "item_ids must be a non-empty JSON array");
  const seen = new Set<string>();
  return v.map((x) => {
    const m = typeof x === "string" ? ID.exec(x.trim()) : null;
    if (!m) throw fail("validation", `malformed item id ${JSON.stringify(x)}: use t:N, e:N or r:N (optionally @pin)`);
    const letter = m[1] as ItemRef["letter"];
    if (!LETTERS[kind].includes(letter)) throw fail("validation", `${m[1]}:${m[2]} does not match kind ${kind}`);
    const id = `${letter}:${m[2]}`;
    if (seen.has(id)) throw fail("validation", `${id} is named twice`);
    seen.add(id);
    return { id, letter, n: Number(m[2]), pin: m[3] };
  });
}

/** One refusal for the whole call, naming every item that made it and why. */
export function ineligible(items: Array<{ id: string; reason: string }>): DomainError {
  const shown = items
    .slice(0, 5)
    .map((i) => `${i.id} ${i.reason}`)
    .join("; ");
  return fail(
    "inbound_ineligible",
    `nothing was applied: ${items.length} item(s) not eligible: ${shown}${items.length > 5 ? "; …" : ""}`,
    { items },
  );
}

export function itemView(r: InboundItemRow): Record<string, unknown> {
  return {
    id: idText(r),
    pin: pinText(r),
    state: r.state,
    project: r.project,
    quorum_id: r.quorum_id,
    revision: r.revision,
    staged_by: r.staged_by,
    staged_at: r.staged_at,
    decided_by: r.decided_by,
    decided_at: r.decided_at,
    decide_reason: r.decide_reason,
    ...JSON.parse(r.content_json),
    ...(r.result_json ? { result: JSON.parse(r.result_json) } : {}),
  };
}

/** What history records of an item (its content and standing). */
export function itemEventView(r: InboundItemRow): Record<string, unknown> {
  return {
    id: idText(r),
    digest: r.digest,
    state: r.state,
    revision: r.revision,
    project: r.project,
    content: JSON.parse(r.content_json),
  };
}

export const stamp = (now: number): string => iso(now);
