import type { DialectName, Kysely } from "kernel";
import { type Caller, projectValue } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { badArgument } from "../errors.ts";
import { canonical, detectCategory, type Finding, type Findings } from "../rules/detect.ts";
import { type AuditParams, CATEGORIES, clamp, cutoffs, DEFAULTS } from "../rules/model.ts";
import { runProjectAllowed } from "../store/runs.ts";
import { scanCategory } from "../store/scan.ts";

/** The audit pass shared by reflect_audit (read only) and reflect_start (persisted). */

export interface AuditArgs {
  project?: unknown;
  stale_days?: unknown;
  abandoned_inbox_days?: unknown;
  limit_per_category?: unknown;
}

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
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  return {
    project,
    stale_days: num(a.stale_days) ?? DEFAULTS.stale_days,
    abandoned_inbox_days: num(a.abandoned_inbox_days) ?? DEFAULTS.abandoned_inbox_days,
    limit_per_category: clamp(num(a.limit_per_category), DEFAULTS.limit_per_category, 1, maxLimit),
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

export function summaryOf(f: Findings, p: AuditParams, now: number): Record<string, unknown> {
  const by: Record<string, number> = {};
  for (const c of CATEGORIES) by[c] = f[c].length;
  const cut = cutoffs(p, now);
  return {
    total_candidates: Object.values(by).reduce((a, b) => a + b, 0),
    by_category: by,
    applied_filters: {
      project: p.project,
      stale_days: p.stale_days,
      abandoned_inbox_days: p.abandoned_inbox_days,
      limit_per_category: p.limit_per_category,
      due_before: cut.staleBefore,
      untouched_since: cut.abandonedBefore,
    },
  };
}

/**
 * A finding as the wire shows it (the fingerprint and gates stay internal); evidence in its
 * canonical key order, the same bytes reflect_review shows for the persisted candidate.
 */
export function findingView(f: Finding): Record<string, unknown> {
  return {
    type: f.type,
    target_kind: f.target_kind,
    target_ref: f.target_ref,
    suggested_action: f.suggested_action,
    confidence: f.confidence,
    evidence: JSON.parse(canonical(f.evidence)),
  };
}

const label = (c: string) => c.replaceAll("_", " ");

/** The markdown report of format=markdown: counts, then each category's candidates. */
export function markdownReport(version: string, f: Findings, summary: Record<string, unknown>): string {
  const by = summary.by_category as Record<string, number>;
  const lines = [`# Reflection audit (${version})`, "", `Total candidates: ${String(summary.total_candidates)}`, ""];
  lines.push("| Category | Count |", "|---|---:|");
  for (const c of CATEGORIES) lines.push(`| ${label(c)} | ${by[c]} |`);
  for (const c of CATEGORIES) {
    if (f[c].length === 0) continue;
    lines.push("", `## ${label(c)} (${f[c].length})`, "");
    for (const x of f[c]) {
      const e = x.evidence;
      const name = String(e.title ?? e.name ?? x.target_ref).replaceAll("\n", " ");
      const where = e.project === null ? "untagged" : String(e.project);
      lines.push(`- ${name} — ${x.target_kind} \`${x.target_ref}\` in ${where}: ${x.suggested_action}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
