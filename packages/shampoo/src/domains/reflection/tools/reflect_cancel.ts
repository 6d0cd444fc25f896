import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectCancelInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { cancelRun } from "../service/runs.ts";

export const reflect_cancel = tool<ReflectCancelInput>({
  name: "reflect_cancel",
  title: "Cancel a pending or running reflection run",
  description:
    "Moves a pending or running run to canceled with an end stamp, e.g. one left running by a crashed server; a pass still in flight then persists nothing. Terminal runs are rejected, never rewritten (cannot_cancel_terminal_run); unknown, discarded or foreign runs fail as run_not_found.",
  inputSchema: input({ run_id: P.runId }, ["run_id"]),
  outputSchema: output({
    type: "object",
    required: ["run_id", "status", "previous_status", "finished_at"],
    properties: {
      run_id: { type: "string" },
      status: { type: "string", const: "canceled" },
      previous_status: { type: "string" },
      finished_at: { type: "string" },
    },
  }),
  examples: [
    {
      title: "cancel a run (a terminal one is refused)",
      input: { run_id: fx("runApply") },
    },
  ],
  kind: "write",
  run: (a, ctx) => cancelRun(ctx, a),
});
