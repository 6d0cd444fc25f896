import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { ClaimRow, EvidenceRow } from "../schema/tables.ts";
import type { Db, Trx } from "./db.ts";

export function claims(db: Db, scope: Scope) {
  return db
    .selectFrom("governance_claims")
    .where("governance_claims.profile", "=", scope.profile)
    .where(projectCondition(scope, "governance_claims.project"));
}

export async function claimById(db: Db, scope: Scope, id: string, lock: boolean): Promise<ClaimRow | undefined> {
  let q = claims(db, scope).selectAll().where("claim_id", "=", id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function candidateByIdentity(db: Db, c: ClaimRow): Promise<ClaimRow | undefined> {
  return db
    .selectFrom("governance_claims")
    .selectAll()
    .where("profile", "=", c.profile)
    .where((eb) => (c.project === null ? eb("project", "is", null) : eb("project", "=", c.project)))
    .where("subject_norm", "=", c.subject_norm)
    .where("predicate", "=", c.predicate)
    .where("object_norm", "=", c.object_norm)
    .where("scope", "=", c.scope)
    .where("status", "=", "candidate")
    .orderBy("created_at")
    .orderBy("claim_id")
    .executeTakeFirst();
}

export async function putClaim(trx: Trx, row: ClaimRow, isNew: boolean): Promise<void> {
  if (isNew) await trx.insertInto("governance_claims").values(row).execute();
  else {
    const { claim_id, profile: _p, ...set } = row;
    await trx.updateTable("governance_claims").set(set).where("claim_id", "=", claim_id).execute();
  }
}

export async function evidenceExists(db: Db, claimId: string, chunkId: string, hash: string): Promise<boolean> {
  const r = await db
    .selectFrom("governance_evidence")
    .select("evidence_id")
    .where("claim_id", "=", claimId)
    .where("chunk_id", "=", chunkId)
    .where("source_hash", "=", hash)
    .executeTakeFirst();
  return r !== undefined;
}

export async function evidenceOf(db: Db, claimId: string) {
  return db
    .selectFrom("governance_evidence")
    .selectAll()
    .where("claim_id", "=", claimId)
    .orderBy("created_at")
    .orderBy("evidence_id")
    .execute();
}

export async function addEvidence(trx: Trx, row: EvidenceRow): Promise<void> {
  await trx.insertInto("governance_evidence").values(row).execute();
}
