import { fx, input, output, tool } from "../../../tooling.ts";
import type { ExplainImpactInput } from "../inputs.gen.ts";
import { IMPACT_KINDS } from "../rules/impact.ts";
import { explainImpact } from "../service/impact.ts";

export const explain_impact = tool<ExplainImpactInput>({
  name: "explain_impact",
  title: "Explain what a change would touch",
  description:
    "Explains the impact of a chunk, claim or fact: a bounded breadth-first walk over the recorded impact links (chunk → extracted claims → promoted facts → successors, contradicting facts, the packs that included them → the sessions those packs were for). depth quick walks 1 hop, standard 3, deep 5; unknown values behave as standard. Results are grouped by kind (session, snapshot = context pack, mapping, validation, export = facts of those scopes, fact = other facts), each with its edge, impact and propagated scores, depth and rationale; only what you can see is walked. source_kind defaults to fact. Unknown or invisible sources answer 'source not found'. Read-shaped but persisted through the run log, hence a write.",
  inputSchema: input(
    {
      depth: { type: "string", maxLength: 40, description: "quick (1 hop), standard (3, default), deep (5)." },
      source_kind: {
        type: "string",
        enum: ["chunk", "claim", "fact"],
        description: "Kind of the source (default fact).",
      },
      source_ref: {
        type: "string",
        minLength: 1,
        maxLength: 200,
        description: "Id of the source chunk, claim or fact (required).",
      },
    },
    ["source_ref"],
  ),
  outputSchema: output({
    type: "object",
    required: ["source", "depth", "max_depth", "total_impacts", "impacts_by_kind", "summary"],
    properties: {
      source: { type: "object" },
      depth: { type: "string" },
      max_depth: { type: "integer" },
      total_impacts: { type: "integer" },
      impacts_by_kind: { type: "object", required: [...IMPACT_KINDS] },
      summary: { type: "string" },
    },
  }),
  examples: [
    {
      title: "the deep impact of a fact",
      input: { source_kind: "fact", source_ref: fx("factId"), depth: "deep" },
    },
  ],
  kind: "write",
  run: (a, ctx) => explainImpact(ctx, a),
});
