import type { DomainError } from "kernel";
import { fail } from "../../platform/errors.ts";
import { barrierState } from "./rules.ts";
import type { BindingRow, MessageRow, TopicRow, WorkerClaimRow } from "./schema.ts";

/**
 * Rows ↔ the public shapes the debate tools answer and their history events record. Every
 * place a message leaves the store goes through `messageView`, which hides a sealed blind
 * position (its body, payload and nonce) from everyone, conductor, star and author included.
 */

/** The one denial of debate writes: unknown topic, undeclared role and unowned role read alike. */
export const DENIED_MESSAGE = "not-found: unknown topic, undeclared role, or a role you do not own";
export function denied(): DomainError {
  return fail("not_found", DENIED_MESSAGE);
}

/** The one answer of debate reads for a topic the caller cannot reach (missing, foreign, outsider). */
export function unknownTopic(): DomainError {
  return fail("unknown_topic", "unknown_topic");
}

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export const rolesOf = (t: TopicRow): string[] => parseJson<string[]>(t.roles_json, []);
export const blindRolesOf = (t: TopicRow): string[] => parseJson<string[]>(t.blind_roles_json, []);

/** Is a message a blind position whose round is not revealed yet? */
export function sealed(t: TopicRow, m: MessageRow): boolean {
  return m.blind_round !== null && m.blind_round > (t.revealed_round ?? 0);
}

export function messageView(t: TopicRow, m: MessageRow): Record<string, unknown> {
  const hidden = sealed(t, m);
  const view: Record<string, unknown> = {
    msg_id: m.msg_id,
    topic_id: m.topic_id,
    seq: m.seq,
    ts: m.ts,
    role: m.role,
    author_session_id: m.author_session_id,
    priority: m.priority,
    kind: m.kind,
    body: hidden ? "[SEALED]" : m.body,
    body_mode: m.body_mode,
    payload: hidden ? null : parseJson<unknown>(m.payload_json, null),
    reply_to: m.reply_to,
    standing: m.standing === 1,
    vehicle: m.vehicle,
    protocol_version: m.protocol_version,
    round_no: m.round_no,
    addressed: m.addressed === 1,
  };
  if (m.commitment !== null) {
    view.blind = { sealed: hidden, commitment: m.commitment, nonce: hidden ? null : m.nonce };
  }
  return view;
}

/** What a message's history event records: never a sealed position's body, payload or nonce. */
export function messageEventView(m: MessageRow): Record<string, unknown> {
  const blind = m.blind_round !== null;
  return {
    msg_id: m.msg_id,
    topic_id: m.topic_id,
    seq: m.seq,
    ts: m.ts,
    role: m.role,
    priority: m.priority,
    kind: m.kind,
    body: blind ? null : m.body,
    reply_to: m.reply_to,
    vehicle: m.vehicle,
    round_no: m.round_no,
    addressed: m.addressed === 1,
    commitment: m.commitment,
  };
}

export function topicView(t: TopicRow): Record<string, unknown> {
  return {
    topic_id: t.topic_id,
    title: t.title,
    state: t.state,
    project: t.project,
    project_state: t.project_state,
    created_at: t.created_at,
    created_by_role: t.created_by_role,
    resolve_by: t.resolve_by,
    archived_at: t.archived_at,
    roles: rolesOf(t),
    metadata: parseJson<Record<string, unknown>>(t.metadata_json, {}),
    lane: t.lane,
    protocol_version: t.protocol_version,
  };
}

export function protocolView(t: TopicRow): Record<string, unknown> {
  return {
    topic_id: t.topic_id,
    protocol_version: t.protocol_version,
    phase: t.phase,
    round_no: t.round_no,
    max_rounds: t.max_rounds,
    blind_roles: blindRolesOf(t),
    blind_barrier_state: barrierState(t.phase, t.round_no, t.revealed_round),
    revealed_round: t.revealed_round,
    stalemate_reason: t.stalemate_reason,
    transition_version: t.transition_version,
    phase_deadline_at: t.phase_deadline_at,
    phase_timeout_seconds: t.phase_timeout_seconds,
    updated_at: t.protocol_updated_at,
  };
}

/** The not-configured shape: legacy topics, and (identically) topics the caller cannot reach. */
export function notConfigured(topicId: string): Record<string, unknown> {
  return {
    topic_id: topicId,
    protocol_version: "",
    phase: null,
    round_no: null,
    max_rounds: null,
    blind_roles: [],
    blind_barrier_state: "not_configured",
    revealed_round: null,
    stalemate_reason: null,
    transition_version: null,
    phase_deadline_at: null,
    phase_timeout_seconds: null,
    updated_at: null,
    commitments: [],
    judge_flip_rates: [],
  };
}

/** A binding as its owner (or star) sees it; `showSession` false nulls the session id. */
export function bindingView(b: BindingRow, showSession = true): Record<string, unknown> {
  return {
    binding_id: b.binding_id,
    topic_id: b.topic_id,
    role: b.role,
    session_id: showSession ? b.session_id : null,
    runtime: b.runtime,
    state: b.state,
    generation: b.generation,
    reason: b.reason,
    bound_by: { role: b.bound_by_role, msg_id: b.bound_by_msg_id },
    created_at: b.created_at,
    updated_at: b.updated_at,
    retired_at: b.retired_at,
    cursor: { msg_id: b.cursor_msg_id, ts: b.cursor_ts, last_check_at: b.last_check_at },
  };
}

export const bindingEventView = (b: BindingRow) => bindingView(b);

export function claimView(c: WorkerClaimRow): Record<string, unknown> {
  return {
    claim_id: c.claim_id,
    topic_id: c.topic_id,
    role: c.role,
    parent_session_id: c.parent_session_id,
    trigger_msg_id: c.trigger_msg_id,
    worker_session_id: c.worker_session_id,
    generation: c.generation,
    requeues: c.requeues,
    state: c.state,
    claimed_at: c.claimed_at,
    heartbeat_at: c.heartbeat_at,
    completed_at: c.completed_at,
    ack_msg_id: c.ack_msg_id,
    details: parseJson<unknown>(c.details_json, null),
  };
}
