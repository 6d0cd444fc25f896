import { type DomainError, type Kysely, sql, type Transaction } from "kernel";
import { projectCondition, projectValue, type Scope, scopeOf } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import type { Engine } from "../../platform/engine.ts";
import { fail } from "../../platform/errors.ts";
import { read } from "../../platform/write.ts";
import { lookupSources } from "../../store/lookup-source.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { type FtsSql, ftsSql, searchTerms } from "./fts.ts";
import { hasLiveIndex, liveRanges, liveSearchCount, liveSearchPage } from "./live-search.ts";
import { lookup } from "./lookup.ts";
import { taskSource } from "./lookup-store.ts";
import { cell, EMPTY, oneLine, table, truncate } from "./markdown.ts";
import { FINISHED, type STATUSES, taskView, today } from "./model.ts";
import {
  buildReadyContext,
  checkMode,
  dueBands,
  READY_LIMIT,
  type ReadyInput,
  type ReadyRow,
  rankLive,
  readyTopPage,
  shownRanked,
} from "./ready.ts";
import { heatSql, LIVE_STATUS_SQL, rankSql } from "./ready-sql.ts";
import type { TaskRow } from "./schema.ts";
import { maskParents, scoped, scopedForText, scopedIds, visibleTaskIds } from "./store.ts";

/**
 * The read side of tasks and notes: query_tasks, find_by_title, task_digest, ready_context.
 *
 * Every query starts from `scoped(db, scope)`, so content outside the caller's grants is never
 * loaded, searched, counted or scored: an out-of-scope filter and a filter that matches nothing
 * produce the same bytes. Nothing here writes: no history event, no column touched. "Today" is
 * the UTC date of the injected clock; past-due means due_date < today. Each tool is one read()
 * snapshot; what differs between the engines is asked of its adapter (`engine`: planner hints,
 * byte-order collation, row keys) or of the store files (store.ts, fts.ts, live-search.ts,
 * lookup-store.ts), never tested here.
 */

type Raw<T> = ReturnType<typeof sql<T>>;
type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

const TASK_COLUMNS = [
  "shampoo_tasks.id",
  "shampoo_tasks.profile",
  "shampoo_tasks.project",
  "shampoo_tasks.title",
  "shampoo_tasks.title_norm",
  "shampoo_tasks.type",
  "shampoo_tasks.status",
  "shampoo_tasks.priority",
  "shampoo_tasks.section",
  "shampoo_tasks.description",
  "shampoo_tasks.notes",
  "shampoo_tasks.due_date",
  "shampoo_tasks.parent_id",
  "shampoo_tasks.recurring",
  "shampoo_tasks.reminder_at",
  "shampoo_tasks.assignee",
  "shampoo_tasks.shared_by",
  "shampoo_tasks.created_by",
  "shampoo_tasks.created_at",
  "shampoo_tasks.updated_at",
  "shampoo_tasks.last_event_id",
] as const;

/** Every column but the long bodies (description, notes): what bulk scoring loads. */
const READY_COLUMNS = TASK_COLUMNS.filter(
  (c) => c !== "shampoo_tasks.description" && c !== "shampoo_tasks.notes",
) as Exclude<(typeof TASK_COLUMNS)[number], "shampoo_tasks.description" | "shampoo_tasks.notes">[];

const FINISHED_LIST = [...FINISHED];
const LIVE_STATUSES = ["not_started", "in_progress"];

/** An integer argument clamped into [min, max]; absent → fallback. */
export function clampInt(v: unknown, min: number, max: number, fallback: number): number {
  if (typeof v !== "number" || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(v)));
}

const and = (parts: Raw<boolean>[]): Raw<boolean> =>
  parts.length === 0 ? sql<boolean>`1 = 1` : sql<boolean>`(${sql.join(parts, sql` AND `)})`;

const inList = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`));

const PRIORITY_VALUE = sql`(CASE shampoo_tasks.priority WHEN 'critical' THEN 3 WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)`;
/** Priority names as PRIORITY_VALUE ranks them. */
const PRIORITY_RANK: Record<string, number> = { critical: 3, high: 2, medium: 1, low: 0 };
const STATUS_ORDER = sql`(CASE shampoo_tasks.status WHEN 'in_progress' THEN 0 WHEN 'not_started' THEN 1 WHEN 'done' THEN 2 WHEN 'cancelled' THEN 3 ELSE 4 END)`;
const SECTION_ORDER = sql`(CASE shampoo_tasks.section WHEN 'today' THEN 0 WHEN 'inbox' THEN 1 WHEN 'next' THEN 2 WHEN 'waiting' THEN 3 ELSE 4 END)`;
const TYPE_ORDER = sql`(CASE shampoo_tasks.type WHEN 'task' THEN 0 ELSE 1 END)`;

/** One ORDER BY term: a key and its direction. */
interface OrderTerm {
  key: Raw<unknown>;
  dir: "ASC" | "DESC";
}

const orderSql = (terms: OrderTerm[]) => sql.join(terms.map((t) => sql`${t.key} ${sql.raw(t.dir)}`));

/**
 * The default order of task lists: most important first, then soonest due, then oldest. The
 * index shampoo_tasks_order (store/schema.ts, 006) holds exactly these keys, the same
 * expressions written the same way: SQLite matches an index expression to ORDER BY textually.
 */
const DEFAULT_TERMS: OrderTerm[] = [
  { key: PRIORITY_VALUE, dir: "DESC" },
  { key: sql`(shampoo_tasks.due_date IS NULL)`, dir: "ASC" },
  { key: sql`shampoo_tasks.due_date`, dir: "ASC" },
  { key: sql`shampoo_tasks.created_at`, dir: "ASC" },
  { key: sql`shampoo_tasks.id`, dir: "ASC" },
];
export const DEFAULT_ORDER = DEFAULT_TERMS.map((t) => sql`${t.key} ${sql.raw(t.dir)}`);

// ---------------------------------------------------------------------------------------------
// query_tasks

export const SORT_FIELDS = [
  "created_at",
  "updated_at",
  "due_date",
  "priority",
  "status",
  "title",
  "project",
  "section",
  "type",
] as const;
export const SORT_ORDERS = ["asc", "desc"] as const;
type SortField = (typeof SORT_FIELDS)[number];
type Dir = "asc" | "desc";

/**
 * Each sort field's key and natural direction. Enumerated fields sort by meaning, not spelling:
 * priority by rank (desc = critical first), status by lifecycle (in_progress, not_started, done,
 * cancelled, archived), section by the working day (today, inbox, next, waiting, someday), type
 * task before note. due_date and project keep empty values last in either direction.
 */
const SORTS: Record<SortField, { key: (e: Engine) => Raw<unknown>; dir: Dir; nullsLast?: string }> = {
  created_at: { key: () => sql`shampoo_tasks.created_at`, dir: "desc" },
  updated_at: { key: () => sql`shampoo_tasks.updated_at`, dir: "desc" },
  due_date: { key: () => sql`shampoo_tasks.due_date`, dir: "asc", nullsLast: "shampoo_tasks.due_date" },
  priority: { key: () => PRIORITY_VALUE, dir: "desc" },
  status: { key: () => STATUS_ORDER, dir: "asc" },
  title: { key: (e) => e.byteOrder("shampoo_tasks.title_norm"), dir: "asc" },
  project: { key: (e) => e.byteOrder("shampoo_tasks.project"), dir: "asc", nullsLast: "shampoo_tasks.project" },
  section: { key: () => SECTION_ORDER, dir: "asc" },
  type: { key: () => TYPE_ORDER, dir: "asc" },
};

function invalidSort(what: string, value: string): DomainError {
  return fail(
    "invalid_sort",
    `invalid_sort: ${what} ${JSON.stringify(value)} is not allowed; sort_by must be one of ${SORT_FIELDS.join(", ")} and sort_order one of ${SORT_ORDERS.join(", ")}`,
    { allowed_sort_by: [...SORT_FIELDS], allowed_sort_order: [...SORT_ORDERS] },
  );
}

/**
 * Validates sort_by/sort_order ("" = not given) into ORDER BY terms (without tie-breaks), built
 * for the engine once it is known (inside the read).
 */
export function resolveSort(sortBy: unknown, sortOrder: unknown): (engine: Engine) => OrderTerm[] {
  const by = typeof sortBy === "string" ? sortBy.trim() : "";
  const order = typeof sortOrder === "string" ? sortOrder.trim().toLowerCase() : "";
  if (by !== "" && !(SORT_FIELDS as readonly string[]).includes(by)) throw invalidSort("sort_by", by);
  if (order !== "" && !(SORT_ORDERS as readonly string[]).includes(order)) throw invalidSort("sort_order", order);
  if (by === "") {
    if (order === "") return () => [];
    // Only a direction: it applies to the default key, priority.
    return () => [{ key: PRIORITY_VALUE, dir: order === "asc" ? "ASC" : "DESC" }];
  }
  const s = SORTS[by as SortField];
  const dir = (order || s.dir) === "asc" ? "ASC" : "DESC";
  return (engine) => {
    const terms: OrderTerm[] = [];
    if (s.nullsLast) terms.push({ key: sql`(${sql.ref(s.nullsLast)} IS NULL)`, dir: "ASC" });
    terms.push({ key: s.key(engine), dir });
    return terms;
  };
}

/** sort_by due_date in its own direction (soonest first): the order of shampoo_tasks_due_order. */
function dueAscending(sortBy: unknown, order: OrderTerm[]): boolean {
  return typeof sortBy === "string" && sortBy.trim() === "due_date" && order[order.length - 1]?.dir === "ASC";
}

export const QUERY_LIMIT = { min: 1, max: 200, default: 50 };
/**
 * query_tasks's equality filters on a column of the same name. assignee matches the stored value
 * exactly (assign_task stores it verbatim): an agent finds what was assigned to it.
 */
const EQUALITY_FILTERS = ["priority", "section", "type", "parent_id", "assignee"] as const;
/** From this many matches on, a page is read in order (walking shampoo_tasks_order by default). */
const ORDER_WALK_MIN = 1000;
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

export async function queryTasks(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const sortTerms = resolveSort(a.sort_by, a.sort_order);
  const limit = clampInt(a.limit, QUERY_LIMIT.min, QUERY_LIMIT.max, QUERY_LIMIT.default);
  const offset = clampInt(a.offset, 0, Number.MAX_SAFE_INTEGER, 0);
  // "" filters the untagged enclave; "*" is a grant, never a project value (rejected).
  const project = a.project === undefined ? undefined : projectValue(a.project);
  const day = today(ctx.clock.now());

  // The filters, written twice over the same rows. `walking` on SQLite: for the walk of
  // shampoo_tasks_order, each filtered column is read as `(column || '')` (the same text, NULL
  // stays NULL) so no other index can serve the term: the planner (with statistics, too) then
  // walks the order index instead of sorting every match found through a filter's index.
  // PostgreSQL keeps the plain terms: it plans from its statistics, tests them inside the order
  // index already, and would misjudge the selectivity of the expressions (a parallel seq scan).
  const filters = (engine: Engine, walking: boolean): Raw<boolean>[] => {
    const col = (name: string) =>
      walking ? engine.notIndexedText(`shampoo_tasks.${name}`) : sql.ref(`shampoo_tasks.${name}`);
    const where: Raw<boolean>[] = [];
    // "Not finished" is written as the two live statuses (every write validates status against
    // the five of model.ts): the same rows, but an index range instead of a test on every entry.
    if (typeof a.status === "string") where.push(sql<boolean>`${col("status")} = ${a.status}`);
    else if (a.include_completed !== true) where.push(sql<boolean>`${col("status")} IN (${inList(LIVE_STATUSES)})`);
    if (a.overdue_only === true) {
      // Past-due content only, and never finished content (even with include_completed).
      where.push(sql<boolean>`${col("due_date")} IS NOT NULL AND ${col("due_date")} < ${day}`);
      where.push(sql<boolean>`${col("status")} IN (${inList(LIVE_STATUSES)})`);
    }
    for (const f of EQUALITY_FILTERS) {
      if (typeof a[f] === "string") where.push(sql<boolean>`${col(f)} = ${a[f]}`);
    }
    // Implied by the priority filter (same rows); lets a walk of shampoo_tasks_order start at
    // that rank instead of passing every higher one first.
    const rank =
      typeof a.priority === "string" && Object.hasOwn(PRIORITY_RANK, a.priority)
        ? PRIORITY_RANK[a.priority]
        : undefined;
    if (rank !== undefined) where.push(sql<boolean>`${PRIORITY_VALUE} = ${sql.lit(rank)}`);
    if (project !== undefined) {
      where.push(
        project === null ? sql<boolean>`${col("project")} IS NULL` : sql<boolean>`${col("project")} = ${project}`,
      );
    }
    return where;
  };

  const searchText = typeof a.search === "string" ? a.search.trim() : "";
  let words: string[] = [];
  if (searchText !== "") {
    words = searchTerms(searchText);
    // Text without a single word character cannot match anything full-text.
    if (words.length === 0) return emptyPage(0, offset, limit);
  }
  // Full text over live content with no filter but the project (the common search) reads the
  // live index where there is one (live-search.ts): only live rows in scope are ranked and counted.
  const liveFilters =
    words.length > 0 &&
    typeof a.status !== "string" &&
    a.include_completed !== true &&
    a.overdue_only !== true &&
    EQUALITY_FILTERS.every((f) => typeof a[f] !== "string");

  const scope = scopeOf(ctx.caller);
  return read(ctx, async (db, engine) => {
    const order = sortTerms(engine);
    const fts: FtsSql | undefined = words.length > 0 ? ftsSql(engine, words, searchText, "all") : undefined;
    const liveText = liveFilters && hasLiveIndex(engine);
    // A parent the caller cannot see filters like one that does not exist: nothing matches.
    const parent = a.parent_id;
    if (typeof parent === "string" && !(await visibleTaskIds(db, engine, scope, [parent])).has(parent)) {
      return emptyPage(0, offset, limit);
    }
    // The narrow copy scopedForText reads holds no assignee: that filter reads the task table
    // (same rowid, so the full-text join is unchanged).
    const narrow = fts !== undefined && typeof a.assignee !== "string";
    const base = (walking = false) =>
      (narrow ? scopedForText(db, engine, scope) : scoped(db, scope))
        .$if(fts?.join !== undefined, (qb) =>
          qb.innerJoin(fts?.join as NonNullable<FtsSql["join"]>, (j) => j.on(fts?.on as Raw<boolean>)),
        )
        .$if(fts?.where !== undefined, (qb) => qb.where(fts?.where as Raw<boolean>))
        .where(and(filters(engine, walking)));

    const terms = [...order, ...DEFAULT_TERMS];
    let count = async () =>
      Number((await base().select(sql<number | string>`count(*)`.as("n")).executeTakeFirst())?.n ?? 0);
    // The page as ids in order (narrow rows), then the full rows of those ids only.
    let page: Raw<unknown>;
    let total: number | undefined;
    const ranges = liveText ? await liveRanges(db, scope, project) : undefined;
    if (ranges !== undefined) {
      if (ranges.length === 0) return emptyPage(0, offset, limit);
      page = liveSearchPage(words, ranges, orderSql(terms), limit, offset);
      count = () => liveSearchCount(db, words, ranges);
    } else if (fts) {
      // Full text: one pass over the matches gives the page and, by a window count over the
      // same narrow rows, the total (a separate count would run the search twice).
      page = sql`(${base()
        .select("shampoo_tasks.id")
        .select(sql<number>`${fts.rank}`.as("fts_rank"))
        .select(sql<number>`count(*) over ()`.as("total_count"))
        .orderBy(sql.join([sql`${fts.rank} DESC`, orderSql(terms)]))
        .limit(limit)
        .offset(offset)})`;
    } else {
      // The total first (a count over an index, no rows loaded): nothing to list, or an offset
      // past the end, answers without reading a page.
      total = await count();
      if (total === 0 || offset >= total) return emptyPage(total, offset, limit);
      // Many matches: in the default order, reading shampoo_tasks_order in order finds the page
      // after about (offset + limit) × rows / matches index entries (another order sorts them).
      // Few matches: that walk could cross the whole profile, so the matching rows are taken
      // first through the filters' own index (a materialized CTE: no order to tempt the planner
      // to the order index), then sorted; CROSS JOIN keeps SQLite reading them first.
      // Sorted by due date, soonest first, over live content (no status, no include_completed):
      // shampoo_tasks_due_order (008, partial: live rows) holds that order followed by the
      // default one, and is walked the same way. The live statuses are written as literals (the
      // partial index's predicate, so no other query can take that index), and SQLite is told
      // the index (INDEXED BY: the plan does not depend on planner statistics).
      const dueWalk = dueAscending(a.sort_by, order) && typeof a.status !== "string" && a.include_completed !== true;
      page =
        total >= ORDER_WALK_MIN && dueWalk
          ? sql`(SELECT shampoo_tasks.id FROM shampoo_tasks${engine.indexedBy("shampoo_tasks_due_order")}
            WHERE shampoo_tasks.profile = ${scope.profile}
              AND ${scope.projects === null && scope.untagged ? sql`1 = 1` : projectCondition(scope, "shampoo_tasks.project")}
              AND ${sql.raw(`shampoo_tasks.status IN ${LIVE_STATUS_SQL}`)} AND ${and(filters(engine, true))}
            ORDER BY ${orderSql(terms)} LIMIT ${sql.lit(limit)} OFFSET ${sql.lit(offset)})`
          : total >= ORDER_WALK_MIN
            ? sql`(${base(order.length === 0)
                .select("shampoo_tasks.id")
                .orderBy(orderSql(terms))
                .limit(limit)
                .offset(offset)})`
            : sql`(WITH matched AS MATERIALIZED ${base().select(engine.rowKey("shampoo_tasks", "id").as("k"))}
            SELECT shampoo_tasks.id FROM matched CROSS JOIN shampoo_tasks WHERE ${engine.rowKey("shampoo_tasks", "id")} = matched.k
            ORDER BY ${orderSql(terms)} LIMIT ${limit} OFFSET ${offset})`;
    }
    const rows = (await db
      .selectFrom("shampoo_tasks")
      .innerJoin(page.as("page"), (j) => j.on(sql<boolean>`page.id = shampoo_tasks.id`))
      .select(TASK_COLUMNS)
      .select(sql<number>`${fts ? sql`page.fts_rank` : sql`0`}`.as("fts_rank"))
      .select(sql<number | string>`${fts ? sql`page.total_count` : sql`0`}`.as("total_count"))
      .orderBy(sql.join([...(fts ? [sql`page.fts_rank DESC`] : []), orderSql(terms)]))
      .execute()) as (TaskRow & { fts_rank: number; total_count: number | string })[];
    if (total === undefined) {
      if (rows.length > 0) total = Number(rows[0]?.total_count);
      else total = offset === 0 ? 0 : await count();
    }
    if (rows.length === 0) return emptyPage(total, offset, limit);

    const tasks = (await maskParents(db, engine, scope, rows)).map((r) => {
      const { fts_rank, total_count: _t, ...row } = r;
      const view = a.summary_only === true ? summaryView(row) : taskView(row);
      if (fts) view.rank = roundRank(fts_rank);
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
  });
}

/** The empty shape: identical for "nothing matches" and "nothing you may see". */
function emptyPage(total: number, offset: number, limit: number): Record<string, unknown> {
  return { tasks: [], count: 0, total, offset, limit, message: "No tasks match" };
}

// ---------------------------------------------------------------------------------------------
// task_digest

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
export async function taskDigest(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const includeOverdue = a.include_overdue !== false;
  const limit = clampInt(a.limit, DIGEST_LIMIT.min, DIGEST_LIMIT.max, DIGEST_LIMIT.default);
  const day = today(ctx.clock.now());
  return read(ctx, (db) => digestOn(db, ctx, includeOverdue, limit, day));
}

async function digestOn(
  db: Db,
  ctx: ShampooCtx,
  includeOverdue: boolean,
  limit: number,
  day: string,
): Promise<Record<string, unknown>> {
  const tasks = () => scoped(db, scopeOf(ctx.caller)).where("type", "=", "task");
  const live = () => tasks().where("status", "in", LIVE_STATUSES);

  const statusRows = await tasks()
    .select(["status", sql<number | string>`count(*)`.as("n")])
    .groupBy("status")
    .execute();
  const statusCounts = { not_started: 0, in_progress: 0, done: 0, archived: 0, cancelled: 0 } as Record<
    (typeof STATUSES)[number],
    number
  >;
  for (const r of statusRows) statusCounts[r.status as (typeof STATUSES)[number]] = Number(r.n);
  const anyTask = Object.values(statusCounts).some((n) => n > 0);
  if (!anyTask) return { digest: DIGEST_HEADER, active_count: 0, overdue_count: 0, status_counts: statusCounts };

  const sectionRows = await live()
    .where("section", "in", [...DIGEST_SECTIONS])
    .select(["section", sql<number | string>`count(*)`.as("n")])
    .groupBy("section")
    .execute();
  const perSection = new Map(sectionRows.map((r) => [r.section, Number(r.n)]));
  const activeCount = [...perSection.values()].reduce((s, n) => s + n, 0);
  const active = (await live()
    .where("section", "in", [...DIGEST_SECTIONS])
    .select(TASK_COLUMNS)
    .orderBy(sql.join([sql`${SECTION_ORDER} ASC`, ...DEFAULT_ORDER]))
    .limit(limit)
    .execute()) as TaskRow[];

  let overdue: TaskRow[] = [];
  let overdueCount = 0;
  if (includeOverdue) {
    const pastDue = () => live().where("due_date", "is not", null).where("due_date", "<", day);
    const c = await pastDue().select(sql<number | string>`count(*)`.as("n")).executeTakeFirst();
    overdueCount = Number(c?.n ?? 0);
    overdue = (await pastDue()
      .select(TASK_COLUMNS)
      .orderBy(sql.join([sql`shampoo_tasks.due_date ASC`, ...DEFAULT_ORDER]))
      .limit(DIGEST_OVERDUE_MAX)
      .execute()) as TaskRow[];
  }

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

// ---------------------------------------------------------------------------------------------
// find_by_title: the task/note source (lookup-store.ts) and the contributed ones

/** The most rows a full-scan fallback scores: live first, most recently updated first. */
export const LOOKUP_SCAN_CAP = 5000;

export const LOOKUP_LIMIT = { min: 1, max: 100, default: 20 };

export async function findByTitle(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const limit = clampInt(a.limit, LOOKUP_LIMIT.min, LOOKUP_LIMIT.max, LOOKUP_LIMIT.default);
  const fragment = String(a.title_fragment ?? "");
  const scope = scopeOf(ctx.caller);
  return read(ctx, (db, engine) =>
    lookup(
      // Tasks and notes, then the sources other modules contribute (the graph's entities).
      [taskSource(db, engine, scope), ...lookupSources.all().map((open) => open(db, engine, ctx.caller))],
      fragment,
      limit,
      LOOKUP_SCAN_CAP,
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// ready_context

/** What scoring reads of a live row: the columns the index shampoo_tasks_order holds. */
const SCORING_COLUMNS = [
  "shampoo_tasks.id",
  "shampoo_tasks.profile",
  "shampoo_tasks.project",
  "shampoo_tasks.type",
  "shampoo_tasks.status",
  "shampoo_tasks.priority",
  "shampoo_tasks.section",
  "shampoo_tasks.due_date",
  "shampoo_tasks.parent_id",
  "shampoo_tasks.reminder_at",
  "shampoo_tasks.created_at",
  "shampoo_tasks.updated_at",
] as const;

/**
 * A scoring row completed with the columns scoring never reads (a shown record's row is read
 * whole later). Assigned one by one: `{...defaults, ...row}` takes V8's slow path, ~50 µs a row.
 */
function unread(
  r: Pick<TaskRow, (typeof SCORING_COLUMNS)[number] extends `shampoo_tasks.${infer C}` ? C & keyof TaskRow : never>,
): ReadyRow {
  const row = r as ReadyRow;
  row.title = "";
  row.title_norm = "";
  row.recurring = null;
  row.assignee = null;
  row.shared_by = null;
  row.created_by = "";
  row.last_event_id = "";
  return row;
}

/** The most live rows ready_context scores in one call (most important first). */
export const READY_LOAD_CAP = 5000;
/** Finished tasks updated this recently are prime's explicit exclusions ("done: do not redo"). */
export const RECENTLY_FINISHED_DAYS = 14;
const IN_CHUNK = 500;

export async function readyContext(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  return readyContextWith(ctx, a, READY_LOAD_CAP, true);
}

/**
 * ready_context with the window size as a parameter (tests compare both strategies on windows
 * smaller than their fixtures); `top` false always scores the whole window.
 */
export async function readyContextWith(
  ctx: ShampooCtx,
  a: Record<string, unknown>,
  cap: number,
  top: boolean,
): Promise<Record<string, unknown>> {
  const now = ctx.clock.now();
  const includeReadings = a.include_readings === true;
  const scope = scopeOf(ctx.caller);
  const mode = checkMode(a.mode);
  const limit = clampInt(a.limit, READY_LIMIT.min, READY_LIMIT.max, READY_LIMIT.default);
  return read(ctx, async (db, engine) => {
    if (top && mode === "ready") {
      const page = await readyTop(db, engine, scope, { now, includeReadings, limit }, cap);
      if (page) return page;
    }
    // Scoring reads only columns shampoo_tasks_order holds, so the window's rows come from the
    // index alone, in order; the text a record shows (title, last event) is read below for the
    // few records the result shows.
    const live = (
      await maskParents(
        db,
        engine,
        scope,
        await scoped(db, scope)
          .where("status", "in", LIVE_STATUSES)
          .where("type", "in", includeReadings ? ["task", "note"] : ["task"])
          .select(SCORING_COLUMNS)
          .orderBy(sql.join(DEFAULT_ORDER))
          .limit(cap)
          .execute(),
      )
    ).map(unread);

    // Structural blockers come only from visible rows: an invisible subtask never blocks (and so
    // never reveals itself), an invisible parent is as good as none.
    const openSubtasks = new Map<string, string[]>();
    for (const r of live) {
      if (r.type === "task" && r.parent_id !== null) {
        const list = openSubtasks.get(r.parent_id) ?? [];
        list.push(r.id);
        openSubtasks.set(r.parent_id, list);
      }
    }
    const parentIds = [...new Set(live.map((r) => r.parent_id).filter((p): p is string => p !== null))];
    const parentStatus = new Map<string, string>();
    for (let i = 0; i < parentIds.length; i += IN_CHUNK) {
      const chunk = parentIds.slice(i, i + IN_CHUNK);
      const rows = await scopedIds(db, engine, scope, chunk).select(["id", "status"]).execute();
      for (const r of rows) parentStatus.set(r.id, r.status);
    }

    let finished: ReadyRow[] = [];
    if (mode === "prime") {
      const since = new Date(now - RECENTLY_FINISHED_DAYS * 86_400_000).toISOString();
      finished = (await scoped(db, scope)
        .where("status", "in", FINISHED_LIST)
        .where("type", "=", "task")
        .where("updated_at", ">=", since)
        .select(READY_COLUMNS)
        .orderBy(sql.join([sql`shampoo_tasks.updated_at DESC`, sql`shampoo_tasks.id ASC`]))
        .limit(limit)
        .execute()) as ReadyRow[];
      finished = await maskParents(db, engine, scope, finished);
    }

    const input: ReadyInput = { now, includeReadings, limit, live, openSubtasks, parentStatus, finished };
    const ranked = rankLive(input);
    // The shown rows, whole (titles, last events; suggested items are task-shaped, bodies
    // included), in the same snapshot: the same rows that were scored.
    const shown = shownRanked(mode, input, ranked);
    const ids = shown.map((r) => r.row.id);
    const full = new Map<string, TaskRow>();
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const chunk = ids.slice(i, i + IN_CHUNK);
      const rows = (await scopedIds(db, engine, scope, chunk).select(TASK_COLUMNS).execute()) as TaskRow[];
      for (const r of await maskParents(db, engine, scope, rows)) full.set(r.id, r);
    }
    for (const r of shown) {
      const { description: _d, notes: _n, ...row } = full.get(r.row.id) ?? { ...r.row, description: null, notes: null };
      r.row = row;
    }
    input.full = full;
    return buildReadyContext(mode, input, ranked);
  });
}

/**
 * Mode ready without scoring the window (migration 008's indexes; ready.ts readyTopPage proves
 * the page): ready_now ranks first, and a ready_now task's score is its date-independent points
 * (ready-sql.ts heatSql) plus points that are constant within a due-date band relative to today
 * (long past due, past due by 1..9 days, due today, due in 1..3 days, neither). So the first
 * `limit` records of the window are among the first `limit` ready_now rows of each band in
 * (points, due date, created_at, id) order, which an index gives directly: 15 short walks
 * instead of 5000 rows scored.
 *
 * The window is what the full path loads: the first `cap` live rows in scope in the default
 * order. Its last row is found on shampoo_tasks_live_order (OFFSET cap − 1), and "in the window"
 * is then a comparison with that row's order keys; a ready_now row is a live task, not waiting,
 * in progress / in today / due today or earlier / critical, without an open subtask in the
 * window (shampoo_tasks_live_kids) and without a finished parent in scope: ready.ts judge's
 * rules, written in SQL. undefined: the caller scores the whole window (fewer than `limit`
 * ready_now rows, an empty window).
 */
/** Mode ready's top-of-list answer alone (tests): undefined where the whole window would be scored. */
export async function readyTopOnly(
  ctx: ShampooCtx,
  a: Record<string, unknown>,
  cap: number,
): Promise<Record<string, unknown> | undefined> {
  const limit = clampInt(a.limit, READY_LIMIT.min, READY_LIMIT.max, READY_LIMIT.default);
  const opts = { now: ctx.clock.now(), includeReadings: a.include_readings === true, limit };
  return read(ctx, (db, engine) => readyTop(db, engine, scopeOf(ctx.caller), opts, cap));
}

interface TopKey {
  id: string;
  heat: number;
  due_date: string | null;
  created_at: string;
}

/**
 * The first `limit` ready_now keys of the union of the bands, in the ready order (score, due
 * date with none last, created_at, id; ready.ts compare): a score is the row's points plus its
 * band's. undefined when there are fewer than `limit`.
 */
function topKeys(
  keys: TopKey[],
  bands: ReturnType<typeof dueBands>,
  limit: number,
): Array<TopKey & { score: number }> | undefined {
  if (keys.length < limit) return undefined;
  const points = new Map(bands.days);
  const score = (k: TopKey) =>
    k.heat + (k.due_date === null ? 0 : k.due_date < bands.oldEnd ? 40 : (points.get(k.due_date) ?? 0));
  const scored = keys.map((k) => ({ k, s: score(k), due: k.due_date ?? "9999-99-99" }));
  scored.sort(
    (a, b) =>
      b.s - a.s ||
      (a.due < b.due ? -1 : a.due > b.due ? 1 : 0) ||
      (a.k.created_at < b.k.created_at ? -1 : a.k.created_at > b.k.created_at ? 1 : 0) ||
      (a.k.id < b.k.id ? -1 : a.k.id > b.k.id ? 1 : 0),
  );
  return scored.slice(0, limit).map((x) => ({ ...x.k, score: x.s }));
}

async function readyTop(
  db: Db,
  engine: Engine,
  scope: Scope,
  opts: { now: number; includeReadings: boolean; limit: number },
  cap: number,
): Promise<Record<string, unknown> | undefined> {
  const { now, includeReadings, limit } = opts;
  const types = includeReadings ? ["task", "note"] : ["task"];
  const indexed = (name: string) => engine.indexedBy(name);
  // Values the SQLite planner reads (index seeks, LIMIT) are written as literals there
  // (engine.planned): a bound value it has looked at makes SQLite prepare the statement again on
  // every run (STAT4), about 4 ms for the bands' statement. They are a profile name, dates and an
  // integer, escaped by Kysely; the text then changes with them, and the statement cache keeps
  // one per day.
  const planned = (v: string | number) => engine.planned(v);
  const live = (alias: string) => sql.raw(`${alias}.status IN ${LIVE_STATUS_SQL}`);
  const inScope = (alias: string) =>
    scope.projects === null && scope.untagged ? sql`1 = 1` : projectCondition(scope, `${alias}.project`);

  // The window's last row (its order keys), or none when the window holds every live row.
  const edge = (
    await sql<{ r: number; dn: number; dd: string; created_at: string; id: string }>`
    SELECT -${sql.raw(rankSql("shampoo_tasks"))} AS r,
      CASE WHEN shampoo_tasks.due_date IS NULL THEN 1 ELSE 0 END AS dn,
      coalesce(shampoo_tasks.due_date, '') AS dd, shampoo_tasks.created_at, shampoo_tasks.id
    FROM shampoo_tasks${indexed("shampoo_tasks_live_order")}
    WHERE shampoo_tasks.profile = ${planned(scope.profile)} AND ${live("shampoo_tasks")}
      AND shampoo_tasks.type IN (${inList(types)}) AND ${inScope("shampoo_tasks")}
    ORDER BY ${sql.join(DEFAULT_ORDER)} LIMIT 1 OFFSET ${planned(cap - 1)}`.execute(db)
  ).rows[0];
  let total = cap;
  if (!edge) {
    const n = await sql<{ n: number | string }>`
      SELECT count(*) AS n FROM shampoo_tasks${indexed("shampoo_tasks_live_order")}
      WHERE shampoo_tasks.profile = ${scope.profile} AND ${live("shampoo_tasks")}
        AND shampoo_tasks.type IN (${inList(types)}) AND ${inScope("shampoo_tasks")}`.execute(db);
    total = Number(n.rows[0]?.n ?? 0);
    if (total === 0) return undefined;
  }
  const inWindow = (alias: string) =>
    edge
      ? sql`(-${sql.raw(rankSql(alias))}, CASE WHEN ${sql.raw(alias)}.due_date IS NULL THEN 1 ELSE 0 END,
          coalesce(${sql.raw(alias)}.due_date, ''), ${sql.raw(alias)}.created_at, ${sql.raw(alias)}.id)
          <= (${Number(edge.r)}, ${Number(edge.dn)}, ${edge.dd}, ${edge.created_at}, ${edge.id})`
      : sql`1 = 1`;

  const bands = dueBands(now);
  const heat = sql.raw(heatSql("t"));
  const text = (col: string) => engine.byteOrder(`t.${col}`);
  const readyNow = sql`t.profile = ${planned(scope.profile)} AND ${live("t")} AND t.type = 'task' AND ${inScope("t")}
    AND t.section <> 'waiting'
    AND (t.status = 'in_progress' OR t.section = 'today' OR t.due_date <= ${planned(bands.day)} OR t.priority = 'critical')
    AND ${inWindow("t")}
    AND NOT EXISTS (SELECT 1 FROM shampoo_tasks AS k${indexed("shampoo_tasks_live_kids")}
      WHERE k.profile = t.profile AND k.parent_id = t.id AND k.type = 'task' AND ${live("k")}
        AND ${inScope("k")} AND ${inWindow("k")})
    AND NOT EXISTS (SELECT 1 FROM shampoo_tasks AS p
      WHERE p.id = t.parent_id AND ${engine.notIndexed(sql`p.profile`)} = t.profile AND ${inScope("p")}
        AND p.status IN (${inList(FINISHED_LIST)}))`;
  // Each band's best rows as narrow index entries (id and the keys of the order), then the
  // whole rows of the first `limit` only.
  const wide = (band: Raw<boolean>) =>
    sql`SELECT t.id, ${heat} AS heat, t.due_date, t.created_at FROM shampoo_tasks AS t${indexed("shampoo_tasks_live_heat")}
      WHERE ${readyNow} AND ${band}
      ORDER BY ${heat} DESC, (t.due_date IS NULL) ASC, ${text("due_date")} ASC, ${text("created_at")} ASC, ${text("id")} ASC
      LIMIT ${planned(limit)}`;
  const oneDay = (day: string) =>
    sql`SELECT t.id, ${heat} AS heat, t.due_date, t.created_at FROM shampoo_tasks AS t${indexed("shampoo_tasks_live_due")}
      WHERE ${readyNow} AND t.due_date = ${planned(day)}
      ORDER BY ${heat} DESC, ${text("created_at")} ASC, ${text("id")} ASC LIMIT ${planned(limit)}`;
  const parts = [
    wide(sql<boolean>`t.due_date < ${planned(bands.oldEnd)}`),
    ...bands.days.map(([day]) => oneDay(day)),
    wide(sql<boolean>`(t.due_date IS NULL OR t.due_date > ${planned(bands.soonEnd)})`),
  ];
  const union = sql.join(
    parts.map((p, i) => sql`SELECT * FROM (${p}) AS ${sql.raw(`b${i}`)}`),
    sql` UNION ALL `,
  );
  const keys = (await sql<TopKey>`${union}`.execute(db)).rows.map((r) => ({ ...r, heat: Number(r.heat) }));
  const top = topKeys(keys, bands, limit);
  if (!top) return undefined;
  const full = new Map<string, ReadyRow>();
  const rows = (await scopedIds(
    db,
    engine,
    scope,
    top.map((k) => k.id),
  )
    .select(READY_COLUMNS)
    .execute()) as ReadyRow[];
  for (const r of await maskParents(db, engine, scope, rows)) full.set(r.id, r);
  const candidates = top.map((k) => full.get(k.id)).filter((r): r is ReadyRow => r !== undefined);
  const input: ReadyInput = {
    now,
    includeReadings,
    limit,
    live: [],
    openSubtasks: new Map(),
    parentStatus: new Map(),
    finished: [],
  };
  return readyTopPage(input, candidates, new Map(top.map((k) => [k.id, k.score])), total);
}
