import { fx, input, output, tool } from "../../../tooling.ts";
import type { SuggestTaskLinksInput } from "../inputs.gen.ts";
import { SUGGEST_DEFAULT, SUGGEST_MAX } from "../rules.ts";
import { SUGGESTION } from "../schemas.ts";
import { suggestTaskLinks } from "../service/links.ts";

export const suggest_task_links = tool<SuggestTaskLinksInput>({
  name: "suggest_task_links",
  title: "Suggest entities for a task",
  description: `Suggests entities that may relate to a task using the versioned explainable-pairwise-v1 scorer: exact name, alias, full-text overlap, same project, provenance (same creator), graph meta-path (neighbour of an entity the task already links to), temporal closeness, plus vector and community signals (no model yet: raw null, contribution 0). Every suggestion carries each signal's raw value, weight and contribution, reasons, matched aliases and shared keywords. Entities already linked to the task and pairs whose latest decision is a rejection are left out. Suggestions only: nothing is linked or recorded; accept one with link_task_entity, undo an auto link with unlink_task_entity. limit defaults to ${SUGGEST_DEFAULT} (1..${SUGGEST_MAX}). An invisible or unknown task answers 'task not found'.`,
  inputSchema: input(
    {
      task_id: { type: "string", maxLength: 200, description: "UUID of the task (required)." },
      include_vector: {
        type: "boolean",
        description: "Accepted and echoed; there is no vector model yet, so vector_rank stays null.",
      },
      limit: {
        type: "integer",
        description: `Most suggestions returned (default ${SUGGEST_DEFAULT}, clamped 1..${SUGGEST_MAX}).`,
      },
    },
    ["task_id"],
  ),
  outputSchema: output({
    type: "object",
    required: [
      "task_id",
      "model_version",
      "include_vector",
      "community_run",
      "suggestions",
      "candidate_count",
      "accept_tool",
      "undo_auto_tool",
    ],
    additionalProperties: false,
    properties: {
      task_id: { type: "string" },
      model_version: { type: "string" },
      include_vector: { type: "boolean" },
      community_run: { type: "null" },
      suggestions: { type: "array", items: SUGGESTION },
      candidate_count: { type: "integer" },
      accept_tool: { type: "string" },
      undo_auto_tool: { type: "string" },
    },
  }),
  examples: [
    {
      title: "suggest links for a task",
      input: { task_id: fx("taskId") },
    },
  ],
  kind: "read",
  run: (a, ctx) => suggestTaskLinks(ctx, a),
});
