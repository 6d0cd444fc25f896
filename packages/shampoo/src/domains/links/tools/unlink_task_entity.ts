import { fx, input, output, tool } from "../../../tooling.ts";
import type { UnlinkTaskEntityInput } from "../inputs.gen.ts";
import { unlinkTaskEntity } from "../service/links.ts";

export const unlink_task_entity = tool<UnlinkTaskEntityInput>({
  name: "unlink_task_entity",
  title: "Unlink a task from an entity",
  description:
    "Removes a task-entity link while keeping the removal as durable evidence: the link is marked removed with removal stamps and a removal marker carrying the prior link detail (link_task_entity later revives it). Removing a silent high-confidence link (auto-discovered, score >= 0.5, never confirmed by a human) also records an explicit rejection, so the pair stays suppressed and becomes an evaluation label: removed true with decision_recorded rejected and the decision_id. A missing link or an invisible task returns removed false, not an error; an unknown or invisible entity answers 'Entity not found'. Nothing is physically removed.",
  inputSchema: input(
    {
      task_id: { type: "string", maxLength: 200, description: "UUID of the task (required)." },
      entity_name: { type: "string", maxLength: 500, description: "Name of the entity (required)." },
    },
    ["task_id", "entity_name"],
  ),
  outputSchema: output({
    type: "object",
    required: ["removed"],
    additionalProperties: false,
    properties: {
      removed: { type: "boolean" },
      decision_recorded: { type: "string", enum: ["rejected"] },
      decision_id: { type: "string" },
    },
  }),
  examples: [
    {
      title: "unlink a task from an entity",
      input: { task_id: fx("taskId"), entity_name: fx("entity2") },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => unlinkTaskEntity(ctx, a),
});
