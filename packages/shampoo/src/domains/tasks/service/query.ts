import { projectValue, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import type { QueryTasksInput } from "../inputs.gen.ts";
import { taskView, today } from "../model.ts";
import { cell, EMPTY, table } from "../rules/markdown.ts";
import { clampInt } from "../rules/values.ts";
import type { TaskRow } from "../schema.ts";
import { searchTerms } from "../store/fts.ts";
import { queryPage, resolveSort } from "../store/query.ts";

/**
 * query_tasks: one read() snapshot. Every query starts from the caller's scope (store/tasks.ts
 * scoped), so content outside the grants is never loaded, searched or counted: an out-of-scope
 * filter and a filter that matches nothing produce the same bytes. Nothing here writes.
 */

export const QUERY_LIMIT = { min: 1, max: 200, default: 50 };
const NOTES_CELL_MAX = 80;
export const QUERY_HEADER = ["#", "Title", "Status", "Priority", "Section", "Due", "Project", "Created", "Notes"];

/** Fields of a task summary (summary_only): no long text bodies. */
const SUMMARY_FIELDS = [
  "id",
  "title",
  "type",
  "status",
  "priority",
  "section",
  "project",
  "due_date",
  "parent_id",
  "assignee",
  "created_at",
  "updated_at",
] as const;

function summaryView(t: TaskRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of SUMMARY_FIELDS) out[f] = t[f];
  return out;
}

/** Ranks are reported with 6 significant digits (bm25 values can be tiny); ordering uses full precision. */
function roundRank(v: unknown): number {
  const n = Number(v);
  return Number.isFinite(n) ? Number(n.toPrecision(6)) : 0;
}

function createdCell(createdAt: string): string {
  return `${createdAt.slice(0, 10)} ${createdAt.slice(11, 16)}`;
}

export function queryMarkdown(rows: TaskRow[], offset: number): string {
  return table(
    QUERY_HEADER,
    rows.map((r, i) => [
      String(offset + i + 1),
      cell(r.title),
      r.status,
      r.priority,
      r.section,
      r.due_date ?? EMPTY,
      cell(r.project),
      createdCell(r.created_at),
      cell(r.notes, NOTES_CELL_MAX),
    ]),
  );
}

export async function queryTasks(ctx: ShampooCtx, a: QueryTasksInput): Promise<Record<string, unknown>> {
  const sortTerms = resolveSort(a.sort_by, a.sort_order);
  const limit = clampInt(a.limit, QUERY_LIMIT.min, QUERY_LIMIT.max, QUERY_LIMIT.default);
  const offset = clampInt(a.offset, 0, Number.MAX_SAFE_INTEGER, 0);
  // "" filters the untagged enclave; "*" is a grant, never a project value (rejected).
  const project = a.project === undefined ? undefined : projectValue(a.project);
  const day = today(ctx.clock.now());
  const searchText = typeof a.search === "string" ? a.search.trim() : "";
  let words: string[] = [];
  if (searchText !== "") {
    words = searchTerms(searchText);
    // Text without a single word character cannot match anything full-text.
    if (words.length === 0) return emptyPage(0, offset, limit);
  }
  const scope = scopeOf(ctx.caller);
  const plan = { a, project, day, words, searchText, sortTerms, limit, offset };
  const { rows, total } = await read(ctx, (db, engine) => queryPage(db, engine, scope, plan));
  if (rows.length === 0) return emptyPage(total, offset, limit);
  const tasks = rows.map((r) => {
    const { fts_rank, ...row } = r;
    const view = a.summary_only === true ? summaryView(row) : taskView(row);
    if (words.length > 0) view.rank = roundRank(fts_rank);
    return view;
  });
  const out: Record<string, unknown> = {
    tasks,
    count: tasks.length,
    total,
    offset,
    limit,
    markdown: queryMarkdown(rows, offset),
  };
  if (total > offset + tasks.length) {
    out.has_more = true;
    out.next_offset = offset + tasks.length;
  }
  return out;
}

/** The empty shape: identical for "nothing matches" and "nothing you may see". */
function emptyPage(total: number, offset: number, limit: number): Record<string, unknown> {
  return { tasks: [], count: 0, total, offset, limit, message: "No tasks match" };
}
