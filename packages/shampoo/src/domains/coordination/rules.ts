/**
 * Coordination's pure decisions: the moves each axis allows, the merge gates, the participant
 * order, the lease bounds. No ctx, no store (rules.test.ts beside).
 */
import type { JobRow, LaneRow, QuorumParticipantRow } from "./schema.ts";

export type LaneState = LaneRow["state"];
export type ReviewState = LaneRow["review_state"];
export type MergeState = LaneRow["merge_state"];
export type ParticipantState = QuorumParticipantRow["state"];

export const LANE_STATES: readonly LaneState[] = ["open", "in_progress", "done", "failed", "cancelled"];
export const TERMINAL_LANE: readonly LaneState[] = ["done", "failed", "cancelled"];
export const QUORUM_STATUSES = ["open", "resolved", "cancelled"] as const;
export const JOB_STATES: readonly JobRow["state"][] = ["queued", "claimed", "completed", "failed"];

/** At most this many participants per quorum. */
export const MAX_PARTICIPANTS = 64;
/** A job is claimed at most this many times; past it, it stays, as failed. */
export const MAX_ATTEMPTS = 5;
export const LEASE_MIN_S = 1;
export const LEASE_MAX_S = 3600;
export const DEFAULT_LEASE_S = 300;

/** Execution axis: open → in_progress → done | failed; any non-terminal → cancelled. */
export function laneMoveAllowed(from: LaneState, to: LaneState): boolean {
  if (TERMINAL_LANE.includes(from)) return false;
  if (to === "cancelled") return true;
  return (from === "open" && to === "in_progress") || (from === "in_progress" && (to === "done" || to === "failed"));
}

export type ReviewDecision = "submit" | "approve" | "request-changes";

/**
 * Review axis: submit moves empty or changes_requested to pending; a verdict moves pending to
 * approved or changes_requested. Answers the next state, or the refusal's code.
 */
export function reviewMove(
  current: ReviewState,
  decision: ReviewDecision,
): { to: ReviewState } | { refused: "review_closed" | "nothing_under_review" } {
  if (decision === "submit") {
    return current === "" || current === "changes_requested" ? { to: "pending" } : { refused: "review_closed" };
  }
  if (current !== "pending") return { refused: "nothing_under_review" };
  return { to: decision === "approve" ? "approved" : "changes_requested" };
}

export type MergeOutcome = "merged" | "conflicted" | "skipped";

/**
 * Merge gates, or why not: merged needs execution done, review approved, a result commit, and
 * that commit equal to the one the approval was given for; conflicted needs in_progress or done;
 * skipped needs a lane that is not done. A recorded merge is final.
 */
export function mergeRefusal(lane: LaneRow, outcome: MergeOutcome, resultCommit: string | undefined): string | null {
  if (lane.merge_state === "merged") return "the lane is already merged";
  if (outcome === "merged") {
    if (lane.state !== "done") return `execution is ${lane.state}, not done`;
    if (lane.review_state !== "approved") return `review is ${lane.review_state || "not submitted"}, not approved`;
    if (!resultCommit) return "merged needs a result_commit";
    if (lane.review_commit !== resultCommit) {
      return `the approval was given for commit ${lane.review_commit ?? "(none)"}, not ${resultCommit}: submit the new head for review`;
    }
    return null;
  }
  if (outcome === "conflicted") {
    return lane.state === "in_progress" || lane.state === "done" ? null : `execution is ${lane.state}`;
  }
  return lane.state === "done" ? "a done lane cannot be skipped" : null;
}

const PARTICIPANT_ORDER: readonly ParticipantState[] = ["pending", "joined", "fulfilled", "withdrawn"];

/**
 * Participant marks move forward only: pending → joined → fulfilled, and withdrawn from any
 * non-withdrawn standing. Re-marking the same standing is a no-op (true).
 */
export function participantMoveAllowed(from: ParticipantState, to: ParticipantState): boolean {
  if (from === to) return true;
  if (from === "withdrawn") return false;
  if (to === "withdrawn") return true;
  return PARTICIPANT_ORDER.indexOf(to) > PARTICIPANT_ORDER.indexOf(from);
}

/** Lists clamp their limit to 1..100 (default 20). */
export function clampLimit(v: number | undefined, dflt = 20): number {
  if (v === undefined || !Number.isFinite(v)) return dflt;
  return Math.min(100, Math.max(1, Math.trunc(v)));
}

/** A participant ref: a principal name or a role name, 1..200 printable characters. */
export function participantRefOk(ref: unknown): ref is string {
  return (
    typeof ref === "string" && ref.trim() !== "" && ref.length <= 200 && ![...ref].some((c) => c.charCodeAt(0) < 32)
  );
}
