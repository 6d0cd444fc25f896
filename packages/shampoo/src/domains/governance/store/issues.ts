import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { IssueRow } from "../schema/tables.ts";
import type { Db, Trx } from "./db.ts";

export async function issueByKey(db: Db, profile: string, kind: string, targetKind: string, targetId: string) {
  return db
    .selectFrom("governance_issues")
    .selectAll()
    .where("profile", "=", profile)
    .where("kind", "=", kind)
    .where("target_kind", "=", targetKind)
    .where("target_id", "=", targetId)
    .executeTakeFirst();
}

export async function putIssue(trx: Trx, row: IssueRow, isNew: boolean): Promise<void> {
  if (isNew) await trx.insertInto("governance_issues").values(row).execute();
  else {
    const { issue_id, profile: _p, ...set } = row;
    await trx.updateTable("governance_issues").set(set).where("issue_id", "=", issue_id).execute();
  }
}

export function issues(db: Db, scope: Scope) {
  return db
    .selectFrom("governance_issues")
    .where("governance_issues.profile", "=", scope.profile)
    .where(projectCondition(scope, "governance_issues.project"));
}

/** One page of the visible issues (status "all" for every status), oldest first, and their total. */
export async function issuePage(
  db: Db,
  scope: Scope,
  page: { status: string; kind?: string; limit: number; offset: number },
): Promise<{ rows: IssueRow[]; total: number }> {
  let q = issues(db, scope);
  if (page.status !== "all") q = q.where("status", "=", page.status);
  if (page.kind !== undefined) q = q.where("kind", "=", page.kind);
  const total = Number((await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
  const rows = await q
    .selectAll()
    .orderBy("first_seen_at")
    .orderBy("issue_id")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { rows, total };
}

/** The visible open issues, by id. */
export async function openIssuesById(db: Db, scope: Scope): Promise<IssueRow[]> {
  return issues(db, scope).selectAll().where("status", "=", "open").orderBy("issue_id").execute();
}
