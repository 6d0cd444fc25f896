import { fx, input, output, tool } from "../../../tooling.ts";
import type { CreateTaskOrNoteInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { createTaskOrNote } from "../service/write.ts";

export const create_task_or_note = tool<CreateTaskOrNoteInput>({
  name: "create_task_or_note",
  title: "Create a task or note",
  description:
    "Creates one task (actionable work tracked to done; starts not_started) or note (durable long-form content): the everyday write. Untagged (no project) content needs the untagged grant. An assignee is stored as assign_task stores it (shared_by: you).",
  inputSchema: input(
    {
      title: { ...P.title, description: "Task title (required)." },
      assignee: {
        type: "string",
        maxLength: 200,
        description: "Who should do it: stored verbatim as assign_task would (shared_by: you); grants nothing.",
      },
      description: { ...P.text, description: "Primary task/note body and main long-form content." },
      due_date: { type: "string", description: "YYYY-MM-DD format or empty to skip." },
      notes: { ...P.text, description: "Secondary/internal notes or machine-readable metadata." },
      parent_id: { type: "string", description: "UUID of parent task (for subtasks)." },
      priority: { ...P.priority, description: "low | medium | high | critical." },
      project: { ...P.project, description: "Project tag for grouping." },
      recurring: {
        type: "string",
        description: 'JSON config for recurrence (e.g. \'{"every":"week","day":"monday"}\').',
      },
      reminder_at: { type: "string", description: "ISO datetime for reminder (e.g. '2026-03-15T14:00:00')." },
      section: { ...P.section, description: "inbox | today | next | someday | waiting." },
      type: { ...P.type, description: "task | note." },
    },
    ["title"],
  ),
  outputSchema: output({
    type: "object",
    required: ["task_id", "title", "type", "status"],
    properties: {
      task_id: { type: "string" },
      title: { type: "string" },
      type: { type: "string" },
      status: { const: "not_started" },
    },
  }),
  examples: [
    {
      title: "a dated, prioritised task",
      input: {
        title: "E2E: ship the crash test",
        project: fx("project"),
        section: "next",
        priority: "high",
        due_date: "2026-12-01",
        description: "Kill the writer fifty times and check the history.",
      },
    },
  ],
  kind: "write",
  run: (a, ctx) => createTaskOrNote(ctx, a),
});
