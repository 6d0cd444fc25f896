import { input, output, tool } from "../../../tooling.ts";
import type { AuditMemoryInput } from "../inputs.gen.ts";
import { AUDIT_VERSION, auditMemory } from "../service/audit.ts";

export const audit_memory = tool<AuditMemoryInput>({
  name: "audit_memory",
  title: "Audit and repair memory",
  description: `Runs the persistent self-repair audit (${AUDIT_VERSION}) over the facts, packs, provenance and chunks you can see: backfills missing provenance, refreshes contradiction counts, materializes missing pack summaries, reconciles chunks with the tasks they are materialized from, and flags chunks changed and not assessed for longer than stale_sync_minutes (default 120). Findings it does not repair are recorded as open issues (read them with list_memory_issues); issues no longer found are resolved. repair false (default true) still records issues but applies no reconciliation. All-or-nothing; a run-history entry whenever anything was found, resolved or repaired (emit_event). Findings are data, never errors.`,
  inputSchema: input({
    repair: { type: "boolean", description: "Apply reconciliations (default true)." },
    stale_sync_minutes: {
      type: "integer",
      minimum: 0,
      maximum: 525_600,
      description: "Sync-drift threshold in minutes (default 120).",
    },
  }),
  outputSchema: output({
    type: "object",
    required: [
      "audit_version",
      "repair",
      "emit_event",
      "open_issue_count",
      "resolved_issue_count",
      "issues",
      "repairs",
    ],
    properties: {
      audit_version: { const: AUDIT_VERSION },
      repair: { type: "boolean" },
      emit_event: { type: "boolean" },
      open_issue_count: { type: "integer" },
      resolved_issue_count: { type: "integer" },
      issues: { type: "array", items: { type: "object" } },
      repairs: {
        type: "object",
        required: [
          "provenance_backfilled",
          "contradiction_counts_refreshed",
          "pack_summaries_materialized",
          "task_materializations_reconciled",
          "issues_resolved",
        ],
        additionalProperties: { type: "integer" },
      },
    },
  }),
  examples: [
    {
      title: "audit all memory",
      input: {},
    },
  ],
  kind: "write",
  run: (a, ctx) => auditMemory(ctx, a),
});
