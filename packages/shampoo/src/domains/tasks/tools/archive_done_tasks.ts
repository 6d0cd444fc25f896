import { input, output, tool } from "../../../tooling.ts";
import type { ArchiveDoneTasksInput } from "../inputs.gen.ts";
import { archiveDoneTasks, DEFAULT_ARCHIVE_DAYS } from "../service/write.ts";

export const archive_done_tasks = tool<ArchiveDoneTasksInput>({
  name: "archive_done_tasks",
  title: "Archive old done tasks",
  description:
    "Archives done tasks whose last update is older than N days (maintenance: quiet live lists, history kept). Only done tasks (not notes) inside your project grants move; one history event each; all-or-nothing.",
  inputSchema: input({
    older_than_days: {
      type: "integer",
      minimum: 0,
      default: DEFAULT_ARCHIVE_DAYS,
      description: "Non-negative age threshold in days (default 7). Only done tasks of type task older than this move.",
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["archived", "threshold_days"],
    properties: { archived: { type: "integer" }, threshold_days: { type: "integer" } },
  }),
  examples: [
    {
      title: "archive every done task",
      input: { older_than_days: 0 },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => archiveDoneTasks(ctx, a),
});
