import { input, output, tool } from "../../../tooling.ts";
import type { SearchNodesInput } from "../inputs.gen.ts";
import { BLANK_LIST_LIMIT, SEARCH_DEFAULT_BUDGET, WINDOW_CHARS } from "../rules/search.ts";
import { COUNT, STRINGS } from "../schemas.ts";
import { searchNodesText } from "../service/search.ts";

export const search_nodes = tool<SearchNodesInput>({
  name: "search_nodes",
  title: "Search nodes",
  description: `Searches the graph by free text (names, aliases, types, observations; stopwords dropped; words of 3+ characters also match as prefixes) and packs the best evidence per entity under a budget: ranked entities with observation windows (≤ ${WINDOW_CHARS} characters around the hit), live one-hop neighbours of the best matches, and an _accounting block (coverage, truncation, calibration). Entities are added in rank order while the result fits the budget (default ${SEARCH_DEFAULT_BUDGET} characters); then truncated is true. A blank query lists the first ${BLANK_LIST_LIMIT} entities by name. project is an affinity hint: among equally scored matches, its entities come first; it never filters (see search_by_project).`,
  inputSchema: input(
    {
      query: { type: "string", maxLength: 2000, description: "Free text; blank lists the first entities by name." },
      budget: {
        type: "integer",
        minimum: 0,
        maximum: 1_000_000,
        description: `Wire-character budget for the whole result (default ${SEARCH_DEFAULT_BUDGET}).`,
      },
      project: {
        type: "string",
        maxLength: 200,
        description: "Affinity hint: among equal matches, this project's rank first. Never filters.",
      },
    },
    ["query"],
  ),
  outputSchema: output({
    type: "object",
    required: ["entities", "query", "_accounting"],
    properties: {
      entities: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "entityType", "observations", "_evidence_status"],
          properties: {
            name: { type: "string" },
            entityType: { type: "string" },
            observations: STRINGS,
            project: { type: "string" },
            _evidence_status: { enum: ["found", "name_match", "not_located", "neighbour", "listed"] },
          },
        },
      },
      query: { type: "string" },
      _accounting: {
        type: "object",
        required: [
          "entities_considered",
          "entities_returned",
          "observations_returned",
          "truncated",
          "budget_wire_chars",
          "wire_chars",
          "status",
          "degraded",
          "refills",
          "query_status",
          "meaningful_terms",
          "stopword_list",
        ],
        properties: {
          entities_considered: COUNT,
          entities_returned: COUNT,
          observations_returned: COUNT,
          truncated: { type: "boolean" },
          budget_wire_chars: COUNT,
          wire_chars: COUNT,
          status: { enum: ["ok", "truncated", "degraded", "no_results"] },
          degraded: STRINGS,
          jump: { type: "number" },
          refills: COUNT,
          query_status: { enum: ["blank", "ok", "stopwords_only", "no_terms"] },
          meaningful_terms: STRINGS,
          stopword_list: STRINGS,
        },
      },
    },
  }),
  examples: [
    {
      title: "search every project",
      input: { query: "alpha" },
    },
  ],
  kind: "read",
  // The text block is the result's JSON as the pack spliced it (service/search.ts searchNodesText), so a
  // ~16,000-character answer is not serialized twice.
  runText: (a, ctx) => searchNodesText(ctx, a),
});
