import { fx, input, output, tool } from "../../../tooling.ts";
import type { ExtractCandidateClaimsInput } from "../inputs.gen.ts";
import { PREDICATES, SCOPES } from "../rules/claims.ts";
import { extractCandidateClaims } from "../service/claims.ts";

export const extract_candidate_claims = tool<ExtractCandidateClaimsInput>({
  name: "extract_candidate_claims",
  title: "Extract candidate claims from a chunk",
  description: `Extracts typed subject–predicate–object–scope claims from an enrichable or uncertain chunk, by fixed patterns (no language model): per sentence, the first of the predicates ${PREDICATES.join(", ")}. Stages governance candidates; nothing becomes canonical until promote_candidate. Each claim is persisted with this chunk revision as its evidence and provenance (an identical candidate gains the evidence instead of a duplicate), with a history event each, then a run-history entry. scope_hint overrides scope detection (the first sensitive area the text names, else memory). Other chunk states answer an invalid-state error naming the state; unknown chunks 'chunk not found'.`,
  inputSchema: input(
    {
      chunk_ref: { type: "string", minLength: 1, maxLength: 200, description: "Chunk id, or a task/note id." },
      scope_hint: { type: "string", enum: [...SCOPES], description: "Scope to use instead of detection." },
    },
    ["chunk_ref"],
  ),
  outputSchema: output({
    type: "object",
    required: ["chunk_id", "claims_extracted", "scope", "claims"],
    properties: {
      chunk_id: { type: "string" },
      claims_extracted: { type: "integer" },
      scope: { type: "string", enum: [...SCOPES] },
      claims: {
        type: "array",
        items: {
          type: "object",
          required: ["claim_id", "subject", "predicate", "object", "scope", "confidence", "requires_human"],
          properties: {
            predicate: { type: "string", enum: [...PREDICATES] },
            confidence: { type: "number" },
            requires_human: { type: "boolean" },
          },
        },
      },
    },
  }),
  examples: [
    {
      title: "the claims of an assessed chunk",
      input: { chunk_ref: fx("chunkId") },
    },
  ],
  kind: "write",
  run: (a, ctx) => extractCandidateClaims(ctx, a),
});
