import { type Kysely, sql, type Transaction } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { LookupCandidate, LookupSource, WordWalk } from "../../../store/lookup-source.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { FINISHED, normalizeTitle } from "../model.ts";
import type { TaskRow } from "../schema.ts";
import { type FtsSql, fts5WordStage, ftsSql, tsqueryWordStage } from "./fts.ts";
import { finishedTestSql } from "./ready-sql.ts";
import { scoped, scopedForText } from "./tasks.ts";

/**
 * find_by_title's source of tasks and notes (store/lookup-source.ts LookupSource; the ranking
 * is lookup.ts's): the surfaces title, description, notes and project, read in scope only. Its
 * word stages are written per engine, as the full-text tables differ (FTS5 on SQLite, tsvector
 * on PostgreSQL: fts.ts).
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
type Raw<T> = ReturnType<typeof sql<T>>;

const FINISHED_LIST = [...FINISHED];
const LIVE_STATUSES = ["not_started", "in_progress"];
const inList = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`));

const LOOKUP_COLUMNS = [
  "shampoo_tasks.id",
  "shampoo_tasks.title",
  "shampoo_tasks.description",
  "shampoo_tasks.notes",
  "shampoo_tasks.project",
  "shampoo_tasks.type",
  "shampoo_tasks.status",
  "shampoo_tasks.section",
  "shampoo_tasks.priority",
  "shampoo_tasks.due_date",
  "shampoo_tasks.created_at",
  "shampoo_tasks.updated_at",
] as const;

type LookupRow = Pick<
  TaskRow,
  | "id"
  | "title"
  | "description"
  | "notes"
  | "project"
  | "type"
  | "status"
  | "section"
  | "priority"
  | "due_date"
  | "created_at"
  | "updated_at"
>;

function taskCandidate(r: LookupRow): LookupCandidate {
  return {
    id: r.id,
    live: !FINISHED.has(r.status),
    updatedAt: r.updated_at,
    texts: { title: r.title, description: r.description, notes: r.notes, project: r.project },
    fields: {
      kind: r.type === "note" ? "note" : "task",
      id: r.id,
      title: r.title,
      type: r.type,
      status: r.status,
      section: r.section,
      priority: r.priority,
      due_date: r.due_date,
      project: r.project,
      created_at: r.created_at,
      updated_at: r.updated_at,
    },
  };
}

/**
 * Live content first. Written with literals, as migration 011's index shampoo_tasks_lookup_scan
 * holds it: the full-scan fallback then walks that index and stops at its cap instead of sorting
 * every row of the profile, bodies included (240 ms at 100,000 tasks).
 */
const LIVE_FIRST = sql`${sql.raw(finishedTestSql("shampoo_tasks"))} ASC`;

export function taskSource(db: Db, engine: Engine, scope: Scope): LookupSource {
  return {
    name: "tasks",
    surfaces: ["title", "description", "notes", "project"],
    async prefilter(terms, raw, pool, mode) {
      const fts = ftsSql(engine, terms, raw, mode);
      // The pool is cut in the final ranking's own terms where FTS cannot tell rows apart:
      // live first, then relevance, then most recently updated, then id. The cut sorts narrow
      // rows (id and keys); only the pool's rows are then read with their texts.
      const tail = [sql`shampoo_tasks.updated_at DESC`, sql`shampoo_tasks.id ASC`];
      const cut = scopedForText(db, engine, scope)
        .$if(fts.join !== undefined, (qb) =>
          qb.innerJoin(fts.join as NonNullable<FtsSql["join"]>, (j) => j.on(fts.on as Raw<boolean>)),
        )
        .$if(fts.where !== undefined, (qb) => qb.where(fts.where as Raw<boolean>))
        .select("shampoo_tasks.id")
        .select(sql<number>`${fts.rank}`.as("fts_rank"))
        .orderBy(sql.join([LIVE_FIRST, sql`${fts.rank} DESC`, ...tail]))
        .limit(pool);
      const rows = (await db
        .selectFrom("shampoo_tasks")
        .innerJoin(sql`(${cut})`.as("pool"), (j) => j.on(sql<boolean>`pool.id = shampoo_tasks.id`))
        .select(LOOKUP_COLUMNS)
        .orderBy(sql.join([LIVE_FIRST, sql`pool.fts_rank DESC`, ...tail]))
        .execute()) as LookupRow[];
      return rows.map(taskCandidate);
    },
    async wordStages(terms: string[], raw: string, walks: WordWalk[]) {
      // Live or finished entries with the terms as whole words (lookup.ts), newest first, at
      // most `n` per walk. SQLite walks an FTS5 index (the title-only one of 009 for the title
      // stages) from its newest row down and stops once the rows are found: rowid order is
      // insertion order (tasks are never deleted), so no match is ranked or sorted; every walk
      // of a call is one statement. PostgreSQL searches to_tsvector('simple', title) (009's
      // index) or the task's tsvector and sorts the matches by created_at, then id. The title
      // phrase stage also takes every entry whose whole title is the fragment (the index on
      // title_norm), however old: an exact title is the best match there is.
      const inScope = (alias: string) =>
        scope.projects === null && scope.untagged ? sql`1 = 1` : projectCondition(scope, `${alias}.project`);
      const statusesOf = (w: WordWalk) =>
        w.live === "any" ? [...LIVE_STATUSES, ...FINISHED_LIST] : w.live ? LIVE_STATUSES : FINISHED_LIST;
      const exactOf = (w: WordWalk) => (w.stage === "title_phrase" ? normalizeTitle(raw) : undefined);
      let rows: LookupRow[];
      if (engine.dialect === "sqlite") {
        const sets = walks.flatMap((w) => {
          const { table, match } = fts5WordStage(terms, w.stage);
          const statuses = inList(statusesOf(w));
          const exact = exactOf(w);
          return [
            sql`shampoo_tasks.rowid IN (
              SELECT f.rowid FROM ${sql.table(table)} AS f CROSS JOIN shampoo_tasks_facets AS fa ON fa.rid = f.rowid
              WHERE ${sql.ref(`f.${table}`)} MATCH ${match} AND fa.profile = ${scope.profile}
                AND ${inScope("fa")} AND fa.status IN (${statuses})
              ORDER BY f.rowid DESC LIMIT ${sql.lit(w.n)})`,
            ...(exact === undefined
              ? []
              : [
                  sql`shampoo_tasks.rowid IN (SELECT e.rowid FROM shampoo_tasks AS e
                    WHERE e.profile = ${scope.profile} AND e.title_norm = ${exact} AND ${inScope("e")}
                      AND e.status IN (${statuses}))`,
                ]),
          ];
        });
        // A walk of every status hands its rows back newest first (lookup.ts splits them).
        const newest = walks.some((w) => w.live === "any") ? sql` ORDER BY shampoo_tasks.rowid DESC` : sql``;
        rows = (
          await sql<LookupRow>`SELECT ${sql.join(LOOKUP_COLUMNS.map((c) => sql.ref(c)))} FROM shampoo_tasks
            WHERE ${sql.join(sets, sql` OR `)}${newest}`.execute(db)
        ).rows;
      } else {
        rows = [];
        for (const w of walks) {
          const text = tsqueryWordStage(terms, w.stage);
          rows.push(
            ...((await scoped(db, scope)
              .select(LOOKUP_COLUMNS)
              .where(
                w.stage === "phrase"
                  ? sql<boolean>`shampoo_tasks.search @@ to_tsquery('simple', ${text})`
                  : sql<boolean>`to_tsvector('simple', shampoo_tasks.title) @@ to_tsquery('simple', ${text})`,
              )
              .where("shampoo_tasks.status", "in", statusesOf(w))
              .orderBy(sql.join([sql`shampoo_tasks.created_at DESC`, sql`shampoo_tasks.id DESC`]))
              .limit(w.n)
              .execute()) as LookupRow[]),
          );
          const exact = exactOf(w);
          if (exact !== undefined) {
            rows.push(
              ...((await scoped(db, scope)
                .select(LOOKUP_COLUMNS)
                .where("shampoo_tasks.title_norm", "=", exact)
                .where("shampoo_tasks.status", "in", statusesOf(w))
                .execute()) as LookupRow[]),
            );
          }
        }
      }
      return rows.map(taskCandidate);
    },
    async scan(cap) {
      const rows = (await scoped(db, scope)
        .select(LOOKUP_COLUMNS)
        .orderBy(sql.join([LIVE_FIRST, sql`shampoo_tasks.updated_at DESC`, sql`shampoo_tasks.id ASC`]))
        .limit(cap)
        .execute()) as LookupRow[];
      return rows.map(taskCandidate);
    },
  };
}
