import { fx, input, output, tool } from "../../../tooling.ts";
import type { QueryTasksInput } from "../inputs.gen.ts";
import { P, TASK } from "../schemas.ts";
import { QUERY_LIMIT, queryTasks } from "../service/query.ts";
import { SORT_FIELDS, SORT_ORDERS } from "../store/query.ts";

const TASK_ENTRY = {
  ...TASK,
  properties: { ...(TASK.properties as Record<string, unknown>), rank: { type: "number" } },
};

export const query_tasks = tool<QueryTasksInput>({
  name: "query_tasks",
  title: "Query tasks and notes",
  description:
    "Lists live tasks and notes: combined filters, full-text search (ranked title > description > notes/project, with a per-item rank), sorting, paging; each non-empty page ships a markdown table. Finished work (done, archived, cancelled) only when status or include_completed asks, never with overdue_only. Only content inside your project grants: an out-of-scope filter reads as No tasks match.",
  inputSchema: input({
    assignee: {
      type: "string",
      maxLength: 200,
      description: "Only content assigned to exactly this value, as assign_task stored it (case and spaces count).",
    },
    include_completed: { ...P.bool, description: "Also list done, archived and cancelled content (default false)." },
    limit: {
      ...P.limit,
      description: `Page size, clamped to ${QUERY_LIMIT.min}..${QUERY_LIMIT.max} (default ${QUERY_LIMIT.default}).`,
    },
    offset: { type: "integer", description: "Rows to skip (default 0; negative counts as 0)." },
    overdue_only: {
      ...P.bool,
      description:
        "Only past-due content (due_date before today, UTC); always excludes finished content, even with include_completed.",
    },
    parent_id: { type: "string", maxLength: 64, description: "Only subtasks of this task (UUID)." },
    priority: { ...P.priority, description: "low | medium | high | critical." },
    project: { ...P.project, description: 'Only this project; "" means untagged content.' },
    search: {
      type: "string",
      maxLength: 500,
      description:
        "Full-text search over title, description, notes and project: every word must match, the last one as a prefix. Results are ordered by relevance first.",
    },
    section: { ...P.section, description: "inbox | today | next | someday | waiting." },
    sort_by: {
      type: "string",
      maxLength: 40,
      description: `One of ${SORT_FIELDS.join(", ")} (anything else is rejected with invalid_sort). Default direction per field: created_at/updated_at newest first, due_date soonest first, priority critical first, status/section/type in workflow order, title/project A→Z; empty due dates and projects last. Default order: priority, then due date, then oldest.`,
    },
    sort_order: {
      type: "string",
      maxLength: 10,
      description: `${SORT_ORDERS.join(" | ")}; overrides the field's default direction.`,
    },
    status: {
      ...P.status,
      description:
        "not_started | in_progress | done | archived | cancelled. An explicit status opts back in to finished content.",
    },
    summary_only: { ...P.bool, description: "Return summaries without description, notes, recurrence and reminder." },
    type: { ...P.type, description: "task | note." },
  }),
  outputSchema: output({
    type: "object",
    required: ["tasks", "count", "total", "offset", "limit"],
    properties: {
      tasks: { type: "array", items: TASK_ENTRY },
      count: { type: "integer", minimum: 0 },
      total: { type: "integer", minimum: 0 },
      offset: { type: "integer", minimum: 0 },
      limit: { type: "integer", minimum: QUERY_LIMIT.min, maximum: QUERY_LIMIT.max },
      markdown: { type: "string" },
      has_more: { const: true },
      next_offset: { type: "integer" },
      message: { const: "No tasks match" },
    },
  }),
  examples: [
    {
      title: "a project's tasks",
      input: { project: fx("project") },
    },
  ],
  kind: "read",
  run: (a, ctx) => queryTasks(ctx, a),
});
