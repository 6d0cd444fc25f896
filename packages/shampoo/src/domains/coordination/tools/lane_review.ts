import { fx, input, output, tool } from "../../../tooling.ts";
import type { LaneReviewInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { laneReview } from "../service/lanes.ts";

export const lane_review = tool<LaneReviewInput>({
  name: "lane_review",
  title: "Review a lane",
  description:
    "Moves a lane's review standing, never its execution: submit (the conductor or the lane's assignee; needs commit, the digest of the work under review) moves empty or changes_requested to pending; approve or request-changes (conductor only, checked before the lane is looked up) move pending to approved or changes_requested. An approval binds to the submitted commit: lane_merge needs that same commit. Refusals: unknown_lane, review closed, nothing under review.",
  kind: "write",
  inputSchema: input(
    {
      lane_id: P.id("The lane"),
      decision: {
        type: "string",
        enum: ["submit", "approve", "request-changes"],
        description: "submit, approve or request-changes.",
      },
      commit: {
        type: "string",
        pattern: "^[0-9a-fA-F]{7,64}$",
        description: "With submit (required there): the commit digest under review, 7..64 hex digits.",
      },
    },
    ["lane_id", "decision"],
  ),
  outputSchema: output(shape({ lane_id: S.str, review_state: S.str, review_commit: S.nstr })),
  examples: [
    { title: "submit finished work", input: { lane_id: fx("laneId"), decision: "submit", commit: "3f2c9a1b7d" } },
  ],
  run: (a, ctx) => laneReview(ctx, a),
});
