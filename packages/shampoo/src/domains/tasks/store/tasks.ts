import { type Kysely, sql, type Transaction } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { TaskRow } from "../schema.ts";

/**
 * Task queries. Scope filters live here, in the WHERE clause, so that a row the caller may not
 * see is never loaded: missing and foreign are the same empty result (no existence oracle).
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** WHERE profile = … AND (project IN grants OR (star AND project IS NOT NULL) OR (untagged AND project IS NULL)). */
export function scoped(db: Db, scope: Scope) {
  const q = db.selectFrom("shampoo_tasks").where("profile", "=", scope.profile);
  // Star plus the untagged grant sees every row of the profile: the project condition would be
  // `project IS NOT NULL OR project IS NULL`, always true, yet it makes SQLite read `project` for
  // every row it counts (a table lookup unless the index holds the column). Left out, same rows.
  if (scope.projects === null && scope.untagged) return q;
  return q.where(projectCondition(scope));
}

/**
 * scoped() for a full-text read: on SQLite the narrow copy shampoo_tasks_facets (008; same rowid
 * as the task and its FTS row, the columns filters and orders read) under the name
 * `shampoo_tasks`, so every filter and order term reads it unchanged; PostgreSQL searches the
 * task table itself (its tsvector is a column of the row).
 */
export function scopedForText(db: Db, engine: Engine, scope: Scope) {
  // The facets copy is SQLite's own table (008 creates it there only).
  if (engine.dialect !== "sqlite") return scoped(db, scope);
  const q = db.selectFrom("shampoo_tasks_facets as shampoo_tasks").where("profile", "=", scope.profile);
  const narrowed = scope.projects === null && scope.untagged ? q : q.where(projectCondition(scope));
  return narrowed as unknown as ReturnType<typeof scoped>;
}

/**
 * Visible tasks by id, read through the primary key. Without planner statistics SQLite takes
 * `profile = ?` for a very selective condition and would walk a whole profile's index range
 * instead of looking the ids up (200 ms instead of 2 ms for 500 ids at 100,000 tasks); the unary
 * `+` keeps the profile test out of index selection, on SQLite only (PostgreSQL plans by its
 * statistics and has no unary + on text).
 */
export function scopedIds(db: Db, engine: Engine, scope: Scope, ids: string[]) {
  const profile = engine.notIndexed(sql`shampoo_tasks.profile`);
  const q = db
    .selectFrom("shampoo_tasks")
    .where("shampoo_tasks.id", "in", ids)
    .where(sql<boolean>`${profile} = ${scope.profile}`);
  if (scope.projects === null && scope.untagged) return q;
  return q.where(projectCondition(scope));
}

/**
 * One visible task. Given the engine, it is locked until commit where the engine has row locks
 * (PostgreSQL; SQLite's write transaction already holds the database's one write lock).
 */
export async function getTask(db: Db, scope: Scope, id: string, lock?: Engine): Promise<TaskRow | undefined> {
  const q = scoped(db, scope).selectAll().where("id", "=", id);
  return (lock ? lock.forUpdate(q) : q).executeTakeFirst();
}

/**
 * The parent of a task the caller may see (undefined for a task it may not see or that does not
 * exist). The cycle walk follows only visible tasks: refusing a move because of a chain through
 * content the caller cannot see would reveal that content (an existence oracle).
 */
export async function parentOf(db: Db, scope: Scope, id: string): Promise<string | null | undefined> {
  const row = await scoped(db, scope).select("parent_id").where("id", "=", id).executeTakeFirst();
  return row?.parent_id;
}

/** How many ids one IN list carries (SQLite binds at most 32,766 values; plans stay short). */
const IN_CHUNK = 500;

/** The ids among `ids` of tasks the caller may see. */
export async function visibleTaskIds(db: Db, engine: Engine, scope: Scope, ids: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const distinct = [...new Set(ids)];
  for (let i = 0; i < distinct.length; i += IN_CHUNK) {
    const chunk = distinct.slice(i, i + IN_CHUNK);
    for (const r of await scopedIds(db, engine, scope, chunk).select("shampoo_tasks.id").execute()) out.add(r.id);
  }
  return out;
}

/**
 * Rows as the caller may read them: a parent the caller cannot see shows as parent_id null, the
 * same bytes as a task without a parent (a foreign parent's id is not the caller's to learn).
 */
export async function maskParents<T extends { parent_id: string | null }>(
  db: Db,
  engine: Engine,
  scope: Scope,
  rows: T[],
): Promise<T[]> {
  if (scope.projects === null && scope.untagged) return rows; // sees the whole profile
  const parents = rows.map((r) => r.parent_id).filter((p): p is string => p !== null);
  if (parents.length === 0) return rows;
  const seen = await visibleTaskIds(db, engine, scope, parents);
  return rows.map((r) => (r.parent_id === null || seen.has(r.parent_id) ? r : { ...r, parent_id: null }));
}

/**
 * Serialises upserts of one (profile, normalized title, project) key for the rest of the
 * transaction (engine.lockKey: an advisory lock on PostgreSQL): two concurrent upserts cannot
 * both miss and both create. A hash collision only serialises two unrelated keys. SQLite needs
 * nothing: its write transaction holds the one write lock from BEGIN.
 */
export async function lockNoteKey(
  trx: Transaction<ShampooDB>,
  engine: Engine,
  profile: string,
  titleNorm: string,
  project: string | null,
): Promise<void> {
  await engine.lockKey(trx, JSON.stringify(["note", profile, titleNorm, project]));
}

/**
 * Serialises parent-link changes within a profile for the rest of the transaction, so two
 * concurrent re-parentings (A under B, B under A) cannot both pass the cycle walk.
 * Re-parenting is rare; other writes never take this lock.
 */
export async function lockParentLinks(trx: Transaction<ShampooDB>, engine: Engine, profile: string): Promise<void> {
  await engine.lockKey(trx, JSON.stringify(["parent-links", profile]));
}
