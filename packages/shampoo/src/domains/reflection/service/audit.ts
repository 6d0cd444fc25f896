import type { DialectName, Kysely } from "kernel";
import { type Caller, projectValue } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { ReflectAuditInput } from "../inputs.gen.ts";
import { badArgument, findingView } from "../model.ts";
import { detectCategory, type Findings } from "../rules/detect.ts";
import { markdownReport, summaryOf } from "../rules/report.ts";
import {
  AUDIT_LIMIT_MAX,
  type AuditParams,
  CATEGORIES,
  CONTRACT_VERSION,
  clamp,
  DEFAULTS,
} from "../rules/vocabulary.ts";
import { runProjectAllowed } from "../store/runs.ts";
import { scanCategory } from "../store/scan.ts";

/** The audit pass shared by reflect_audit (read only, here) and reflect_start (persisted). */

/** The audit's arguments, as reflect_audit and reflect_start take them. */
export type AuditArgs = Pick<
  ReflectAuditInput,
  "project" | "stale_days" | "abandoned_inbox_days" | "limit_per_category"
>;

/**
 * Resolves and gates the arguments. An explicit project must be granted; "" (all projects)
 * needs star, since the candidates would span every project. Both refusals are one
 * invalid_argument shape that never says whether the project exists.
 */
export function auditParams(caller: Caller, a: AuditArgs, maxLimit: number): AuditParams {
  const project = projectValue(a.project);
  if (!runProjectAllowed(caller, project)) {
    throw project === null
      ? badArgument("invalid_argument", "an unfiltered audit spans every project and needs star scope")
      : badArgument("invalid_argument", "project not in scope");
  }
  return {
    project,
    stale_days: a.stale_days ?? DEFAULTS.stale_days,
    abandoned_inbox_days: a.abandoned_inbox_days ?? DEFAULTS.abandoned_inbox_days,
    limit_per_category: clamp(a.limit_per_category, DEFAULTS.limit_per_category, 1, maxLimit),
  };
}

/**
 * Runs the six detectors over the caller's visible memory. Each category reads at most
 * `readLimit` of its rows (duplicate titles: groups), enough to know whether it holds more
 * than the per-category limit allows; the detector then keeps limit_per_category of them.
 */
export async function auditPass(
  db: Kysely<ShampooDB>,
  dialect: DialectName,
  caller: Caller,
  p: AuditParams,
  now: number,
): Promise<Findings> {
  const out = {} as Findings;
  for (const c of CATEGORIES) {
    const rows = await scanCategory(db, dialect, caller, p, now, c, p.limit_per_category);
    out[c] = detectCategory(c, rows, p, now);
  }
  return out;
}

/** reflect_audit: the pass on one read snapshot; nothing is written, not even an event. */
export async function auditReport(ctx: ShampooCtx, a: ReflectAuditInput): Promise<Record<string, unknown>> {
  const p = auditParams(ctx.caller, a, AUDIT_LIMIT_MAX);
  const now = ctx.clock.now();
  const findings = await read(ctx, (db, engine) => auditPass(db, engine.dialect, ctx.caller, p, now));
  const summary = summaryOf(findings, p, now);
  const candidates: Record<string, unknown> = {};
  for (const c of CATEGORIES) candidates[c] = findings[c].map(findingView);
  const out: Record<string, unknown> = { version: CONTRACT_VERSION, summary, candidates };
  if (a.format === "markdown") out.markdown = markdownReport(CONTRACT_VERSION, findings, summary);
  return out;
}
