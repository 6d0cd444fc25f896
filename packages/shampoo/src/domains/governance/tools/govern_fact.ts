import { fx, input, output, tool } from "../../../tooling.ts";
import type { GovernFactInput } from "../inputs.gen.ts";
import { FACT_ACTIONS } from "../rules/facts.ts";
import { governFact } from "../service/facts.ts";

export const govern_fact = tool<GovernFactInput>({
  name: "govern_fact",
  title: "Apply truth maintenance to a fact",
  description:
    "Applies truth maintenance to a canonical fact instead of editing it: supersede (fact_id is retired as of effective_at, target_fact_id is its successor; at most one live successor, even under concurrent calls), contradict (links both facts both ways; both stay live; contradiction counts refreshed), invalidate (ends its validity at effective_at), revalidate (a retired fact is live again: validity end and successor link cleared). Facts are never edited in place or removed; every change keeps a bi-temporal version (when it held in the world, when memory knew it), a history event and a decision artifact with the rationale. target_fact_id is required for supersede and contradict and must differ from fact_id; empty strings behave as absent; effective_at defaults to now. Unknown or invisible facts answer 'fact not found'.",
  inputSchema: input(
    {
      fact_id: { type: "string", minLength: 1, maxLength: 200 },
      action: { type: "string", enum: [...FACT_ACTIONS] },
      effective_at: { type: ["string", "null"], maxLength: 64, description: "ISO timestamp; defaults to now." },
      rationale: {
        type: ["string", "null"],
        maxLength: 10_000,
        description: "Recorded in the decision artifact and history.",
      },
      target_fact_id: {
        type: ["string", "null"],
        maxLength: 200,
        description: "Successor (supersede) or the other fact (contradict).",
      },
    },
    ["fact_id", "action"],
  ),
  outputSchema: output({
    type: "object",
    required: ["fact_id", "action", "target_fact_id", "effective_at", "changed"],
    additionalProperties: false,
    properties: {
      fact_id: { type: "string" },
      action: { type: "string", enum: [...FACT_ACTIONS] },
      target_fact_id: { type: ["string", "null"] },
      effective_at: { type: "string" },
      changed: { const: true },
    },
  }),
  examples: [
    {
      title: "invalidate a fact",
      input: { fact_id: fx("factId"), action: "invalidate", rationale: "e2e" },
    },
  ],
  kind: "write",
  run: (a, ctx) => governFact(ctx, a),
});
