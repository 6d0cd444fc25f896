import { fx, input, output, tool } from "../../../tooling.ts";
import type { GetEntityTasksInput } from "../inputs.gen.ts";
import { getEntityTasks } from "../service/links.ts";

export const get_entity_tasks = tool<GetEntityTasksInput>({
  name: "get_entity_tasks",
  title: "Tasks linked to an entity",
  description:
    "Lists every live task linked to one knowledge-graph entity: the reverse view of get_task_links, useful for seeing all work touching a person, vendor or topic. Tasks come newest link first, filtered to your project grants; archived and cancelled tasks and removed links are left out. An unknown or invisible entity answers 'Entity not found' (unlike get_task_links, an unknown name is an error, not an empty list); a caller with no grant at all reads an empty task list.",
  inputSchema: input(
    { entity_name: { type: "string", maxLength: 500, description: "Name of the entity (required)." } },
    ["entity_name"],
  ),
  outputSchema: output({
    type: "object",
    required: ["entity_name", "tasks"],
    additionalProperties: false,
    properties: {
      entity_name: { type: "string" },
      tasks: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "title", "status", "priority", "section", "link_type", "score", "linked_at"],
          additionalProperties: false,
          properties: {
            id: { type: "string" },
            title: { type: "string" },
            status: { type: "string" },
            priority: { type: "string" },
            section: { type: "string" },
            link_type: { type: "string", enum: ["manual", "auto"] },
            score: { type: ["number", "null"] },
            linked_at: { type: ["string", "null"] },
          },
        },
      },
    },
  }),
  examples: [
    {
      title: "the tasks linked to an entity",
      input: { entity_name: fx("entity2") },
    },
  ],
  kind: "read",
  run: (a, ctx) => getEntityTasks(ctx, a),
});
