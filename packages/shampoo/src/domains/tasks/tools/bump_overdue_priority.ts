import { input, output, tool } from "../../../tooling.ts";
import type { BumpOverduePriorityInput } from "../inputs.gen.ts";
import { PRIORITIES } from "../model.ts";
import { bumpOverduePriority, DEFAULT_BUMP_TARGET } from "../service/write.ts";

export const bump_overdue_priority = tool<BumpOverduePriorityInput>({
  name: "bump_overdue_priority",
  title: "Raise the priority of overdue tasks",
  description:
    "Raises past-due live tasks below the target priority up to it, so overdue work surfaces again. Past-due: due_date before today (UTC); tasks only (not notes), not done, archived or cancelled, inside your project grants. Targeting low is a no-op (bumped 0, with a message). One history event each; all-or-nothing.",
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
