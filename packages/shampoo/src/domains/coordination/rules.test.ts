import { describe, expect, it } from "vitest";
import { clampLimit, laneMoveAllowed, mergeRefusal, participantMoveAllowed, reviewMove } from "./rules.ts";
import type { LaneRow } from "./schema.ts";

const lane = (over: Partial<LaneRow>): LaneRow =>
  ({ state: "done", review_state: "approved", review_commit: "abc1234", merge_state: "", ...over }) as LaneRow;

describe("coordination rules", () => {
  it("execution: open → in_progress → done | failed; non-terminal → cancelled; terminal never moves", () => {
    expect(laneMoveAllowed("open", "in_progress")).toBe(true);
    expect(laneMoveAllowed("open", "done")).toBe(false);
    expect(laneMoveAllowed("in_progress", "failed")).toBe(true);
    expect(laneMoveAllowed("open", "cancelled")).toBe(true);
    expect(laneMoveAllowed("in_progress", "cancelled")).toBe(true);
    for (const t of ["done", "failed", "cancelled"] as const) {
      for (const to of ["open", "in_progress", "done", "failed", "cancelled"] as const) {
        expect(laneMoveAllowed(t, to)).toBe(false);
      }
    }
  });

  it("review: submit from empty or changes_requested; verdicts only on pending", () => {
    expect(reviewMove("", "submit")).toEqual({ to: "pending" });
    expect(reviewMove("changes_requested", "submit")).toEqual({ to: "pending" });
    expect(reviewMove("approved", "submit")).toEqual({ refused: "review_closed" });
    expect(reviewMove("pending", "submit")).toEqual({ refused: "review_closed" });
    expect(reviewMove("pending", "approve")).toEqual({ to: "approved" });
    expect(reviewMove("pending", "request-changes")).toEqual({ to: "changes_requested" });
    expect(reviewMove("", "approve")).toEqual({ refused: "nothing_under_review" });
  });

  it("merge gates: merged needs done, approved and the approved commit", () => {
    expect(mergeRefusal(lane({}), "merged", "abc1234")).toBeNull();
    expect(mergeRefusal(lane({}), "merged", "fff0000")).toMatch(/approval was given for commit abc1234/);
    expect(mergeRefusal(lane({ state: "in_progress" }), "merged", "abc1234")).toMatch(/not done/);
    expect(mergeRefusal(lane({ review_state: "pending" }), "merged", "abc1234")).toMatch(/not approved/);
    expect(mergeRefusal(lane({}), "merged", undefined)).toMatch(/needs a result_commit/);
    expect(mergeRefusal(lane({ state: "open" }), "conflicted", undefined)).toMatch(/execution is open/);
    expect(mergeRefusal(lane({ state: "in_progress" }), "conflicted", undefined)).toBeNull();
    expect(mergeRefusal(lane({ state: "failed" }), "skipped", undefined)).toBeNull();
    expect(mergeRefusal(lane({}), "skipped", undefined)).toMatch(/cannot be skipped/);
    expect(mergeRefusal(lane({ merge_state: "merged" }), "conflicted", undefined)).toMatch(/already merged/);
  });

  it("participants move forward only; limits clamp to 1..100", () => {
    expect(participantMoveAllowed("pending", "joined")).toBe(true);
    expect(participantMoveAllowed("joined", "pending")).toBe(false);
    expect(participantMoveAllowed("fulfilled", "withdrawn")).toBe(true);
    expect(participantMoveAllowed("withdrawn", "joined")).toBe(false);
    expect(participantMoveAllowed("joined", "joined")).toBe(true);
    expect([clampLimit(undefined), clampLimit(0), clampLimit(500), clampLimit(7)]).toEqual([20, 1, 100, 7]);
  });
});
