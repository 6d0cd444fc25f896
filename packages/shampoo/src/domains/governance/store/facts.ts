import { type RawBuilder, sql } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ClaimRow, DecisionRow, FactRow, FactVersionRow } from "../schema/tables.ts";
import { type Db, inBatches, type Trx } from "./db.ts";

export function facts(db: Db, scope: Scope) {
  return db
    .selectFrom("governance_facts")
    .where("governance_facts.profile", "=", scope.profile)
    .where(projectCondition(scope, "governance_facts.project"));
}

/** One visible fact; `lock` takes its row lock on PostgreSQL (SQLite: BEGIN IMMEDIATE serialises). */
export async function factById(db: Db, scope: Scope, id: string, lock: boolean): Promise<FactRow | undefined> {
  let q = facts(db, scope).selectAll().where("fact_id", "=", id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Live facts with the same project, subject, predicate and scope (structural contradiction candidates). */
export async function liveByKey(db: Db, f: FactRow): Promise<FactRow[]> {
  return db
    .selectFrom("governance_facts")
    .selectAll()
    .where("profile", "=", f.profile)
    .where((eb) => (f.project === null ? eb("project", "is", null) : eb("project", "=", f.project)))
    .where("subject_norm", "=", f.subject_norm)
    .where("predicate", "=", f.predicate)
    .where("scope", "=", f.scope)
    .where("status", "=", "live")
    .where("fact_id", "!=", f.fact_id)
    .orderBy("fact_id")
    .execute();
}

export async function factsByIds(db: Db, profile: string, ids: string[]): Promise<FactRow[]> {
  const rows = await inBatches(ids, (slice) =>
    db
      .selectFrom("governance_facts")
      .selectAll()
      .where("profile", "=", profile)
      .where("fact_id", "in", slice)
      .execute(),
  );
  return rows.sort((a, b) => (a.fact_id < b.fact_id ? -1 : a.fact_id > b.fact_id ? 1 : 0));
}

/**
 * Compare-and-swap: the update applies only if the row still carries the event the caller read
 * (a concurrent change in between makes it a no-op, reported as false).
 */
export async function casFact(trx: Trx, row: FactRow, expectedEvent: string): Promise<boolean> {
  const { fact_id, profile: _p, ...set } = row;
  const r = await trx
    .updateTable("governance_facts")
    .set(set)
    .where("fact_id", "=", fact_id)
    .where("last_event_id", "=", expectedEvent)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function closeVersion(trx: Trx, profile: string, factId: string, at: string): Promise<void> {
  await trx
    .updateTable("governance_fact_versions")
    .set({ known_to: at })
    .where("profile", "=", profile)
    .where("fact_id", "=", factId)
    .where("known_to", "is", null)
    .execute();
}

/**
 * "As known at K, true at W" in SQL: the visible facts whose version held at K says they held at
 * W. The same rule as rules/facts.ts trueAt (ISO text compares in time order).
 */
export async function trueAtRows(db: Db, scope: Scope, knownAt: string, validAt: string) {
  return db
    .selectFrom("governance_fact_versions as v")
    .innerJoin("governance_facts as f", "f.fact_id", "v.fact_id")
    .select(["f.fact_id", "f.subject", "f.predicate", "f.object", "f.scope", "v.status", "v.valid_from", "v.valid_to"])
    .where("v.profile", "=", scope.profile)
    .where(projectCondition(scope, "f.project"))
    .where("v.known_from", "<=", knownAt)
    .where((eb) => eb.or([eb("v.known_to", "is", null), eb("v.known_to", ">", knownAt)]))
    .where("v.valid_from", "<=", validAt)
    .where((eb) => eb.or([eb("v.valid_to", "is", null), eb("v.valid_to", ">", validAt)]))
    .orderBy("f.fact_id")
    .execute();
}

export async function versionsOf(db: Db, profile: string, factId: string): Promise<FactVersionRow[]> {
  return db
    .selectFrom("governance_fact_versions")
    .selectAll()
    .where("profile", "=", profile)
    .where("fact_id", "=", factId)
    .orderBy("known_from")
    .orderBy("version_id")
    .execute();
}

/**
 * The rows of `table` (facts or claims, already scoped and filtered by the caller's query) whose
 * normalised "subject object" contains one of `terms`, or is contained in one: the relevance test
 * of service/packs.ts, in SQL, so a targeted pack finds the rows that name its target however old
 * they are (a newest-first LIMIT before the test lost every relevant row past it).
 */
export function naming(engine: Engine, terms: string[]): RawBuilder<boolean> {
  const text = sql`(subject_norm || ' ' || object_norm)`;
  const has = (hay: unknown, needle: unknown) =>
    engine.dialect === "postgres"
      ? sql<boolean>`strpos(${hay}, ${needle}) > 0`
      : sql<boolean>`instr(${hay}, ${needle}) > 0`;
  const ors = terms.flatMap((t) => [has(text, t), has(t, text)]);
  return ors.length > 0 ? sql<boolean>`(${sql.join(ors, sql` OR `)})` : sql<boolean>`1 = 0`;
}

export async function insertFact(trx: Trx, row: FactRow): Promise<void> {
  await trx.insertInto("governance_facts").values(row).execute();
}

export async function addFactVersion(trx: Trx, row: FactVersionRow): Promise<void> {
  await trx.insertInto("governance_fact_versions").values(row).execute();
}

export async function addDecision(trx: Trx, row: DecisionRow): Promise<void> {
  await trx.insertInto("governance_decisions").values(row).execute();
}

/** The oldest live fact identical to a claim (project, subject, predicate, object, scope). */
export async function liveFactLike(db: Db, claim: ClaimRow): Promise<FactRow | undefined> {
  return db
    .selectFrom("governance_facts")
    .selectAll()
    .where("profile", "=", claim.profile)
    .where((eb) => (claim.project === null ? eb("project", "is", null) : eb("project", "=", claim.project)))
    .where("subject_norm", "=", claim.subject_norm)
    .where("predicate", "=", claim.predicate)
    .where("object_norm", "=", claim.object_norm)
    .where("scope", "=", claim.scope)
    .where("status", "=", "live")
    .orderBy("recorded_at")
    .orderBy("fact_id")
    .executeTakeFirst();
}

/** The visible facts changed since `since` (ISO), newest first (enrich_context deep). */
export async function factIdsChangedSince(db: Db, scope: Scope, since: string, limit: number): Promise<string[]> {
  const rows = await facts(db, scope)
    .select("fact_id")
    .where("updated_at", ">=", since)
    .orderBy("updated_at", "desc")
    .orderBy("fact_id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.fact_id);
}

/** The visible facts changed since `since` (ISO), newest first, as resume_context lists them. */
export async function changedFacts(db: Db, scope: Scope, since: string, limit: number) {
  return facts(db, scope)
    .select([
      "fact_id",
      "subject",
      "predicate",
      "object",
      "scope",
      "status",
      "valid_from",
      "valid_to",
      "superseded_by",
      "updated_at",
    ])
    .where("updated_at", ">=", since)
    .orderBy("updated_at", "desc")
    .orderBy("fact_id")
    .limit(limit)
    .execute();
}

/** The first `limit` visible facts by id (audit_memory's scan). */
export async function factsById(db: Db, scope: Scope, limit: number): Promise<FactRow[]> {
  return facts(db, scope).selectAll().orderBy("fact_id").limit(limit).execute();
}

/**
 * Whether a fact's source claim named no date: its valid_from is then its extraction time
 * (stageClaim), a stand-in for an unknown start, not a stated one.
 */
export async function undatedClaim(db: Db, profile: string, claimId: string | null): Promise<boolean> {
  if (claimId === null) return false;
  const c = await db
    .selectFrom("governance_claims")
    .select(["valid_from", "created_at"])
    .where("profile", "=", profile)
    .where("claim_id", "=", claimId)
    .executeTakeFirst();
  return c !== undefined && c.valid_from === c.created_at;
}
