import { input, output, tool } from "../../../tooling.ts";
import type { EnrichContextInput } from "../inputs.gen.ts";
import { enrichContext } from "../service/enrich.ts";

export const enrich_context = tool<EnrichContextInput>({
  name: "enrich_context",
  title: "Enrich context in one step",
  description:
    "Compatibility wrapper that advances the whole pipeline: quick materializes chunks for your open tasks and notes that have none, assesses every assessable chunk and builds an executor pack plus warm executor packs for the three most recently changed open tasks (all persisted with run-history entries); standard (the default) also extracts claims from the enrichable chunks and auto-promotes memory-scope claims through the internal auto_layer1 gate (confidence ≥ 0.85, no human needed); deep also walks impact for facts changed in the last 7 days. All-or-nothing: any failure keeps nothing.",
  inputSchema: input({
    depth: { type: "string", enum: ["quick", "standard", "deep"], description: "quick, standard (default) or deep." },
  }),
  outputSchema: output({
    type: "object",
    required: ["depth", "steps", "pack_body"],
    properties: {
      depth: { type: "string" },
      steps: { type: "object", additionalProperties: { type: "integer" } },
      pack_body: { type: "string" },
      claims_extracted: { type: "integer" },
      claims_promoted: { type: "integer" },
      promoted_facts: { type: "array", items: { type: "string" } },
      impacts_analyzed: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "a quick enrichment",
      input: { depth: "quick" },
    },
  ],
  kind: "write",
  run: (a, ctx) => enrichContext(ctx, a),
});
