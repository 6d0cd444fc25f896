import { fx, input, output, tool } from "../../../tooling.ts";
import type { QuorumCreateInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { quorumCreate } from "../service/quorums.ts";

export const quorum_create = tool<QuorumCreateInput>({
  name: "quorum_create",
  title: "Create a quorum",
  description:
    "Creates one coordination quorum: what was agreed (Debate holds why, Quorum what was agreed, Lane the coordinated stream, Job one executable unit). Needs the conductor role AND an explicit grant on the project (star never confers origination; '*' is no project). participants: optional JSON array of {kind: client|role, ref}, at most 64, each starting pending. Returns quorum_id, status open and project. Failures create nothing.",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      project: P.project,
      participants: {
        type: "string",
        maxLength: 20000,
        description: 'JSON array of {"kind":"client"|"role","ref":"…"}, at most 64 entries; each starts pending.',
      },
      primary_topic_id: P.id("Optional debate topic the quorum coordinates around"),
    },
    ["project"],
  ),
  outputSchema: output(shape({ quorum_id: S.str, status: { type: "string", enum: ["open"] }, project: S.str })),
  examples: [
    {
      title: "an agreement with an executor role and a client",
      input: {
        project: fx("coordinationProject"),
        participants: '[{"kind":"role","ref":"EXECUTOR"},{"kind":"client","ref":"worker-1"}]',
      },
    },
  ],
  run: (a, ctx) => quorumCreate(ctx, a),
});
