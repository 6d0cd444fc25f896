import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import type { TaskDigestInput } from "../inputs.gen.ts";
import { today } from "../model.ts";
import { oneLine, truncate } from "../rules/markdown.ts";
import { clampInt } from "../rules/values.ts";
import type { TaskRow } from "../schema.ts";
import { type DigestRows, digestRows } from "../store/digest.ts";

export const DIGEST_LIMIT = { min: 1, max: 100, default: 20 };
export const DIGEST_OVERDUE_MAX = 10;
export const DIGEST_SECTIONS = ["today", "inbox", "next"] as const;
const DIGEST_HEADER = "## Task Digest";

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function digestLine(t: TaskRow, extra: string[]): string {
  const bits = [...extra];
  if (t.status === "in_progress") bits.push("in progress");
  if (t.project !== null) bits.push(oneLine(t.project));
  return `- [${t.priority.toUpperCase()}] ${truncate(oneLine(t.title), 200)}${bits.length ? ` — ${bits.join(" · ")}` : ""}`;
}

/**
 * The session-start digest over tasks (never notes) in scope: status counts, then up to 10
 * past-due live tasks (oldest due first), then live tasks of today, inbox and next (in that
 * order; most important, then soonest due first), the listing capped at `limit` items in total.
 * active_count counts every live task in those three sections and overdue_count every past-due
 * live task, both before any cap; a section cut short says how many more there are.
 */
export async function taskDigest(ctx: ShampooCtx, a: TaskDigestInput): Promise<Record<string, unknown>> {
  const includeOverdue = a.include_overdue !== false;
  const limit = clampInt(a.limit, DIGEST_LIMIT.min, DIGEST_LIMIT.max, DIGEST_LIMIT.default);
  const day = today(ctx.clock.now());
  const scope = scopeOf(ctx.caller);
  const q = { sections: DIGEST_SECTIONS, includeOverdue, limit, overdueMax: DIGEST_OVERDUE_MAX, day };
  return digestOf(await read(ctx, (db) => digestRows(db, scope, q)), day);
}

/** The digest's markdown and counts from its rows. */
function digestOf(d: DigestRows, day: string): Record<string, unknown> {
  const { statusCounts, perSection, active, overdue, overdueCount } = d;
  if (!Object.values(statusCounts).some((n) => n > 0))
    return { digest: DIGEST_HEADER, active_count: 0, overdue_count: 0, status_counts: statusCounts };
  const activeCount = [...perSection.values()].reduce((s, n) => s + n, 0);
  const open = statusCounts.not_started + statusCounts.in_progress;
  const lines = [
    DIGEST_HEADER,
    `**Open:** ${open} (not started ${statusCounts.not_started}, in progress ${statusCounts.in_progress}) · **Done:** ${statusCounts.done} · **Archived:** ${statusCounts.archived} · **Cancelled:** ${statusCounts.cancelled}`,
  ];
  if (overdue.length > 0) {
    lines.push("", `### Past due (${overdueCount})`);
    for (const t of overdue) {
      const late = daysBetween(t.due_date as string, day);
      lines.push(digestLine(t, [`due ${t.due_date} (${late} day${late === 1 ? "" : "s"} late)`]));
    }
    if (overdueCount > overdue.length) lines.push(`- … ${overdueCount - overdue.length} more past due`);
  }
  for (const section of DIGEST_SECTIONS) {
    const total = perSection.get(section) ?? 0;
    if (total === 0) continue;
    const listed = active.filter((t) => t.section === section);
    lines.push("", `### ${section[0]?.toUpperCase()}${section.slice(1)} (${total})`);
    for (const t of listed) lines.push(digestLine(t, t.due_date ? [`due ${t.due_date}`] : []));
    if (total > listed.length) lines.push(`- … ${total - listed.length} more`);
  }
  return {
    digest: lines.join("\n"),
    active_count: activeCount,
    overdue_count: overdueCount,
    status_counts: statusCounts,
  };
}
