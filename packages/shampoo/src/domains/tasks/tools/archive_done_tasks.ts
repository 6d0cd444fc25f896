import { input, output, tool } from "../../../tooling.ts";
import type { ArchiveDoneTasksInput } from "../inputs.gen.ts";
import { archiveDoneTasks, DEFAULT_ARCHIVE_DAYS } from "../service/write.ts";

export const archive_done_tasks = tool<ArchiveDoneTasksInput>({
  name: "archive_done_tasks",
  title: "Archive old done tasks",
  description:
    "Sweeps done tasks whose last update is older than N days into archived. A maintenance pass for keeping the live task lists quiet without losing history. Only done tasks of type task visible under your project grants move; notes, live statuses and foreign projects are never touched. Each move records its own history event; the sweep is all-or-nothing.",
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
