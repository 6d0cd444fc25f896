import { createHash, createHmac } from "node:crypto";
import type { EventRow } from "../attempts/schema.ts";
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

/** A stored chamber_events row as the replay reads it. */
export function storedEvent(row: Omit<EventRow, "id">): StoredEvent {
  return {
    seq: row.seq,
    kind: row.kind,
    action_index: row.action_index,
    at: row.at,
    request: JSON.parse(row.request_json),
    response: JSON.parse(row.response_json),
    private: row.private_json === null ? null : JSON.parse(row.private_json),
  };
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

/**
 * The salt of one redacted value: HMAC-SHA256(key = the attempt's 32-byte salt, message =
 * UTF-8 of "<seq>:<location>"). Each value has its own salt, so revealing one value (with its
 * salt) to prove it exposes nothing about the others, even low-entropy ones.
 */
export function valueSalt(attemptSalt: Uint8Array, seq: number, location: string): Buffer {
  return createHmac("sha256", attemptSalt).update(`${seq}:${location}`, "utf8").digest();
}

/** `sha256:` hex of SHA-256(valueSalt ‖ UTF-8(JCS(value))). */
export function saltedDigest(salt: Uint8Array, value: unknown): string {
  return `sha256:${createHash("sha256").update(salt).update(canonicalJson(value), "utf8").digest("hex")}`;
}

function mark(attemptSalt: Uint8Array, seq: number, location: string, value: unknown): RedactedMarker {
  return { redacted: saltedDigest(valueSalt(attemptSalt, seq, location), value) };
}

function redactFields(salt: Uint8Array, seq: number, part: string, v: unknown, fields: Set<string>): unknown {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = fields.has(k) ? mark(salt, seq, `${part}.${k}`, x) : x;
  return out;
}

/**
 * Generations with a room secret also commit, instead of showing, everything that tells the room
 * apart (docs/evidence-0.2.md §14.2): the value an action submitted, the observation every action
 * returned (clues, hints and the feedback of a wrong answer), and the seed and instructions
 * call_for_help gave an ally. What stays in clear is what the card's counts are checked against:
 * op, object, result, progress, action index.
 */
const COMMITTED_REQUEST: Record<string, Set<string>> = {
  action: new Set(["challenge_handle", "value"]),
};
const COMMITTED_RESPONSE: Record<string, Set<string>> = {
  action: new Set(["attempt_handle", "observation"]),
  call_for_help: new Set(["attempt_handle", "ally_seed", "ally_instructions"]),
};

/** The public form of one stored event, before chaining. `commits`: the attempt's generation has a room secret. */
export function redact(salt: Uint8Array, e: StoredEvent, commits = false): Omit<PublicEvent, "prev"> {
  const req = (commits && COMMITTED_REQUEST[e.kind]) || PRIVATE_REQUEST_FIELDS;
  const res = (commits && COMMITTED_RESPONSE[e.kind]) || PRIVATE_RESPONSE_FIELDS;
  return {
    seq: e.seq,
    kind: e.kind,
    action_index: e.action_index,
    at: e.at,
    request: PRIVATE_REQUEST_KINDS.has(e.kind)
      ? mark(salt, e.seq, "request", e.request)
      : redactFields(salt, e.seq, "request", e.request, req),
    response: redactFields(salt, e.seq, "response", e.response, res),
    private: e.private === null || e.private === undefined ? null : mark(salt, e.seq, "private", e.private),
  };
}

/** Hash of one public event: sha256 over JCS of the event including `prev`, excluding `hash`. */
export function eventHash(e: PublicEvent): string {
  return sha256Tagged(canonicalJson(e));
}

/**
 * The hash of `e` chained after `prev`, as buildReplay computes it: what the Chamber stores with
 * each event when it writes it, so that sealing needs only the last hash. `e` holds the values
 * as stored: they must survive a JSON round trip unchanged (canonicalJson refuses anything else).
 */
export function chainedHash(salt: Uint8Array, e: StoredEvent, prev: string, commits = false): string {
  return eventHash({ ...redact(salt, e, commits), prev });
}

/** Builds the chained public replay. */
export function buildReplay(cardId: string, salt: Uint8Array, events: StoredEvent[], commits = false): PublicReplay {
  let prev = GENESIS;
  const out: PublicReplay["events"] = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    const pub: PublicEvent = { ...redact(salt, e, commits), prev };
    const hash = eventHash(pub);
    out.push({ ...pub, hash });
    prev = hash;
  }
  return { replay_version: "scoreia-replay/0.2", card_id: cardId, events: out, head: prev };
}

const REPLAY_KEYS = ["card_id", "events", "head", "replay_version"];
const EVENT_KEYS = ["action_index", "at", "hash", "kind", "prev", "private", "request", "response", "seq"];
export const EVENT_KINDS = new Set(["enter", "action", "call_for_help", "quarantine", "seal"]);
/** ISO-8601 UTC with milliseconds, exactly as Date.prototype.toISOString writes it. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A real instant written exactly as toISOString writes it (no 31 February, no hour 25). */
export function isIsoMs(v: unknown): v is string {
  if (typeof v !== "string" || !ISO_MS.test(v)) return false;
  const t = Date.parse(v);
  return Number.isFinite(t) && new Date(t).toISOString() === v;
}

function sameKeys(v: Record<string, unknown>, keys: string[]): boolean {
  const have = Object.keys(v).sort();
  return have.length === keys.length && have.every((k, i) => k === keys[i]);
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
  if (!sameKeys(r as Record<string, unknown>, REPLAY_KEYS)) {
    return { code: "replay_malformed", message: `a replay has exactly the fields ${REPLAY_KEYS.join(", ")}` };
  }
  let prev = GENESIS;
  for (let i = 0; i < r.events.length; i++) {
    const raw = r.events[i];
    if (
      !raw ||
      typeof raw !== "object" ||
      Array.isArray(raw) ||
      !sameKeys(raw as unknown as Record<string, unknown>, EVENT_KEYS)
    ) {
      return { code: "replay_malformed", message: `event ${i} must have exactly ${EVENT_KEYS.join(", ")}` };
    }
    const { hash, ...event } = raw as PublicEvent & { hash: string };
    if (event.seq !== i) return { code: "replay_chain_broken", message: `event ${i} has seq ${String(event.seq)}` };
    if (!EVENT_KINDS.has(event.kind) || !isIsoMs(event.at)) {
      return { code: "replay_malformed", message: `event ${i} has an unknown kind or a malformed time` };
    }
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
  const last = r.events[r.events.length - 1] as PublicEvent | undefined;
  if (r.events[0]?.kind !== "enter" || last?.kind !== "seal") {
    return { code: "replay_malformed", message: "a card's replay starts with enter and ends with seal" };
  }
  if (prev !== r.head) return { code: "replay_chain_broken", message: "head is not the hash of the last event" };
  if (r.head !== expectedHead)
    return { code: "replay_head_mismatch", message: "replay head differs from the card's replay.head" };
  return null;
}

/** One opened commitment of a revealed generation (docs/evidence-0.2.md §14.3). */
export interface Opening {
  seq: number;
  /** Where the marker sits, as its value salt names it: `request.value`, `response.observation`, `private`. */
  location: string;
  value: unknown;
}

/**
 * The reveal this build publishes: every opening carries its own value salt, and no attempt's
 * replay salt is published (a replay salt opens every commitment of its attempt, the guessable
 * ones too: an ally seed, a handle). Reveals of the earlier version, which published
 * `replay_salts`, stay readable, so saved copies still re-grade.
 */
export const REVEAL_VERSION = "scoreia-reveal/0.3";
export const LEGACY_REVEAL_VERSION = "scoreia-reveal/0.2";

/** One opening of a reveal 0.3: the value and the value salt (§7.2) it was committed with. */
export interface SaltedOpening extends Opening {
  /** 64 lowercase hex. */
  salt: string;
}

/**
 * The commitments a reveal opens: what re-grading reads (each action's submitted value, its
 * observation and its private oracle facts). Bearer handles, ally seeds and instructions (a seed
 * nobody else may enter before the ally) and operator notes stay committed.
 */
export const OPENED_LOCATIONS: Record<string, readonly string[]> = {
  action: ["request.value", "response.observation", "private"],
};

/** The openings of one attempt's stored events, in seq then location order. */
export function openingsOf(events: StoredEvent[]): Opening[] {
  const out: Opening[] = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    for (const location of OPENED_LOCATIONS[e.kind] ?? []) {
      const value = valueAt(e, location);
      if (value !== undefined && value !== null) out.push({ seq: e.seq, location, value });
    }
  }
  return out;
}

/** The value an event holds at `location` (`request.x`, `response.x` or `private`), or undefined. */
function valueAt(e: Pick<StoredEvent, "request" | "response" | "private">, location: string): unknown {
  if (location === "private") return e.private;
  const [part, member] = location.split(".") as [string, string];
  const holder = part === "request" ? e.request : part === "response" ? e.response : undefined;
  if (!holder || typeof holder !== "object" || Array.isArray(holder)) return undefined;
  return Object.hasOwn(holder, member) ? (holder as Record<string, unknown>)[member] : undefined;
}

/** The marker at `location` of a public event, or undefined when there is none. */
export function markerAt(e: Pick<PublicEvent, "request" | "response" | "private">, location: string): unknown {
  return valueAt(e, location);
}
