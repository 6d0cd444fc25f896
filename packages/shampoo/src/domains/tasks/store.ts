import { type Kysely, sql, type Transaction } from "kernel";
import type { Scope } from "../../access/caller.ts";
import type { ShampooDB, TaskRow } from "../../store/schema.ts";

/**
 * Task queries. Scope filters live here, in the WHERE clause, so that a row the caller may not
 * see is never loaded: missing and foreign are the same empty result (no existence oracle).
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** WHERE profile = … AND (project IN grants OR (star AND project IS NOT NULL) OR (untagged AND project IS NULL)). */
export function scoped(db: Db, scope: Scope) {
  return db
    .selectFrom("shampoo_tasks")
    .where("profile", "=", scope.profile)
    .where((eb) => {
      const ors = [];
      if (scope.projects === null) ors.push(eb("project", "is not", null));
      else if (scope.projects.length > 0) ors.push(eb("project", "in", scope.projects));
      if (scope.untagged) ors.push(eb("project", "is", null));
      return ors.length > 0 ? eb.or(ors) : sql<boolean>`1 = 0`;
    });
}

/** One visible task. `lockForUpdate` takes a row lock on PostgreSQL (SQLite serialises writers). */
export async function getTask(
  db: Db,
  scope: Scope,
  id: string,
  lockForUpdate: "postgres" | false = false,
): Promise<TaskRow | undefined> {
  let q = scoped(db, scope).selectAll().where("id", "=", id);
  if (lockForUpdate === "postgres") q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function insertTask(trx: Transaction<ShampooDB>, row: TaskRow): Promise<void> {
  await trx.insertInto("shampoo_tasks").values(row).execute();
}

export async function updateTaskRow(trx: Transaction<ShampooDB>, id: string, set: Partial<TaskRow>): Promise<void> {
  await trx.updateTable("shampoo_tasks").set(set).where("id", "=", id).execute();
}
