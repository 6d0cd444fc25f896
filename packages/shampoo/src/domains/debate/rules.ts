import { createHash } from "node:crypto";

/**
 * Pure debate decisions: no ctx, no store (tested without a database in rules.test.ts).
 */

export const TOPIC_STATES = ["INIT", "ACTIVE", "RESOLVED", "ARCHIVED"] as const;
export type TopicState = (typeof TOPIC_STATES)[number];
export const PRIORITIES = ["H", "M", "L", "INFO"] as const;
export const PRIORITY_RANK: Record<string, number> = { H: 0, M: 1, L: 2, INFO: 3 };
/** The message kinds the catalog names; anything else is rejected. */
export const KINDS = [
  "DECISION",
  "STATE",
  "COMPACTION",
  "WATERMARK",
  "PING",
  "ESCALATE",
  "CLAIM",
  "REBUT",
  "Q",
  "A",
  "STATUS",
  "TASK_ALARM",
] as const;
/** Kinds only their own tools write (debate_compact, debate_advance_watermark). */
export const RESERVED_KINDS = ["COMPACTION", "WATERMARK"];
/** Replies that finish a claimed trigger. */
export const TERMINAL_KINDS = ["A", "STATUS"];
export const POSITION_KINDS = ["CLAIM", "REBUT"];
export const PROTOCOL_V1 = "debate/v1";
export const PHASES = ["ROUND", "ADJUDICATE", "STOPPED", "STALEMATE"] as const;
export type Phase = (typeof PHASES)[number];
export const CURSOR_MODES = ["head", "copy", "replay"] as const;
/** Roles the missing-owner recovery never takes over. */
export const UNRECOVERED_ROLES = ["HUMAN", "OPERATOR"];
export const DEFAULT_PHASE_TIMEOUT_SECONDS = 3600;
export const DEFAULT_MAX_ROUNDS = 3;
/** A worker's lease: heartbeats extend it; recovery's default minimum age matches it. */
export const WORKER_LEASE_MS = 120_000;
export const MAX_REQUEUES = 2;
/** The schema_version a trigger response (a post result) carries for debate_wake_dry_run. */
export const POST_SCHEMA_VERSION = "debate.post/v1";

export const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
const UUID_RE = new RegExp(UUID_PATTERN);
export const ROLE_PATTERN = "^[A-Z][A-Z0-9_]{0,63}$";
const ROLE_RE = new RegExp(ROLE_PATTERN);
/** Strict ISO-8601 UTC: 2026-11-30T12:00:00Z or with milliseconds; naive values never pass. */
export const ISO_UTC_PATTERN = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$";
const ISO_UTC_RE = new RegExp(ISO_UTC_PATTERN);

export const isUuid = (v: string): boolean => UUID_RE.test(v);

/** A role name: uppercase; executors are numbered (EXECUTOR_1, EXECUTOR_2, …). */
export function roleShapeError(role: string): string | null {
  if (!ROLE_RE.test(role)) return `role ${JSON.stringify(role)} must match ${ROLE_PATTERN}`;
  if (role.startsWith("EXECUTOR") && !/^EXECUTOR_[1-9][0-9]*$/.test(role)) {
    return `executor roles are numbered EXECUTOR_1, EXECUTOR_2, …; got ${role}`;
  }
  return null;
}

/** Milliseconds of a strict ISO-8601 UTC value, or null when it is not one. */
export function strictUtc(v: string): number | null {
  if (!ISO_UTC_RE.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}

/** The items of a CSV argument: trimmed, blanks dropped. */
export function csv(v: string | undefined | null): string[] {
  if (!v) return [];
  return v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** P0..P7 (any case) → the stored lane and its rank, or null. */
export function laneOf(v: string): { lane: string; rank: number } | null {
  const m = /^[Pp]([0-7])$/.exec(v.trim());
  return m ? { lane: `P${m[1]}`, rank: Number(m[1]) } : null;
}

/** The forward move to a target state, or null when the target is not forward of `from`. */
export function moveTo(from: TopicState, to: TopicState): "activate" | "resolve" | "archive" | null {
  if (to === "ACTIVE" && from === "INIT") return "activate";
  if (to === "RESOLVED" && (from === "INIT" || from === "ACTIVE")) return "resolve";
  if (to === "ARCHIVED" && from === "RESOLVED") return "archive";
  return null;
}

/** Does a reply settle a question? An A reply, or any reply whose body starts with [DEFERRED:. */
export function answers(reply: { kind: string; body: string }): boolean {
  return reply.kind === "A" || reply.body.trimStart().startsWith("[DEFERRED:");
}

/** The sections a COMPACTION body must carry, each at the start of a line (optionally a heading). */
export const COMPACTION_SECTIONS = ["OBSERVE", "ORIENT", "DECIDE", "ACT"] as const;
export function missingSections(body: string): string[] {
  return COMPACTION_SECTIONS.filter((s) => !new RegExp(`^\\s*(#+\\s*)?${s}\\b`, "m").test(body));
}

/** The commitment of a blind position: hex sha256 of `${nonce}:${body}`, checkable by anyone. */
export function commitmentOf(body: string, nonce: string): string {
  return createHash("sha256").update(`${nonce}:${body}`).digest("hex");
}

/** Where the barrier stands for a round: sealed until both blind roles have committed. */
export function barrierState(phase: string | null, roundNo: number | null, revealed: number | null): string {
  if (phase === null) return "not_configured";
  if (phase !== "ROUND") return "open";
  return (revealed ?? 0) >= (roundNo ?? 0) ? "open" : "sealed";
}

/** The two verdicts of a pair: stable when both orders chose the same winner. */
export function verdictOutcome(ab: string | null, ba: string | null): { complete: boolean; stable: boolean | null } {
  if (ab === null || ba === null) return { complete: false, stable: null };
  return { complete: true, stable: ab === ba };
}

/** A judge role's flip rate: the share of its completed pairs whose two orders disagreed. */
export function flipRate(pairs: Array<{ ab: string; ba: string }>): {
  pairs: number;
  flips: number;
  rate: number | null;
} {
  const flips = pairs.filter((p) => p.ab !== p.ba).length;
  return { pairs: pairs.length, flips, rate: pairs.length === 0 ? null : flips / pairs.length };
}

/** What a debate/v1 payload must carry when given. */
export function payloadError(p: unknown): string | null {
  if (!p || typeof p !== "object" || Array.isArray(p)) return "payload_json must be a JSON object";
  const o = p as Record<string, unknown>;
  if (typeof o.summary !== "string" || o.summary.trim() === "")
    return "payload_json.summary must be a non-empty string";
  if (!Array.isArray(o.assumptions)) return "payload_json.assumptions must be an array";
  if (!Array.isArray(o.evidence_refs)) return "payload_json.evidence_refs must be an array";
  return null;
}

/** The work queue's sort key of one topic: lanes P0..P7 first, then the derived signals. */
export interface QueueSignals {
  topic_id: string;
  lane_rank: number | null;
  resolve_by_ms: number | null;
  open_questions: number;
  active_claims: number;
  missing_roles: number;
  high_messages: number;
  latest_seq: number;
}

export const QUEUE_ORDERING =
  "lane_rank asc (P0..P7, none last), resolve_by asc (none last), open_questions desc, active_claims desc, missing_roles desc, high_messages desc, latest_seq desc, topic_id asc";

export function compareQueue(a: QueueSignals, b: QueueSignals): number {
  const keys: Array<[number, number]> = [
    [a.lane_rank ?? 8, b.lane_rank ?? 8],
    [a.resolve_by_ms ?? Number.MAX_SAFE_INTEGER, b.resolve_by_ms ?? Number.MAX_SAFE_INTEGER],
    [-a.open_questions, -b.open_questions],
    [-a.active_claims, -b.active_claims],
    [-a.missing_roles, -b.missing_roles],
    [-a.high_messages, -b.high_messages],
    [-a.latest_seq, -b.latest_seq],
  ];
  for (const [x, y] of keys) if (x !== y) return x < y ? -1 : 1;
  return a.topic_id < b.topic_id ? -1 : a.topic_id > b.topic_id ? 1 : 0;
}

/** A number that falls as the queue goes down: explicit lanes outrank every derived signal. */
export function priorityScore(s: QueueSignals, nowMs: number): number {
  const lane = s.lane_rank === null ? 0 : (8 - s.lane_rank) * 1000;
  const due = s.resolve_by_ms === null ? 0 : s.resolve_by_ms <= nowMs ? 100 : 50;
  return lane + due + s.open_questions * 10 + s.active_claims * 5 + s.missing_roles * 3 + s.high_messages;
}
