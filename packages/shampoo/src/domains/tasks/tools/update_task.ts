import { fx, input, output, tool } from "../../../tooling.ts";
import type { UpdateTaskInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { updateTask } from "../service/write.ts";

export const update_task = tool<UpdateTaskInput>({
  name: "update_task",
  title: "Update a task or note",
  description:
    'Updates one task or note in place: only the supplied non-empty fields change; "CLEAR" nulls due_date, notes, parent_id, project, recurring or reminder_at. A move to another project (or untagged, CLEAR) needs its grant. Archived and cancelled keep history: nothing is deleted.',
  inputSchema: input(
    {
      task_id: { type: "string", description: "UUID of the task to update (required)." },
      description: { ...P.text, description: "New main task/note body." },
      due_date: { type: "string", description: 'YYYY-MM-DD or "CLEAR" to remove.' },
      notes: { ...P.text, description: 'New auxiliary/internal notes or "CLEAR" to remove.' },
      parent_id: { type: "string", description: 'Parent UUID or "CLEAR" to remove.' },
      priority: {
        type: "string",
        enum: ["", "low", "medium", "high", "critical"],
        description: "low | medium | high | critical.",
      },
      project: { ...P.project, description: 'Project tag or "CLEAR" to remove.' },
      recurring: { type: "string", description: 'JSON config or "CLEAR" to remove.' },
      reminder_at: { type: "string", description: 'ISO datetime or "CLEAR" to remove.' },
      section: {
        type: "string",
        enum: ["", "inbox", "today", "next", "someday", "waiting"],
        description: "inbox | today | next | someday | waiting.",
      },
      status: {
        type: "string",
        enum: ["", "not_started", "in_progress", "done", "archived", "cancelled"],
        description: "not_started | in_progress | done | archived | cancelled.",
      },
      title: { type: "string", maxLength: 500, description: "New title. An empty string leaves it unchanged." },
      type: { type: "string", enum: ["", "task", "note"], description: "task | note." },
    },
    ["task_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["updated", "fields"],
    properties: { updated: { type: "string" }, fields: { type: "array", items: { type: "string" } } },
  }),
  examples: [
    {
      title: "start a task with a note",
      input: { task_id: fx("taskId"), status: "in_progress", notes: "e2e" },
    },
  ],
  kind: "write",
  run: (a, ctx) => updateTask(ctx, a),
});
