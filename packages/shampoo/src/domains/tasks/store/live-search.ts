import { type Kysely, sql, type Transaction } from "kernel";
import type { Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { BM25_WEIGHTS, fts5Match } from "./fts.ts";

/**
 * query_tasks full text over live content on SQLite, through shampoo_tasks_live_fts (migration
 * 010): an FTS5 index of the live rows only, whose rowid is `pno << 52 | jno << 32 | task rowid`
 * (pno: the profile's number, jno: the project's inside it, 0 = untagged; shampoo_task_scopes).
 *
 * A caller's scope becomes rowid ranges, one per run of consecutive visible project numbers
 * (star: one range for the whole profile), and FTS5 seeks them inside its doclists. So the walk
 * meets only live rows the caller may see: they are ranked (bm25, same weights as the four-field
 * index), counted, and only the rows that can be on the page are joined to their facets for the
 * order's tie-breaks. Measured at 100,000 tasks (bench/results/shampoo-latest.md): a word in
 * ~3,000 tasks, ~1,250 of them live, costs ~1.9 ms instead of ~6.2 ms through the four-field
 * index, which ranks and looks up every match, live or not, in scope or not.
 *
 * Relevance statistics (document frequency, average length) are those of the live index: the
 * order of a one-word search is the same as through the four-field index, a search of several
 * words can weigh its words a little differently.
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
type Raw<T> = ReturnType<typeof sql<T>>;

/** The live index is SQLite's own (010 creates it there only); PostgreSQL searches the task table. */
export function hasLiveIndex(engine: Engine): boolean {
  return engine.dialect === "sqlite";
}

/** More ranges than this (a caller granted many scattered projects): the general path instead. */
export const MAX_LIVE_RANGES = 8;
const JNO_MAX = 0xfffff;
const ROWID_BITS = 0xffffffffn;

/** An inclusive rowid range of shampoo_tasks_live_fts. */
export type LiveRange = readonly [bigint, bigint];

const rangeOf = (pno: number, jlo: number, jhi: number): LiveRange => {
  const p = BigInt(pno) << 52n;
  return [p | (BigInt(jlo) << 32n), p | (BigInt(jhi) << 32n) | ROWID_BITS];
};

/**
 * The rowid ranges of the live content `scope` may see, narrowed to `project` when given (null =
 * the untagged enclave); [] when nothing can match (no live content in the profile, a project
 * outside the grants or without live content), undefined when there would be more than
 * MAX_LIVE_RANGES.
 */
export async function liveRanges(
  db: Db,
  scope: Scope,
  project: string | null | undefined,
): Promise<LiveRange[] | undefined> {
  const sees = (p: string | null) =>
    p === null ? scope.untagged : scope.projects === null || scope.projects.includes(p);
  // The projects searched, as shampoo_task_scopes keys ("" = untagged); null = every one (star).
  let wanted: string[] | null;
  if (project !== undefined) wanted = sees(project) ? [project ?? ""] : [];
  else if (scope.projects === null) wanted = null;
  else wanted = [...(scope.untagged ? [""] : []), ...scope.projects];
  if (wanted !== null && wanted.length === 0) return [];
  const rows = await db
    .selectFrom("shampoo_task_scopes")
    .select(["project", "pno", "jno"])
    .where("profile", "=", scope.profile)
    .where("project", "in", wanted === null ? [""] : [...new Set(["", ...wanted])])
    .execute();
  const profileRow = rows.find((r) => r.project === "");
  if (profileRow === undefined) return [];
  const pno = Number(profileRow.pno);
  // Star: every project of the profile, the untagged enclave (0) with its grant.
  if (wanted === null) return [rangeOf(pno, scope.untagged ? 0 : 1, JNO_MAX)];
  const jnos = rows
    .filter((r) => wanted.includes(r.project))
    .map((r) => Number(r.jno))
    .sort((x, y) => x - y);
  const ranges: LiveRange[] = [];
  let start = -1;
  let prev = -2;
  for (const j of jnos) {
    if (j !== prev + 1) {
      if (start >= 0) ranges.push(rangeOf(pno, start, prev));
      start = j;
    }
    prev = j;
  }
  if (start >= 0) ranges.push(rangeOf(pno, start, prev));
  return ranges.length > MAX_LIVE_RANGES ? undefined : ranges;
}

/** The live index's matches inside `ranges`, as (rid = task rowid, r = relevance) rows. */
function hits(terms: string[], ranges: LiveRange[]): Raw<unknown> {
  const match = fts5Match(terms, "all");
  return sql.join(
    ranges.map(
      ([lo, hi]) =>
        sql`SELECT rowid & ${sql.lit(Number(ROWID_BITS))} AS rid, -bm25(shampoo_tasks_live_fts, ${BM25_WEIGHTS}) AS r FROM shampoo_tasks_live_fts WHERE shampoo_tasks_live_fts MATCH ${match} AND rowid BETWEEN ${lo} AND ${hi}`,
    ),
    sql` UNION ALL `,
  );
}

/**
 * One page of a live full-text search as a subquery of (id, fts_rank, total_count), ordered by
 * relevance, then `order` (ORDER BY terms over `shampoo_tasks`, here the facets row). The
 * matches are ranked once (a materialized CTE); the relevance of the page's last place, k =
 * offset + limit, is read from them, and only matches at least that relevant — every row the
 * full order could put on the page, ties included — are joined to their facets and sorted.
 * `ranges` must not be empty.
 */
export function liveSearchPage(
  terms: string[],
  ranges: LiveRange[],
  order: Raw<unknown>,
  limit: number,
  offset: number,
): Raw<unknown> {
  return sql`(WITH hits AS MATERIALIZED (${hits(terms, ranges)})
    SELECT shampoo_tasks.id AS id, hits.r AS fts_rank, (SELECT count(*) FROM hits) AS total_count
    FROM hits JOIN shampoo_tasks_facets AS shampoo_tasks ON shampoo_tasks.rid = hits.rid
    WHERE hits.r >= coalesce((SELECT r FROM hits ORDER BY r DESC LIMIT 1 OFFSET ${offset + limit - 1}), -1e308)
    ORDER BY hits.r DESC, ${order} LIMIT ${limit} OFFSET ${offset})`;
}

/** The number of live matches inside `ranges` (for a page past the end). */
export async function liveSearchCount(db: Db, terms: string[], ranges: LiveRange[]): Promise<number> {
  if (ranges.length === 0) return 0;
  const r = await sql<{ n: number }>`SELECT count(*) AS n FROM (${hits(terms, ranges)})`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}
