import { fx, input, output, tool } from "../../../tooling.ts";
import type { LaneMergeInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { laneMerge } from "../service/lanes.ts";

export const lane_merge = tool<LaneMergeInput>({
  name: "lane_merge",
  title: "Record a lane merge",
  description:
    "Records one lane's merge outcome; it never executes and never moves execution or review standing. merged needs execution done, review approved and a result_commit equal to the commit the approval was given for (a new head needs a new review); conflicted needs in_progress or done; skipped needs a lane that is not done. A merged lane stays merged. Conductor only. Refusals: unknown_lane, lane not mergeable (saying which gate).",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      lane_id: P.id("The lane"),
      outcome: {
        type: "string",
        enum: ["merged", "conflicted", "skipped"],
        description: "merged, conflicted or skipped.",
      },
      result_commit: P.name("The commit recorded with the merge; required for merged."),
    },
    ["lane_id", "outcome"],
  ),
  outputSchema: output(shape({ lane_id: S.str, merge_state: S.str })),
  examples: [
    {
      title: "merge an approved lane",
      input: { lane_id: fx("doneLaneId"), outcome: "merged", result_commit: fx("doneLaneCommit") },
    },
  ],
  run: (a, ctx) => laneMerge(ctx, a),
});
