import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectArchiveInput } from "../inputs.gen.ts";
import { P } from "../schemas.ts";
import { archiveRun } from "../service/runs.ts";

export const reflect_archive = tool<ReflectArchiveInput>({
  name: "reflect_archive",
  title: "Archive a finished reflection run",
  description:
    "Stamps archived_at on a terminal run (completed, failed or canceled) so reflect_history stops listing it unless include_archived is true; nothing else changes and its candidates stay reviewable. Idempotent: re-archiving reports newly_archived false with the same stamp. Pending or running runs fail as cannot_archive_active_run; unknown, discarded or foreign runs as run_not_found.",
  inputSchema: input({ run_id: P.runId }, ["run_id"]),
  outputSchema: output({
    type: "object",
    required: ["run_id", "archived_at", "newly_archived"],
    properties: { run_id: { type: "string" }, archived_at: { type: "string" }, newly_archived: { type: "boolean" } },
  }),
  examples: [
    {
      title: "archive a completed run",
      input: { run_id: fx("runArchive") },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => archiveRun(ctx, a),
});
