import { type Kysely, sql, type Transaction } from "kernel";
import { type Caller, projectCondition, type Scope, scopeOf } from "../../access/caller.ts";
import type { ShampooDB } from "../../store/schema.ts";
import type { TaskEvent } from "./model.ts";
import type { ContextRunRow, NewContextPack, SessionRow } from "./schema.ts";

/**
 * Session, pack and run queries. Scope and ownership live in the WHERE clause: a session the
 * caller may not see is never loaded, so foreign and missing read the same.
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** Sessions inside the profile and the project grants (the same rule as tasks' scoped()). */
function scopedSessions(db: Db, scope: Scope) {
  return db.selectFrom("shampoo_sessions").where("profile", "=", scope.profile).where(projectCondition(scope));
}

/** Tasks inside the profile and the project grants (the same rule as tasks' scoped()). */
function scopedTasks(db: Db, scope: Scope) {
  return db.selectFrom("shampoo_tasks").where("profile", "=", scope.profile).where(projectCondition(scope));
}

/**
 * Sessions the caller may see: inside the profile and the project grants, and owned by the
 * caller's own principal — or handed to it by the owner — unless `starBypass` is allowed and
 * the caller holds star. `ownedOnly` leaves handoffs out (close_session: only the owner flips).
 */
function visibleSessions(db: Db, caller: Caller, starBypass: boolean, ownedOnly = false) {
  let q = scopedSessions(db, scopeOf(caller));
  if (ownedOnly) q = q.where("owner", "=", caller.principal);
  else if (!(starBypass && caller.star))
    q = q.where((eb) => eb.or([eb("owner", "=", caller.principal), eb("handed_to", "=", caller.principal)]));
  return q;
}

export async function getSession(
  db: Db,
  caller: Caller,
  id: string,
  opts: { starBypass: boolean; lock?: boolean; ownedOnly?: boolean },
): Promise<SessionRow | undefined> {
  let q = visibleSessions(db, caller, opts.starBypass, opts.ownedOnly).selectAll().where("session_id", "=", id);
  if (opts.lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Sets `set` on one session: keyed by profile and id (the same UUID in another profile is another session). */
export async function updateSession(
  trx: Transaction<ShampooDB>,
  profile: string,
  id: string,
  set: Partial<SessionRow>,
): Promise<void> {
  await trx
    .updateTable("shampoo_sessions")
    .set(set)
    .where("profile", "=", profile)
    .where("session_id", "=", id)
    .execute();
}

/** The most recently saved sessions the caller may see (star sees every owner's). */
export async function recallSessions(db: Db, caller: Caller, n: number): Promise<SessionRow[]> {
  if (n <= 0) return [];
  return visibleSessions(db, caller, true)
    .selectAll()
    .orderBy("ended_at", "desc")
    .orderBy("started_at", "desc")
    .orderBy("session_id")
    .limit(n)
    .execute();
}

/** Task statuses a handoff lists: work still open. */
const OPEN = ["not_started", "in_progress"];

/**
 * Open tasks (never notes) visible to the caller, for a handoff: of one project (`project` given; null is the
 * untagged enclave) or of every visible project (`project` undefined). Most urgent first.
 */
export async function openTasks(db: Db, scope: Scope, project: string | null | undefined, limit: number) {
  // Tasks only: notes have a status too, but a note is never open work.
  let q = scopedTasks(db, scope).selectAll().where("status", "in", OPEN).where("type", "=", "task");
  if (project !== undefined)
    q = q.where((eb) => (project === null ? eb("project", "is", null) : eb("project", "=", project)));
  return q
    .orderBy((eb) =>
      eb
        .case()
        .when("priority", "=", "critical")
        .then(0)
        .when("priority", "=", "high")
        .then(1)
        .when("priority", "=", "medium")
        .then(2)
        .else(3)
        .end(),
    )
    .orderBy((eb) => eb.case().when("status", "=", "in_progress").then(0).else(1).end())
    .orderBy("updated_at", "desc")
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** Open subtasks the caller can see, counted per parent among `ids` (a blocked task waits on them). */
export async function openChildCounts(db: Db, scope: Scope, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await scopedTasks(db, scope)
    .select(["parent_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("parent_id", "in", ids)
    .where("status", "in", OPEN)
    .groupBy("parent_id")
    .execute();
  return new Map(rows.map((r) => [r.parent_id as string, Number(r.n)]));
}

/**
 * Recent history of tasks the caller may see (same project rule as openTasks), newest first,
 * at or after `since`. The join keeps scope in the query: events of invisible tasks never load.
 */
export async function recentTaskEvents(
  db: Db,
  scope: Scope,
  project: string | null | undefined,
  since: string,
  limit: number,
): Promise<TaskEvent[]> {
  let q = db
    .selectFrom("shampoo_history as h")
    .innerJoin("shampoo_tasks as t", (j) => j.onRef("t.id", "=", "h.entity_id").onRef("t.profile", "=", "h.profile"))
    .select(["h.at", "h.action", "h.principal", "t.id as task_id", "t.title", "h.old_json", "h.new_json"])
    .where("h.profile", "=", scope.profile)
    .where("h.entity_kind", "=", "task")
    .where("h.at", ">=", since)
    .where((eb) => {
      const ors = [];
      if (scope.projects === null) ors.push(eb("t.project", "is not", null));
      else if (scope.projects.length > 0) ors.push(eb("t.project", "in", scope.projects));
      if (scope.untagged) ors.push(eb("t.project", "is", null));
      return ors.length > 0 ? eb.or(ors) : sql<boolean>`1 = 0`;
    });
  if (project !== undefined)
    q = q.where((eb) => (project === null ? eb("t.project", "is", null) : eb("t.project", "=", project)));
  return q.orderBy("h.seq", "desc").limit(limit).execute();
}

export async function insertPack(trx: Transaction<ShampooDB>, row: NewContextPack): Promise<void> {
  await trx.insertInto("shampoo_context_packs").values(row).execute();
}

export async function insertRun(trx: Transaction<ShampooDB>, row: ContextRunRow): Promise<void> {
  await trx.insertInto("shampoo_context_runs").values(row).execute();
}
