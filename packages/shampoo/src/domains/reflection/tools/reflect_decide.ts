import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectDecideInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { decideCandidate } from "../service/candidates.ts";

export const reflect_decide = tool<ReflectDecideInput>({
  name: "reflect_decide",
  title: "Decide a reflection candidate",
  description:
    "Records accept, reject or defer on one candidate, with the decider and a timestamp. Decisions can be overwritten by deciding again; only accept is picked up by reflect_apply. Works on candidates of discarded runs too (their review evidence is kept). Unknown and out-of-scope candidates both answer candidate_not_found.",
  inputSchema: input(
    {
      candidate_id: { type: "string", minLength: 1, maxLength: 100, description: "A candidate id (reflect_review)." },
      decision: { type: "string", description: "One of accept, reject, defer (anything else: invalid_argument)." },
      decided_by: P.actor("Actor recorded on the candidate."),
    },
    ["candidate_id", "decision"],
  ),
  outputSchema: output({
    type: "object",
    required: ["candidate_id", "decision", "decided_by"],
    properties: { candidate_id: { type: "string" }, decision: { type: "string" }, decided_by: { type: "string" } },
  }),
  examples: [
    {
      title: "defer a candidate",
      input: { candidate_id: fx("candidateId"), decision: "defer", decided_by: "e2e" },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => decideCandidate(ctx, a),
});
