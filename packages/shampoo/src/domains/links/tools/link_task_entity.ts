import { fx, input, output, tool } from "../../../tooling.ts";
import type { LinkTaskEntityInput } from "../inputs.gen.ts";
import { LABEL_PROGRESS } from "../schemas.ts";
import { linkTaskEntity } from "../service/links.ts";

export const link_task_entity = tool<LinkTaskEntityInput>({
  name: "link_task_entity",
  title: "Link a task to an entity",
  description:
    "Creates a manual link between a task and a knowledge-graph entity, recording an accepted decision scored by explainable-pairwise-v1 (score, rank_at_decision, model_version, label_progress) in the same atomic unit. Manual links always win: an existing auto-discovered link for the pair is upgraded rather than duplicated, a removed link is revived (its removal marker cleared), and re-linking a manual link refreshes it. Both sides must be visible under your grants: an invisible task answers 'Task not found', an unknown or invisible entity 'Entity not found'; neither leaks the other side.",
  inputSchema: input(
    {
      task_id: { type: "string", maxLength: 200, description: "UUID of the task (required)." },
      entity_name: { type: "string", maxLength: 500, description: "Name of the entity (required)." },
    },
    ["task_id", "entity_name"],
  ),
  outputSchema: output({
    type: "object",
    required: [
      "decision_id",
      "task_id",
      "entity_id",
      "entity_name",
      "decision",
      "score",
      "rank_at_decision",
      "model_version",
      "label_progress",
      "link_type",
      "created_at",
    ],
    additionalProperties: false,
    properties: {
      decision_id: { type: "string" },
      task_id: { type: "string" },
      entity_id: { type: "string" },
      entity_name: { type: "string" },
      decision: { type: "string", enum: ["accepted"] },
      score: { type: ["number", "null"] },
      rank_at_decision: { type: ["integer", "null"] },
      model_version: { type: "string" },
      label_progress: LABEL_PROGRESS,
      link_type: { type: "string", enum: ["manual"] },
      created_at: { type: "string" },
    },
  }),
  examples: [
    {
      title: "link a task to an entity",
      input: { task_id: fx("taskId"), entity_name: fx("entity") },
    },
  ],
  kind: "write",
  run: (a, ctx) => linkTaskEntity(ctx, a),
});
