import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectDiscardInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { discardRun } from "../service/runs.ts";

export const reflect_discard = tool<ReflectDiscardInput>({
  name: "reflect_discard",
  title: "Discard a finished reflection run",
  description:
    "Discards a terminal run as a lifecycle transition: it resolves as absent while its candidates are preserved. Call it to retire runs without losing review evidence: inputs, candidates and snapshots stay, reflect_review and reflect_decide keep working, run-centric tools answer not found. Nothing is physically removed. Pending or running runs fail as cannot_discard_active_run: cancel first.",
  inputSchema: input(
    {
      run_id: P.runId,
      reason: {
        type: "string",
        maxLength: 1000,
        description: "Why the run is discarded (recorded with the actor and time).",
      },
    },
    ["run_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["run_id", "rows_deleted"],
    properties: { run_id: { type: "string" }, rows_deleted: { type: "integer", const: 1 } },
  }),
  examples: [
    {
      title: "discard a completed run",
      input: { run_id: fx("runDiscard"), reason: "e2e" },
    },
  ],
  kind: "write",
  run: (a, ctx) => discardRun(ctx, a),
});
