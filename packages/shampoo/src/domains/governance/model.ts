import type { HistoryRow } from "../../store/schema.ts";
import type { ClaimRow, IssueRow, QuestionRow } from "./schema/tables.ts";

/**
 * Rows ↔ the public shapes governance's tools answer and its history events record.
 *
 * A chunk, question, claim, fact or issue event records the whole row but its profile and its
 * event pointer (`historyView`), so folding replay_memory rebuilds the row.
 */
export function historyView<R extends { profile: string; last_event_id: string }>(
  row: R,
): Omit<R, "profile" | "last_event_id"> {
  const { profile: _p, last_event_id: _l, ...rest } = row;
  return rest;
}

export function claimView(c: ClaimRow) {
  return {
    claim_id: c.claim_id,
    subject: c.subject,
    predicate: c.predicate,
    object: c.object,
    scope: c.scope,
    confidence: c.confidence,
    requires_human: c.requires_human === 1,
  };
}

export function questionView(q: Pick<QuestionRow, "question_id" | "text" | "type" | "priority">) {
  return { id: q.question_id, text: q.text, type: q.type, priority: q.priority };
}

export function issueView(i: IssueRow) {
  return {
    issue_id: i.issue_id,
    kind: i.kind,
    target_kind: i.target_kind,
    target_id: i.target_id,
    project: i.project,
    detail: i.detail,
    status: i.status,
    first_seen_at: i.first_seen_at,
    last_seen_at: i.last_seen_at,
    resolved_at: i.resolved_at,
  };
}

const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** One history event as replay_memory answers it: 20 fields (identity, clock, timestamp, old/new, payload, parent, source span). */
export function eventView(h: HistoryRow) {
  const source = parse(h.source_json) as { tool?: string; session?: string; request?: string } | null;
  const oldV = parse(h.old_json);
  const newV = parse(h.new_json);
  const keys = new Set([...Object.keys((oldV as object) ?? {}), ...Object.keys((newV as object) ?? {})]);
  const changed = [...keys]
    .filter(
      (k) =>
        JSON.stringify((oldV as Record<string, unknown> | null)?.[k]) !==
        JSON.stringify((newV as Record<string, unknown> | null)?.[k]),
    )
    .sort();
  return {
    seq: Number(h.seq),
    event_id: h.event_id,
    profile: h.profile,
    principal: h.principal,
    role: h.role,
    session_id: h.session_id,
    clock: Number(h.clock),
    at: h.at,
    aggregate_kind: h.entity_kind,
    aggregate_id: h.entity_id,
    action: h.action,
    old_value: oldV,
    new_value: newV,
    changed_fields: changed,
    payload: parse(h.payload_json),
    parent_event_id: h.parent_event_id,
    source,
    source_tool: source?.tool ?? null,
    source_session: source?.session ?? null,
    source_request: source?.request ?? null,
  };
}
