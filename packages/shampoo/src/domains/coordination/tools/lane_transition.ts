import { fx, input, output, tool } from "../../../tooling.ts";
import type { LaneTransitionInput } from "../inputs.gen.ts";
import { LANE_STATES } from "../rules.ts";
import { P, S, shape } from "../schemas.ts";
import { laneTransition } from "../service/lanes.ts";

export const lane_transition = tool<LaneTransitionInput>({
  name: "lane_transition",
  title: "Move a lane's execution",
  description:
    "Moves one lane along its execution axis under compare-and-swap: open → in_progress; in_progress → done or failed; any non-terminal standing → cancelled; terminal standings never move. Review and merge standing are untouched. Conductor only. Refusals: unknown_lane; illegal lane transition, including a race the lane lost (of concurrent moves from one standing exactly one wins).",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      lane_id: P.id("The lane"),
      state: { type: "string", enum: [...LANE_STATES], description: "The target standing." },
    },
    ["lane_id", "state"],
  ),
  outputSchema: output(shape({ lane_id: S.str, state: S.str })),
  examples: [{ title: "start a lane", input: { lane_id: fx("laneId"), state: "in_progress" } }],
  run: (a, ctx) => laneTransition(ctx, a),
});
