import { input, output, tool } from "../../../tooling.ts";
import type { FindByTitleInput } from "../inputs.gen.ts";
import { LOOKUP_STRATEGIES, RANKING_CONTRACT_VERSION } from "../rules/lookup.ts";
import { findByTitle, LOOKUP_LIMIT } from "../service/find.ts";

const CONFIDENCES = ["high", "medium", "low"];

export const find_by_title = tool<FindByTitleInput>({
  name: "find_by_title",
  title: "Find by remembered phrase",
  description:
    "Finds tasks and notes from a remembered phrase when the exact title is unknown (memory_lookup_v2): scores per surface (surface_scores, matched_in, primary_surface over title, description, notes, project) and a confidence high, medium or low; when any hit reaches medium, low ones are hidden and counted (hidden_low_confidence_count). Finished entries rank below live work. Only content inside your project grants. A blank fragment: no matches, message Empty title fragment.",
  inputSchema: input(
    {
      title_fragment: {
        type: "string",
        maxLength: 500,
        description: "Any distinctive phrase or part of a word you remember (required).",
      },
      limit: {
        type: "integer",
        description: `Maximum matches, clamped to ${LOOKUP_LIMIT.min}..${LOOKUP_LIMIT.max} (default ${LOOKUP_LIMIT.default}); candidate pools scale from it.`,
      },
    },
    ["title_fragment"],
  ),
  outputSchema: output({
    type: "object",
    required: [
      "matches",
      "count",
      "query",
      "hidden_low_confidence_count",
      "ranking_contract_version",
      "markdown",
      "message",
    ],
    properties: {
      matches: {
        type: "array",
        items: {
          type: "object",
          required: [
            "kind",
            "id",
            "title",
            "score",
            "matched_in",
            "surface_scores",
            "primary_surface",
            "confidence",
            "ranking_contract_version",
          ],
          properties: {
            kind: { type: "string" },
            id: { type: "string" },
            title: { type: "string" },
            score: { type: "number" },
            matched_in: { type: "array", items: { type: "string" } },
            surface_scores: { type: "object", additionalProperties: { type: "number" } },
            primary_surface: { type: "string" },
            confidence: { enum: CONFIDENCES },
            ranking_contract_version: { const: RANKING_CONTRACT_VERSION },
          },
        },
      },
      count: { type: "integer", minimum: 0 },
      query: { type: "string" },
      hidden_low_confidence_count: { type: "integer", minimum: 0 },
      ranking_contract_version: { const: RANKING_CONTRACT_VERSION },
      lookup_strategy: { enum: [...LOOKUP_STRATEGIES] },
      markdown: { type: "string" },
      message: { type: ["string", "null"] },
    },
  }),
  examples: [
    {
      title: "tasks whose title holds a word",
      input: { title_fragment: "crash" },
    },
  ],
  kind: "read",
  run: (a, ctx) => findByTitle(ctx, a),
});
