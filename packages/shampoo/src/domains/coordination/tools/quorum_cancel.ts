import { fx, input, output, tool } from "../../../tooling.ts";
import type { QuorumCancelInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { quorumCancel } from "../service/quorums.ts";

export const quorum_cancel = tool<QuorumCancelInput>({
  name: "quorum_cancel",
  title: "Cancel a quorum",
  description:
    "Cancels one open coordination quorum (the agreement is abandoned rather than resolved): it is stamped cancelled, which is terminal; lanes beneath keep their own standing. Conductor only. Missing or malformed ids read as unknown_quorum; a quorum already resolved or cancelled is refused as quorum not open.",
  access: ["conductor"],
  kind: "write",
  inputSchema: input({ quorum_id: P.id("The quorum to cancel") }, ["quorum_id"]),
  outputSchema: output(shape({ quorum_id: S.str, status: { type: "string", enum: ["cancelled"] } })),
  examples: [{ title: "cancel an abandoned agreement", input: { quorum_id: fx("cancelQuorumId") } }],
  run: (a, ctx) => quorumCancel(ctx, a),
});
