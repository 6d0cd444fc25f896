import { sql } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import { dueBands, type ReadyRow, type TopKey } from "../rules/ready.ts";
import type { TaskRow } from "../schema.ts";
import { heatSql, LIVE_STATUS_SQL, rankSql } from "./ready-sql.ts";
import {
  type Db,
  DEFAULT_ORDER,
  FINISHED_LIST,
  inList,
  LIVE_STATUSES,
  type Raw,
  READY_COLUMNS,
  SCORING_COLUMNS,
  TASK_COLUMNS,
} from "./sql.ts";
import { maskParents, scoped, scopedIds } from "./tasks.ts";

/**
 * ready_context's reads: the window the whole-window path scores (store rows only, no scoring),
 * and the top-of-list statements (the window's edge, the due-date bands over migration 008's
 * indexes). Scoring and ordering are rules/ready.ts.
 */

const IN_CHUNK = 500;

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

/**
 * The window: the first `cap` live rows in scope in the default order, parents masked. Scoring
 * reads only columns shampoo_tasks_order holds, so the rows come from the index alone, in order;
 * the text a record shows (title, last event) is read later for the few records shown.
 */
export async function windowRows(
  db: Db,
  engine: Engine,
  scope: Scope,
  includeReadings: boolean,
  cap: number,
): Promise<ReadyRow[]> {
  const rows = await scoped(db, scope)
    .where("status", "in", LIVE_STATUSES)
    .where("type", "in", includeReadings ? ["task", "note"] : ["task"])
    .select(SCORING_COLUMNS)
    .orderBy(sql.join(DEFAULT_ORDER))
    .limit(cap)
    .execute();
  return (await maskParents(db, engine, scope, rows)).map(unread);
}

/** id → status of the visible tasks among `ids`. */
export async function statusesOf(db: Db, engine: Engine, scope: Scope, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const rows = await scopedIds(db, engine, scope, ids.slice(i, i + IN_CHUNK))
      .select(["id", "status"])
      .execute();
    for (const r of rows) out.set(r.id, r.status);
  }
  return out;
}

/** Finished tasks updated since `since`, most recent first (prime's explicit exclusions). */
export async function finishedSince(
  db: Db,
  engine: Engine,
  scope: Scope,
  since: string,
  limit: number,
): Promise<ReadyRow[]> {
  const rows = (await scoped(db, scope)
    .where("status", "in", FINISHED_LIST)
    .where("type", "=", "task")
    .where("updated_at", ">=", since)
    .select(READY_COLUMNS)
    .orderBy(sql.join([sql`shampoo_tasks.updated_at DESC`, sql`shampoo_tasks.id ASC`]))
    .limit(limit)
    .execute()) as ReadyRow[];
  return maskParents(db, engine, scope, rows);
}

/** The visible rows among `ids`, whole (bodies included), parents masked. */
export async function wholeRows(db: Db, engine: Engine, scope: Scope, ids: string[]): Promise<Map<string, TaskRow>> {
  const full = new Map<string, TaskRow>();
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const rows = (await scopedIds(db, engine, scope, ids.slice(i, i + IN_CHUNK))
      .select(TASK_COLUMNS)
      .execute()) as TaskRow[];
    for (const r of await maskParents(db, engine, scope, rows)) full.set(r.id, r);
  }
  return full;
}

/** The visible rows among `ids` as scoring reads them (no bodies), parents masked. */
export async function scoringRows(db: Db, engine: Engine, scope: Scope, ids: string[]): Promise<Map<string, ReadyRow>> {
  const rows = (await scopedIds(db, engine, scope, ids).select(READY_COLUMNS).execute()) as ReadyRow[];
  return new Map((await maskParents(db, engine, scope, rows)).map((r) => [r.id, r]));
}

/**
 * The top-of-list statements (service/ready.ts readyTop says why they are exact): the window's
 * size, and each due-date band's best ready_now keys. undefined for an empty window.
 */
export async function bandKeys(
  db: Db,
  engine: Engine,
  scope: Scope,
  opts: { now: number; includeReadings: boolean; limit: number },
  cap: number,
): Promise<{ keys: TopKey[]; total: number; bands: ReturnType<typeof dueBands> } | undefined> {
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
  // The two NOT EXISTS end in `LIMIT 1 OFFSET 0` (the same rows): an OFFSET keeps PostgreSQL
  // from flattening them into anti-joins, which, planned without statistics (a table just
  // written), scanned a profile's open subtasks for every candidate (~100 ms a call on 900
  // tasks); as correlated subqueries each is one probe per candidate, as on SQLite.
  const readyNow = sql`t.profile = ${planned(scope.profile)} AND ${live("t")} AND t.type = 'task' AND ${inScope("t")}
    AND t.section <> 'waiting'
    AND (t.status = 'in_progress' OR t.section = 'today' OR t.due_date <= ${planned(bands.day)} OR t.priority = 'critical')
    AND ${inWindow("t")}
    AND NOT EXISTS (SELECT 1 FROM shampoo_tasks AS k${indexed("shampoo_tasks_live_kids")}
      WHERE k.profile = t.profile AND k.parent_id = t.id AND k.type = 'task' AND ${live("k")}
        AND ${inScope("k")} AND ${inWindow("k")} LIMIT 1 OFFSET 0)
    AND NOT EXISTS (SELECT 1 FROM shampoo_tasks AS p
      WHERE p.id = t.parent_id AND ${engine.notIndexed(sql`p.profile`)} = t.profile AND ${inScope("p")}
        AND p.status IN (${inList(FINISHED_LIST)}) LIMIT 1 OFFSET 0)`;
  // Each band's best rows as narrow index entries (id and the keys of the order), then the
  // whole rows of the first `limit` only.
  const wide = (band: Raw<boolean>) =>
    sql`SELECT t.id, ${heat} AS heat, t.due_date, t.created_at FROM shampoo_tasks AS t${indexed("shampoo_tasks_live_heat")}
      WHERE ${readyNow} AND ${band}
      ORDER BY ${heat} DESC, (t.due_date IS NULL) ASC, ${text("due_date")} ASC, ${text("created_at")} ASC, ${text("id")} ASC
      LIMIT ${planned(limit)}`;
  const oneDay = (day: Raw<unknown>) =>
    sql`SELECT t.id, ${heat} AS heat, t.due_date, t.created_at FROM shampoo_tasks AS t${indexed("shampoo_tasks_live_due")}
      WHERE ${readyNow} AND t.due_date = ${day}
      ORDER BY ${heat} DESC, ${text("created_at")} ASC, ${text("id")} ASC LIMIT ${planned(limit)}`;
  // The thirteen one-day bands: where the engine has LATERAL (PostgreSQL), one subquery run per
  // day of a VALUES list; PostgreSQL plans each branch of a UNION ALL anew (~5 ms a branch,
  // the table's many indexes), so fifteen branches cost ~70-90 ms to plan. SQLite gets the copies.
  const days = bands.days.map(([day]) => planned(day));
  const parts = [
    wide(sql<boolean>`t.due_date < ${planned(bands.oldEnd)}`),
    ...(engine.caps.lateral
      ? [
          sql`SELECT b.* FROM (VALUES ${sql.join(days.map((d) => sql`(${d})`))}) AS d(day)
            CROSS JOIN LATERAL (${oneDay(sql`d.day`)}) AS b`,
        ]
      : days.map(oneDay)),
    wide(sql<boolean>`(t.due_date IS NULL OR t.due_date > ${planned(bands.soonEnd)})`),
  ];
  const union = sql.join(
    parts.map((p, i) => sql`SELECT * FROM (${p}) AS ${sql.raw(`b${i}`)}`),
    sql` UNION ALL `,
  );
  const keys = (await sql<TopKey>`${union}`.execute(db)).rows.map((r) => ({ ...r, heat: Number(r.heat) }));
  return { keys, total, bands };
}
