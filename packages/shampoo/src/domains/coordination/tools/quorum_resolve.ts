import { fx, input, output, tool } from "../../../tooling.ts";
import type { QuorumResolveInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { quorumResolve } from "../service/quorums.ts";

export const quorum_resolve = tool<QuorumResolveInput>({
  name: "quorum_resolve",
  title: "Resolve a quorum",
  description:
    "Resolves one open quorum once every lane under it is terminal (done, failed or cancelled), recording optional pointers at the decisive message (decision_ref) and the agreed artifact (result_ref). Conductor only. A lane created at the same moment is either seen (and refused as quorum has open lanes) or refused itself (quorum not open): never resolved over. Resolved is terminal.",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      quorum_id: P.id("The quorum to resolve"),
      decision_ref: P.ref("Pointer at the decisive debate message or verdict (at most 500 characters)."),
      result_ref: P.ref("Pointer at the agreed artifact or outcome (at most 500 characters)."),
    },
    ["quorum_id"],
  ),
  outputSchema: output(shape({ quorum_id: S.str, status: { type: "string", enum: ["resolved"] } })),
  examples: [
    {
      title: "resolve a finished agreement",
      input: { quorum_id: fx("resolveQuorumId"), result_ref: "release-notes-v2" },
    },
  ],
  run: (a, ctx) => quorumResolve(ctx, a),
});
