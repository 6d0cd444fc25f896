import { createHash } from "node:crypto";
import { canonicalJson, sha256Tagged } from "./jcs.ts";

/**
 * The redacted public replay: every event of an attempt, in order, each carrying the hash of the
 * one before. Private values (oracle facts, the bearer handle, operator notes) are replaced by a
 * marker holding their salted digest, so the chain verifies from public data alone while the
 * server can still prove a value later by revealing it with the attempt's salt.
 * Byte-level specification: docs/evidence-0.2.md §Replay.
 */

export const GENESIS = `sha256:${"0".repeat(64)}`;

/** What the store keeps for one event (request/response/private as JSON values). */
export interface StoredEvent {
  seq: number;
  kind: string;
  action_index: number | null;
  at: string;
  request: unknown;
  response: unknown;
  private: unknown;
}

export interface RedactedMarker {
  redacted: string;
}

export interface PublicEvent {
  seq: number;
  kind: string;
  action_index: number | null;
  at: string;
  request: unknown;
  response: unknown;
  private: RedactedMarker | null;
  prev: string;
}

export interface PublicReplay {
  replay_version: "scoreia-replay/0.2";
  card_id: string;
  events: Array<PublicEvent & { hash: string }>;
  head: string;
}

/** Request fields that are private in every event. */
const PRIVATE_REQUEST_FIELDS = new Set(["challenge_handle"]);
/** Response fields that are private in every event. */
const PRIVATE_RESPONSE_FIELDS = new Set(["attempt_handle"]);
/** Event kinds whose whole request is private (operator notes). */
const PRIVATE_REQUEST_KINDS = new Set(["quarantine"]);

/** `sha256:` hex of SHA-256(salt ‖ JCS(value)). */
export function saltedDigest(salt: Uint8Array, value: unknown): string {
  return `sha256:${createHash("sha256").update(salt).update(canonicalJson(value), "utf8").digest("hex")}`;
}

function mark(salt: Uint8Array, value: unknown): RedactedMarker {
  return { redacted: saltedDigest(salt, value) };
}

function redactFields(salt: Uint8Array, v: unknown, fields: Set<string>): unknown {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = fields.has(k) ? mark(salt, x) : x;
  return out;
}

/** The public form of one stored event, before chaining. */
export function redact(salt: Uint8Array, e: StoredEvent): Omit<PublicEvent, "prev"> {
  return {
    seq: e.seq,
    kind: e.kind,
    action_index: e.action_index,
    at: e.at,
    request: PRIVATE_REQUEST_KINDS.has(e.kind)
      ? mark(salt, e.request)
      : redactFields(salt, e.request, PRIVATE_REQUEST_FIELDS),
    response: redactFields(salt, e.response, PRIVATE_RESPONSE_FIELDS),
    private: e.private === null || e.private === undefined ? null : mark(salt, e.private),
  };
}

/** Hash of one public event: sha256 over JCS of the event including `prev`, excluding `hash`. */
export function eventHash(e: PublicEvent): string {
  return sha256Tagged(canonicalJson(e));
}

/** Builds the chained public replay. */
export function buildReplay(cardId: string, salt: Uint8Array, events: StoredEvent[]): PublicReplay {
  let prev = GENESIS;
  const out: PublicReplay["events"] = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const pub: PublicEvent = { ...redact(salt, e), prev };
    const hash = eventHash(pub);
    out.push({ ...pub, hash });
    prev = hash;
  }
  return { replay_version: "scoreia-replay/0.2", card_id: cardId, events: out, head: prev };
}

export type ReplayProblem = {
  code: "replay_chain_broken" | "replay_head_mismatch" | "replay_malformed";
  message: string;
};

/** Checks a public replay: sequence, every prev link, every stated hash, and the head. */
export function verifyReplay(replay: unknown, expectedHead: string): ReplayProblem | null {
  if (!replay || typeof replay !== "object") return { code: "replay_malformed", message: "replay is not an object" };
  const r = replay as Partial<PublicReplay>;
  if (r.replay_version !== "scoreia-replay/0.2" || !Array.isArray(r.events) || typeof r.head !== "string") {
    return { code: "replay_malformed", message: "replay lacks replay_version scoreia-replay/0.2, events or head" };
  }
  let prev = GENESIS;
  for (let i = 0; i < r.events.length; i++) {
    const { hash, ...event } = r.events[i] as PublicEvent & { hash: string };
    if (event.seq !== i) return { code: "replay_chain_broken", message: `event ${i} has seq ${String(event.seq)}` };
    if (event.prev !== prev)
      return { code: "replay_chain_broken", message: `event ${i} does not link to the event before it` };
    let h: string;
    try {
      h = eventHash(event);
    } catch (e) {
      return { code: "replay_malformed", message: `event ${i}: ${(e as Error).message}` };
    }
    if (h !== hash) return { code: "replay_chain_broken", message: `event ${i} hash does not match its content` };
    prev = h;
  }
  if (prev !== r.head) return { code: "replay_chain_broken", message: "head is not the hash of the last event" };
  if (r.head !== expectedHead)
    return { code: "replay_head_mismatch", message: "replay head differs from the card's replay.head" };
  return null;
}
