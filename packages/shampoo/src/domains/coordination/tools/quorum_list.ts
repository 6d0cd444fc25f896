import { fx, input, output, tool } from "../../../tooling.ts";
import type { QuorumListInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { quorumList } from "../service/quorums.ts";

export const quorum_list = tool<QuorumListInput>({
  name: "quorum_list",
  title: "List quorums",
  description:
    "Lists the quorums you may see (project scope AND participation; conductor and star see all), newest first, optionally narrowed by project or status (open, resolved, cancelled; anything else matches nothing). Each carries its participants. limit is clamped to 1..100 (default 20). Read-only.",
  kind: "read",
  inputSchema: input({
    project: P.project,
    status: { type: "string", maxLength: 40, description: "open, resolved or cancelled." },
    limit: P.limit,
  }),
  outputSchema: output(shape({ quorums: S.list(S.obj), count: S.int })),
  examples: [{ title: "open quorums of a project", input: { project: fx("coordinationProject"), status: "open" } }],
  run: (a, ctx) => quorumList(ctx, a),
});
