import { type DialectName, type Kysely, sql } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { LIVE_STATUS_SQL } from "../../tasks/store/ready-sql.ts";
import type { EntityFact, TaskFact } from "../rules/detect.ts";
import { type AuditParams, type Category, cutoffs } from "../rules/vocabulary.ts";
import { BLANK_SQL } from "./blank.ts";

/**
 * The audit's reads: per category, the rows its detector (rules/detect.ts) needs, already
 * narrowed by the same predicate and read in the same order, at most `limit` rows (duplicate
 * titles: the first `limit` groups, each with every copy). Scope lives in the WHERE clause: the
 * caller's grants always, the project filter on top; entity reads also honour private entities.
 * Text keys compare in byte order on both engines (PostgreSQL COLLATE "C"), like the rules.
 */

type Db = Kysely<ShampooDB>;

const TASK_COLUMNS = sql.raw(
  "t.id, t.project, t.title, t.title_norm, t.type, t.status, t.priority, t.section, t.due_date, t.parent_id, t.created_at, t.updated_at, t.last_event_id",
);

interface Ctx {
  db: Db;
  dialect: DialectName;
  caller: Caller;
  p: AuditParams;
  now: number;
  limit: number;
}

function bytes(c: Ctx, col: string) {
  return sql.raw(c.dialect === "postgres" ? `${col} COLLATE "C"` : col);
}

/** profile, grants and the project filter on alias t. */
function taskScope(c: Ctx) {
  const s = scopeOf(c.caller);
  const project = c.p.project === null ? sql`` : sql` AND t.project = ${c.p.project}`;
  // Star plus the untagged grant sees every row of the profile (tasks/store.ts scoped(): the
  // always-true condition would only cost a column read per row).
  const grants = s.projects === null && s.untagged ? sql`` : sql` AND ${projectCondition(s, "t.project")}`;
  return sql`t.profile = ${s.profile}${grants}${project}`;
}

async function tasks(c: Ctx, where: ReturnType<typeof sql>, order: string[], description = false): Promise<TaskFact[]> {
  const orderSql = sql.join(order.map((o) => bytes(c, o)));
  const desc = description ? sql.raw(", t.description") : sql.raw(", NULL AS description");
  const rows = await sql<TaskFact>`SELECT ${TASK_COLUMNS}${desc} FROM shampoo_tasks t
    WHERE ${taskScope(c)} AND ${where} ORDER BY ${orderSql} LIMIT ${c.limit}`.execute(c.db);
  return rows.rows;
}

const LIVE = sql.raw(`t.status IN ${LIVE_STATUS_SQL}`);

async function duplicates(c: Ctx): Promise<TaskFact[]> {
  // Two reads: the first `limit` groups in order (one pass over the partial index of live rows),
  // then their members by title through the same index. A join of the two let both planners
  // rescan the table per group (~0.5 s on SQLite, ~3 s on PostgreSQL at 100,000 tasks).
  // Grouped by the bytes of the title (PostgreSQL COLLATE "C", the index's order; the same
  // groups, as the default collation is deterministic): the groups then stream out of the index
  // in order and the read stops at the limit, where a hash of every live row spilled to disk.
  const title = bytes(c, "t.title_norm");
  const groups = await sql<{ title_norm: string; project: string | null; type: string }>`
    SELECT ${title} AS title_norm, t.project, t.type FROM shampoo_tasks t
    WHERE ${taskScope(c)} AND ${LIVE}
    GROUP BY ${title}, t.project, t.type HAVING count(*) > 1
    ORDER BY ${bytes(c, "t.title_norm")}, ${bytes(c, "coalesce(t.project, '')")}, ${bytes(c, "t.type")} LIMIT ${c.limit}`.execute(
    c.db,
  );
  const keys = new Set(groups.rows.map((g) => JSON.stringify([g.title_norm, g.project, g.type])));
  const titles = [...new Set(groups.rows.map((g) => g.title_norm))];
  const out: TaskFact[] = [];
  for (let i = 0; i < titles.length; i += 500) {
    const rows = await sql<TaskFact>`SELECT ${TASK_COLUMNS}, NULL AS description FROM shampoo_tasks t
      WHERE ${taskScope(c)} AND ${LIVE} AND t.title_norm IN (${sql.join(titles.slice(i, i + 500))})`.execute(c.db);
    for (const r of rows.rows) if (keys.has(JSON.stringify([r.title_norm, r.project, r.type]))) out.push(r);
  }
  return out;
}

async function orphans(c: Ctx): Promise<TaskFact[]> {
  // A parent the caller cannot see reads as missing (no existence oracle); the project filter
  // narrows the children only: a parent in another granted project is a parent.
  const s = scopeOf(c.caller);
  const rows = await sql<TaskFact>`SELECT ${TASK_COLUMNS}, NULL AS description FROM shampoo_tasks t
    WHERE ${taskScope(c)} AND ${LIVE} AND t.parent_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM shampoo_tasks p WHERE p.id = t.parent_id AND p.profile = t.profile AND ${projectCondition(s, "p.project")})
    ORDER BY ${bytes(c, "t.updated_at")}, ${bytes(c, "t.id")} LIMIT ${c.limit}`.execute(c.db);
  return rows.rows.map((r) => ({ ...r, parent_visible: false }));
}

async function bareEntities(c: Ctx): Promise<EntityFact[]> {
  const s = scopeOf(c.caller);
  const project = c.p.project === null ? sql`` : sql` AND e.project = ${c.p.project}`;
  const rows = await sql<EntityFact>`SELECT e.id, e.project, e.name, e.name_norm, e.entity_type, e.visibility,
      e.created_by, e.updated_at, e.last_event_id, 0 AS active_observations
    FROM shampoo_entities e
    WHERE e.profile = ${s.profile} AND e.lifecycle = 'live' AND ${projectCondition(s, "e.project")}${project}
      AND (e.visibility = 'shared' OR e.created_by = ${c.caller.principal})
      AND NOT EXISTS (SELECT 1 FROM shampoo_observations o WHERE o.entity_id = e.id AND o.lifecycle = 'live')
    ORDER BY ${bytes(c, "e.name_norm")}, ${bytes(c, "e.id")} LIMIT ${c.limit}`.execute(c.db);
  return rows.rows.map((r) => ({ ...r, active_observations: Number(r.active_observations) }));
}

/** The rows of one category, for its detector. `limit`: rows (groups for duplicate titles) to read. */
export async function scanCategory(
  db: Db,
  dialect: DialectName,
  caller: Caller,
  p: AuditParams,
  now: number,
  category: Category,
  limit: number,
): Promise<{ tasks: TaskFact[]; entities: EntityFact[] }> {
  const c: Ctx = { db, dialect, caller, p, now, limit };
  const cut = cutoffs(p, now);
  const none: EntityFact[] = [];
  switch (category) {
    case "exact_duplicate_titles":
      return { tasks: await duplicates(c), entities: none };
    case "stale_overdue_tasks":
      return {
        tasks: await tasks(
          c,
          sql`t.type = 'task' AND t.status = 'not_started' AND t.due_date IS NOT NULL AND t.due_date < ${cut.staleBefore}`,
          ["t.due_date", "t.created_at", "t.id"],
        ),
        entities: none,
      };
    case "empty_description_notes": {
      const blank = sql.raw(BLANK_SQL[dialect]("t.description"));
      return {
        tasks: await tasks(
          c,
          sql`t.type = 'note' AND ${LIVE} AND (t.description IS NULL OR ${blank} = '')`,
          ["t.updated_at", "t.id"],
          true,
        ),
        entities: none,
      };
    }
    case "orphan_parent_tasks":
      return { tasks: await orphans(c), entities: none };
    case "abandoned_inbox_items":
      return {
        tasks: await tasks(
          c,
          sql`t.section = 'inbox' AND t.status = 'not_started' AND t.updated_at < ${cut.abandonedBefore}`,
          ["t.updated_at", "t.id"],
        ),
        entities: none,
      };
    case "entities_no_observations":
      return { tasks: [], entities: await bareEntities(c) };
  }
}
