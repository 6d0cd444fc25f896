import type { Findings } from "./detect.ts";
import { type AuditParams, CATEGORIES, cutoffs } from "./vocabulary.ts";

/** The audit's summary and its markdown report: pure functions of the findings. */

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
