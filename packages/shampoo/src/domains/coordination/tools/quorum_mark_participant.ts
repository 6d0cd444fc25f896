import { fx, input, output, tool } from "../../../tooling.ts";
import type { QuorumMarkParticipantInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { quorumMarkParticipant } from "../service/quorums.ts";

const STATES = ["pending", "joined", "fulfilled", "withdrawn"];

export const quorum_mark_participant = tool<QuorumMarkParticipantInput>({
  name: "quorum_mark_participant",
  title: "Mark a quorum participant",
  description:
    "Adds a participant to an open quorum or moves its standing forward (pending → joined → fulfilled; withdrawn from any standing but withdrawn; the same mark again changes nothing). Conductor only. At most 64 participants per quorum. Refusals: unknown_quorum, quorum not open, invalid participant (bad ref, a backward mark, the 65th participant).",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      quorum_id: P.id("The quorum"),
      kind: { type: "string", enum: ["client", "role"], description: "client (a principal) or role (a role name)." },
      ref: P.name("The principal's or role's name."),
      state: { type: "string", enum: STATES, description: "pending, joined, fulfilled or withdrawn." },
    },
    ["quorum_id", "kind", "ref", "state"],
  ),
  outputSchema: output(shape({ quorum_id: S.str, kind: S.str, ref: S.str, state: S.str })),
  examples: [
    {
      title: "a worker joins",
      input: { quorum_id: fx("quorumId"), kind: "client", ref: "worker-1", state: "joined" },
    },
  ],
  run: (a, ctx) => quorumMarkParticipant(ctx, a),
});
