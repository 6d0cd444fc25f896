import { fx, input, output, tool } from "../../../tooling.ts";
import type { LaneCreateInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { laneCreate } from "../service/lanes.ts";

export const lane_create = tool<LaneCreateInput>({
  name: "lane_create",
  title: "Create a lane",
  description:
    "Creates one coordinated work lane in open standing under an open quorum, inheriting the quorum's project (no project argument by design). Needs the conductor role and an explicit grant on that project. Outward links are checked now: task_id must name a live task, depends_on a lane of the same quorum. A missing or inaccessible quorum reads as unknown_lane; a resolved or cancelled one is refused as quorum not open. Returns lane_id, state open and project.",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      quorum_id: P.id("The open quorum the lane serves"),
      assignee_client_id: P.name("The principal who works the lane (may submit it for review)."),
      base_ref: P.name("The ref the work starts from."),
      branch: P.name("The branch the work lands on."),
      depends_on: P.id("A lane of the same quorum this one follows"),
      repo: P.name("The repository."),
      task_id: P.id("A live task the lane carries"),
      worktree: P.ref("Where the work is checked out."),
    },
    ["quorum_id"],
  ),
  outputSchema: output(shape({ lane_id: S.str, state: { type: "string", enum: ["open"] }, project: S.str })),
  examples: [
    {
      title: "a feature branch lane",
      input: { quorum_id: fx("quorumId"), assignee_client_id: "worker-1", branch: "feat-x", repo: "saphira-memory" },
    },
  ],
  run: (a, ctx) => laneCreate(ctx, a),
});
