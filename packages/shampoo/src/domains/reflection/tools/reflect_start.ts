import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectStartInput } from "../inputs.gen.ts";
import { CANDIDATE_CAP, CONTRACT_VERSION, INSTRUCTIONS_MAX } from "../rules/vocabulary.ts";
import { P, SUMMARY } from "../schemas.ts";
import { startReflection } from "../service/runs.ts";

export const reflect_start = tool<ReflectStartInput>({
  name: "reflect_start",
  title: "Start a reflection run",
  description: `Runs the reflection audit and persists one reviewable candidate per finding: creates a pending run, records its filter input, marks it running, persists the candidates (at most ${CANDIDATE_CAP}; beyond that the run fails as candidate_limit_exceeded and keeps none), then marks it completed. All-or-nothing per run. Then review (reflect_review), decide (reflect_decide) and apply (reflect_apply). An explicit project must be granted; unfiltered runs are star-only.`,
  inputSchema: input({
    abandoned_inbox_days: P.inboxDays,
    created_by: P.actor("Actor recorded on the run."),
    instructions: {
      type: "string",
      description: `Free-form guidance, at most ${INSTRUCTIONS_MAX} characters; longer fails as instructions_too_long. Recorded only.`,
    },
    limit_per_category: P.limitPerCategory,
    model: { type: "string", maxLength: 200, description: "Optional model id for future runs; recorded only." },
    project: {
      ...P.project,
      description: "Optional project filter for the audit pass (empty: every project, star only).",
    },
    stale_days: P.staleDays,
    version: {
      type: "string",
      default: CONTRACT_VERSION,
      description: `Run schema version; defaults ${CONTRACT_VERSION} (the only one known).`,
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["run_id", "status", "candidates_persisted", "summary"],
    properties: {
      run_id: { type: "string" },
      status: { type: "string", enum: ["completed", "failed", "canceled"] },
      candidates_persisted: { type: "integer" },
      summary: { anyOf: [SUMMARY, { type: "null" }] },
      error_type: { type: "string" },
    },
  }),
  examples: [
    {
      title: "start a run on a project",
      input: { project: fx("project"), created_by: "e2e", instructions: "every tool over every transport" },
    },
  ],
  kind: "write",
  run: (a, ctx) => startReflection(ctx, a),
});
