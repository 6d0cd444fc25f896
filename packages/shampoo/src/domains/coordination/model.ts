import { type DomainError, iso } from "kernel";
import { fail, notFound } from "../../platform/errors.ts";
import type { JobRow, LaneRow, QuorumParticipantRow, QuorumRow } from "./schema.ts";

/** Coordination's rows as its tools answer them and its history events record them; its failures. */

export const unknownQuorum = (): DomainError => fail("unknown_quorum", "unknown_quorum: no such quorum");
export const unknownLane = (): DomainError => fail("unknown_lane", "unknown_lane: no such lane");
export const jobNotFound = (): DomainError => notFound("job");
export const quorumNotOpen = (status: string): DomainError =>
  fail("quorum_not_open", `quorum not open (it is ${status})`, { current_state: status });

/** PostgreSQL answers bigint columns as strings. */
export const num = (v: number | string | bigint | null | undefined): number => Number(v ?? 0);

export function quorumView(q: QuorumRow): Record<string, unknown> {
  return {
    quorum_id: q.id,
    project: q.project,
    status: q.status,
    primary_topic_id: q.primary_topic_id,
    decision_ref: q.decision_ref,
    result_ref: q.result_ref,
    created_by: q.created_by,
    created_at: q.created_at,
    resolved_at: q.resolved_at,
    resolved_by: q.resolved_by,
  };
}

export function participantView(p: QuorumParticipantRow): Record<string, unknown> {
  return { quorum_id: p.quorum_id, kind: p.kind, ref: p.ref, state: p.state };
}

export function laneView(l: LaneRow): Record<string, unknown> {
  return {
    lane_id: l.id,
    quorum_id: l.quorum_id,
    project: l.project,
    state: l.state,
    review_state: l.review_state,
    review_commit: l.review_commit,
    merge_state: l.merge_state,
    result_commit: l.result_commit,
    assignee: l.assignee,
    task_id: l.task_id,
    depends_on: l.depends_on,
    repo: l.repo,
    branch: l.branch,
    base_ref: l.base_ref,
    worktree: l.worktree,
    created_by: l.created_by,
    created_at: l.created_at,
    changed_at: l.changed_at,
  };
}

export function jobView(j: JobRow): Record<string, unknown> {
  return {
    job_id: j.id,
    project: j.project,
    lane_id: j.lane_id,
    kind: j.kind,
    state: j.state,
    owner: j.owner,
    fence: num(j.fence),
    lease_until: j.lease_until_ms === null ? null : iso(num(j.lease_until_ms)),
    attempts: j.attempts,
    reclaimed: j.reclaimed,
    result_ref: j.result_ref,
  };
}
