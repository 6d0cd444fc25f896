import { fx, input, output, tool } from "../../../tooling.ts";
import type { GetTaskLinksInput } from "../inputs.gen.ts";
import { getTaskLinks } from "../service/links.ts";

export const get_task_links = tool<GetTaskLinksInput>({
  name: "get_task_links",
  title: "Entities linked to a task",
  description:
    "Lists the knowledge-graph entities one task is linked to, oldest link first, with link_type (manual or auto), score and created_at. The task and every listed entity must be visible under your project grants: an invisible task reads as an empty link list, never a denial; a malformed id answers 'Task not found'. Removed links and voided entities are left out.",
  inputSchema: input({ task_id: { type: "string", maxLength: 200, description: "UUID of the task (required)." } }, [
    "task_id",
  ]),
  outputSchema: output({
    type: "object",
    required: ["task_id", "links"],
    additionalProperties: false,
    properties: {
      task_id: { type: "string" },
      links: {
        type: "array",
        items: {
          type: "object",
          required: ["entity_id", "entity_name", "entity_type", "link_type", "score", "created_at"],
          additionalProperties: false,
          properties: {
            entity_id: { type: "string" },
            entity_name: { type: "string" },
            entity_type: { type: "string" },
            link_type: { type: "string", enum: ["manual", "auto"] },
            score: { type: ["number", "null"] },
            created_at: { type: ["string", "null"] },
          },
        },
      },
    },
  }),
  examples: [
    {
      title: "the entities linked to a task",
      input: { task_id: fx("taskId") },
    },
  ],
  kind: "read",
  run: (a, ctx) => getTaskLinks(ctx, a),
});
