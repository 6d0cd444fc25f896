import type { DomainError } from "kernel";
import { sql } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import { fail } from "../../../platform/errors.ts";
import type { QueryTasksInput } from "../inputs.gen.ts";
import { PRIORITY_RANK } from "../model.ts";
import type { TaskRow } from "../schema.ts";
import { type FtsSql, ftsSql } from "./fts.ts";
import { hasLiveIndex, liveRanges, liveSearchCount, liveSearchPage } from "./live-search.ts";
import { LIVE_STATUS_SQL } from "./ready-sql.ts";
import {
  and,
  type Db,
  DEFAULT_TERMS,
  inList,
  LIVE_STATUSES,
  type OrderTerm,
  orderSql,
  PRIORITY_VALUE,
  type Raw,
  SECTION_ORDER,
  STATUS_ORDER,
  TASK_COLUMNS,
  TYPE_ORDER,
} from "./sql.ts";
import { maskParents, scoped, scopedForText, visibleTaskIds } from "./tasks.ts";

/**
 * query_tasks's SQL: the sort allowlist and its keys, the filters, and the page strategies (the
 * live full-text index, full text, a walk of an order index, or the matches sorted).
 */

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
    `${what} ${JSON.stringify(value)} is not allowed; sort_by must be one of ${SORT_FIELDS.join(", ")} and sort_order one of ${SORT_ORDERS.join(", ")}`,
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

/**
 * query_tasks's equality filters on a column of the same name. assignee matches the stored value
 * exactly (assign_task stores it verbatim): an agent finds what was assigned to it.
 */
export const EQUALITY_FILTERS = ["priority", "section", "type", "parent_id", "assignee"] as const;
/** From this many matches on, a page is read in order (walking shampoo_tasks_order by default). */
const ORDER_WALK_MIN = 1000;

/** What one query_tasks page asks, its arguments already checked (service/query.ts). */
export interface QueryPlan {
  a: QueryTasksInput;
  /** The project filter: undefined none, null the untagged enclave. */
  project: string | null | undefined;
  /** Today (UTC) by the injected clock: past due means due_date < day. */
  day: string;
  /** Full-text words (empty: no search) and the text they came from. */
  words: string[];
  searchText: string;
  sortTerms: (engine: Engine) => OrderTerm[];
  limit: number;
  offset: number;
}

/** A page's rows (parents masked), the total of matches, and whether rows carry a rank. */
export interface QueryPage {
  rows: (TaskRow & { fts_rank: number })[];
  total: number;
}

export async function queryPage(db: Db, engine: Engine, scope: Scope, plan: QueryPlan): Promise<QueryPage> {
  const { a, project, day, words, searchText, sortTerms, limit, offset } = plan;
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

  // Full text over live content with no filter but the project (the common search) reads the
  // live index where there is one (live-search.ts): only live rows in scope are ranked and counted.
  const liveFilters =
    words.length > 0 &&
    typeof a.status !== "string" &&
    a.include_completed !== true &&
    a.overdue_only !== true &&
    EQUALITY_FILTERS.every((f) => typeof a[f] !== "string");

  const order = sortTerms(engine);
  const fts: FtsSql | undefined = words.length > 0 ? ftsSql(engine, words, searchText, "all") : undefined;
  const liveText = liveFilters && hasLiveIndex(engine);
  // A parent the caller cannot see filters like one that does not exist: nothing matches.
  const parent = a.parent_id;
  if (typeof parent === "string" && !(await visibleTaskIds(db, engine, scope, [parent])).has(parent)) {
    return { rows: [], total: 0 };
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
    if (ranges.length === 0) return { rows: [], total: 0 };
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
    if (total === 0 || offset >= total) return { rows: [], total: total };
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
  if (rows.length === 0) return { rows: [], total };
  const masked = await maskParents(db, engine, scope, rows);
  return { rows: masked.map(({ total_count: _t, ...row }) => row), total };
}
