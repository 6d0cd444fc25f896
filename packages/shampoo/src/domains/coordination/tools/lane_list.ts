import { fx, input, output, tool } from "../../../tooling.ts";
import type { LaneListInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { laneList } from "../service/lanes.ts";

export const lane_list = tool<LaneListInput>({
  name: "lane_list",
  title: "List lanes",
  description:
    "Lists the lanes you may see (project scope AND participation in the parent quorum; conductor and star see all), newest first, optionally narrowed by quorum, project or execution state (anything else matches nothing). Each lane carries its three axes: state, review_state (with the review_commit an approval binds to) and merge_state (with result_commit). limit is clamped to 1..100 (default 20). Read-only.",
  kind: "read",
  inputSchema: input({
    quorum_id: P.id("Only lanes of this quorum"),
    project: P.project,
    state: { type: "string", maxLength: 40, description: "open, in_progress, done, failed or cancelled." },
    limit: P.limit,
  }),
  outputSchema: output(shape({ lanes: S.list(S.obj), count: S.int })),
  examples: [{ title: "lanes of a quorum", input: { quorum_id: fx("quorumId") } }],
  run: (a, ctx) => laneList(ctx, a),
});
