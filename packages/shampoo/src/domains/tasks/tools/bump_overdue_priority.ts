import { input, output, tool } from "../../../tooling.ts";
import type { BumpOverduePriorityInput } from "../inputs.gen.ts";
import { PRIORITIES } from "../model.ts";
import { bumpOverduePriority, DEFAULT_BUMP_TARGET } from "../service/write.ts";

export const bump_overdue_priority = tool<BumpOverduePriorityInput>({
  name: "bump_overdue_priority",
  title: "Raise the priority of overdue tasks",
  description:
    "Raises every past-due live task below the target priority up to that priority. A maintenance pass for making overdue work surface again in priority order. Past-due means a due_date before today (UTC); only tasks (not notes) that are not done, archived or cancelled and are visible under your project grants move. Targeting low is a no-op reporting bumped 0 with a message. Each raise records its own history event; the sweep is all-or-nothing.",
  inputSchema: input({
    target_priority: {
      // Deliberately no enum here: an unknown name answers "Invalid priority" from the tool.
      type: "string",
      default: DEFAULT_BUMP_TARGET,
      description: `Must be ${PRIORITIES.join(", ")} (default high). Only tasks strictly below it move.`,
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["bumped", "target_priority"],
    properties: {
      bumped: { type: "integer" },
      target_priority: { enum: [...PRIORITIES] },
      message: { type: "string" },
    },
  }),
  examples: [
    {
      title: "bump every overdue task",
      input: {},
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => bumpOverduePriority(ctx, a),
});
