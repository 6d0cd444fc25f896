import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectAuditInput } from "../inputs.gen.ts";
import { AUDIT_LIMIT_MAX, CONTRACT_VERSION } from "../rules/vocabulary.ts";
import { FINDING, P, SUMMARY } from "../schemas.ts";
import { auditReport } from "../service/audit.ts";

export const reflect_audit = tool<ReflectAuditInput>({
  name: "reflect_audit",
  title: "Audit memory for consolidation candidates (dry run)",
  description:
    "Read-only dry run of the reflection audit: persists nothing. Six deterministic categories over the tasks, notes and entities you can see: exact duplicate titles, stale overdue not_started tasks, empty-description notes, orphan parent links, abandoned inbox items and entities without observations, each with a suggested action. The same memory and thresholds give byte-identical candidates. An explicit project must be granted; an unfiltered audit needs star scope.",
  inputSchema: input({
    abandoned_inbox_days: P.inboxDays,
    format: {
      type: "string",
      enum: ["json", "markdown"],
      default: "json",
      description: "json (default) or markdown (adds a rendered report).",
    },
    limit_per_category: {
      ...P.limitPerCategory,
      description: `Cap per category (default 20, clamped to 1..${AUDIT_LIMIT_MAX}).`,
    },
    project: P.project,
    stale_days: P.staleDays,
  }),
  outputSchema: output({
    type: "object",
    required: ["version", "summary", "candidates"],
    properties: {
      version: { type: "string", const: CONTRACT_VERSION },
      summary: SUMMARY,
      candidates: { type: "object", additionalProperties: { type: "array", items: FINDING } },
      markdown: { type: "string" },
    },
  }),
  examples: [
    {
      title: "a project's audit as markdown",
      input: { project: fx("project"), format: "markdown" },
    },
  ],
  kind: "read",
  run: (a, ctx) => auditReport(ctx, a),
});
