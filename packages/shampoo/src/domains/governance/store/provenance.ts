import { type Caller, projectCondition, type Scope } from "../../../access/caller.ts";
import type { ImpactLinkRow, ProvenanceRow } from "../schema/tables.ts";
import { type Db, inBatches, type Trx } from "./db.ts";

/** Where claims, facts, packs and answers came from, and the impact edges explain_impact walks. */

export async function addProvenance(trx: Trx, row: ProvenanceRow): Promise<void> {
  await trx.insertInto("governance_provenance").values(row).execute();
}

/** The ids of the `targetKind` rows of a profile that have provenance. */
export async function withProvenance(db: Db, profile: string, targetKind: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom("governance_provenance")
    .select("target_id")
    .where("profile", "=", profile)
    .where("target_kind", "=", targetKind)
    .execute();
  return new Set(rows.map((r) => r.target_id));
}

/** Records one impact edge (once: a repeated edge is kept as first written). */
export async function addImpactLink(trx: Trx, row: ImpactLinkRow): Promise<void> {
  await trx
    .insertInto("governance_impact_links")
    .values(row)
    .onConflict((oc) => oc.columns(["profile", "from_kind", "from_id", "to_kind", "to_id"]).doNothing())
    .execute();
}

/** The impact edges leaving the `kind` nodes `ids`. */
export async function edgesFrom(db: Db, profile: string, kind: string, ids: string[]): Promise<ImpactLinkRow[]> {
  return inBatches(ids, (slice) =>
    db
      .selectFrom("governance_impact_links")
      .selectAll()
      .where("profile", "=", profile)
      .where("from_kind", "=", kind)
      .where("from_id", "in", slice)
      .execute(),
  );
}

const SCOPED_TABLE = { chunk: "governance_chunks", claim: "governance_claims", fact: "governance_facts" } as const;
const ID_COL = { chunk: "chunk_id", claim: "claim_id", fact: "fact_id" } as const;

/** Of the chunk, claim or fact `ids`, those in the caller's scope. */
export async function visibleIds(db: Db, scope: Scope, kind: keyof typeof SCOPED_TABLE, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await inBatches(ids, (slice) =>
    db
      .selectFrom(SCOPED_TABLE[kind])
      .select(`${ID_COL[kind]} as id` as never)
      .where("profile", "=", scope.profile)
      .where(projectCondition(scope))
      .where(ID_COL[kind] as never, "in", slice as never)
      .execute(),
  );
  return (rows as unknown as Array<{ id: string }>).map((r) => r.id);
}

/** Of the pack `ids`, those the caller made or whose project is in scope. */
export async function visiblePackIds(db: Db, scope: Scope, caller: Caller, ids: string[]): Promise<string[]> {
  const rows = await inBatches(ids, (slice) =>
    db
      .selectFrom("shampoo_context_packs")
      .select("pack_id")
      .where("profile", "=", scope.profile)
      .where("pack_id", "in", slice)
      .where((eb) => eb.or([eb("created_by", "=", caller.principal), projectCondition(scope)]))
      .execute(),
  );
  return rows.map((r) => r.pack_id);
}

/** Of the session `ids`, those in scope and (unless star) owned by the caller. */
export async function visibleSessionIds(db: Db, scope: Scope, caller: Caller, ids: string[]): Promise<string[]> {
  const rows = await inBatches(ids, (slice) => {
    let q = db
      .selectFrom("shampoo_sessions")
      .select("session_id")
      .where("profile", "=", scope.profile)
      .where("session_id", "in", slice)
      .where(projectCondition(scope));
    if (!caller.star) q = q.where("owner", "=", caller.principal);
    return q.execute();
  });
  return rows.map((r) => r.session_id);
}
