import { fx, input, output, tool } from "../../../tooling.ts";
import type { AssignTaskInput } from "../inputs.gen.ts";
import { assignTask } from "../service/write.ts";

export const assign_task = tool<AssignTaskInput>({
  name: "assign_task",
  title: "Assign a task or note",
  description:
    "Sets who should do a task or note. Assignment is a coordination hint only: the assignee value is stored verbatim and grants nothing, while the calling principal is recorded alongside as shared_by. Empty or omitted assignee unassigns, clearing both.",
  inputSchema: input(
    {
      task_id: { type: "string", description: "UUID of the task to assign (required)." },
      assignee: {
        type: "string",
        maxLength: 200,
        description: "Who should do it (free-form). Empty or omitted unassigns.",
      },
    },
    ["task_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["task_id", "assignee", "shared_by"],
    properties: {
      task_id: { type: "string" },
      assignee: { type: ["string", "null"] },
      shared_by: { type: ["string", "null"] },
    },
  }),
  examples: [
    {
      title: "assign the fixture task",
      input: { task_id: fx("taskId"), assignee: "bob" },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => assignTask(ctx, a),
});
