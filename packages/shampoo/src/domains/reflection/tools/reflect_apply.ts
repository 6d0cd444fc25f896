import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectApplyInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { applyRun } from "../service/candidates.ts";

export const reflect_apply = tool<ReflectApplyInput>({
  name: "reflect_apply",
  title: "Apply accepted reflection candidates",
  description:
    "Applies accepted candidates from a completed run as conservative task mutations with snapshots. Call it after deciding; reruns are safe because applied candidates skip. Each target is re-read under your grants: already applied, out of scope, vanished, or written since the run saw it (target_changed) means skipped, never overwritten. Duplicates, stale, empty and abandoned items are archived; an orphan's dangling parent link is cleared; entities are skipped (no archive primitive yet). All-or-nothing per call.",
  inputSchema: input(
    {
      run_id: { ...P.runId, description: "Id of a run in completed status. Other statuses error." },
      applied_by: P.actor("Actor recorded on each snapshot row."),
      candidate_ids_csv: {
        type: "string",
        maxLength: 200_000,
        description: "Optional comma-separated subset of candidate ids to apply. Empty string = apply all accepted.",
      },
    },
    ["run_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["run_id", "considered", "applied", "skipped", "failed"],
    properties: {
      run_id: { type: "string" },
      considered: { type: "integer" },
      applied: { type: "integer" },
      skipped: {
        type: "array",
        items: {
          type: "object",
          required: ["candidate_id", "reason"],
          properties: { candidate_id: { type: "string" }, reason: { type: "string" } },
        },
      },
      failed: {
        type: "array",
        items: {
          type: "object",
          required: ["candidate_id", "error"],
          properties: { candidate_id: { type: "string" }, error: { type: "string" } },
        },
      },
    },
  }),
  examples: [
    {
      title: "apply a completed run",
      input: { run_id: fx("runApply"), applied_by: "e2e" },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => applyRun(ctx, a),
});
