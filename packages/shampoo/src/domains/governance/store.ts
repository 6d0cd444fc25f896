import { type Kysely, type RawBuilder, sql, type Transaction } from "kernel";
import { projectCondition, type Scope } from "../../access/caller.ts";
import type { Engine } from "../../platform/engine.ts";
import type { ShampooDB } from "../../store/schema.ts";
import type { ChunkRow, ClaimRow, FactRow, FactVersionRow, IssueRow, QuestionRow } from "./schema/tables.ts";

/**
 * Context governance queries. Scope lives in the WHERE clause (profile, then the project grants
 * on the row's project), so a row the caller may not see is never loaded: missing and foreign
 * read the same.
 */
type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
type Trx = Transaction<ShampooDB>;

// ------------------------------------------------------------------ chunks and questions

export function chunks(db: Db, scope: Scope) {
  return db
    .selectFrom("governance_chunks")
    .where("governance_chunks.profile", "=", scope.profile)
    .where(projectCondition(scope, "governance_chunks.project"));
}

export async function chunkById(db: Db, scope: Scope, id: string): Promise<ChunkRow | undefined> {
  return chunks(db, scope).selectAll().where("chunk_id", "=", id).executeTakeFirst();
}

/** Not scoped: called only after the source task was read through its own scoped query. */
export async function chunkBySource(db: Db, profile: string, kind: string, ref: string): Promise<ChunkRow | undefined> {
  return db
    .selectFrom("governance_chunks")
    .selectAll()
    .where("profile", "=", profile)
    .where("source_kind", "=", kind)
    .where("source_ref", "=", ref)
    .executeTakeFirst();
}

export async function chunksInStates(db: Db, scope: Scope, states: string[], limit: number): Promise<ChunkRow[]> {
  return chunks(db, scope)
    .selectAll()
    .where("state", "in", states)
    .orderBy("updated_at", "desc")
    .orderBy("chunk_id")
    .limit(limit)
    .execute();
}

export async function putChunk(trx: Trx, row: ChunkRow, isNew: boolean): Promise<void> {
  if (isNew) await trx.insertInto("governance_chunks").values(row).execute();
  else {
    const { chunk_id, profile: _p, ...set } = row;
    await trx.updateTable("governance_chunks").set(set).where("chunk_id", "=", chunk_id).execute();
  }
}

export async function annotationExists(db: Db, chunkId: string, kind: string, hash: string): Promise<boolean> {
  const r = await db
    .selectFrom("governance_annotations")
    .select("annotation_id")
    .where("chunk_id", "=", chunkId)
    .where("kind", "=", kind)
    .where("source_hash", "=", hash)
    .executeTakeFirst();
  return r !== undefined;
}

export async function openQuestionsOf(db: Db, chunkId: string): Promise<QuestionRow[]> {
  return db
    .selectFrom("governance_questions")
    .selectAll()
    .where("chunk_id", "=", chunkId)
    .where("status", "=", "open")
    .orderBy("created_at")
    .orderBy("question_id")
    .execute();
}

export async function putQuestion(trx: Trx, row: QuestionRow, isNew: boolean): Promise<void> {
  if (isNew) await trx.insertInto("governance_questions").values(row).execute();
  else {
    const { question_id, profile: _p, ...set } = row;
    await trx.updateTable("governance_questions").set(set).where("question_id", "=", question_id).execute();
  }
}

const PRIORITY_ORDER = sql<number>`CASE q.priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END`;

/** Open questions the caller may see, most urgent first, with their chunk's title. */
export async function visibleOpenQuestions(db: Db, scope: Scope, limit: number) {
  return db
    .selectFrom("governance_questions as q")
    .innerJoin("governance_chunks as c", "c.chunk_id", "q.chunk_id")
    .select(["q.question_id", "q.text", "q.type", "q.priority", "q.chunk_id", "q.created_at", "c.title as chunk_title"])
    .where("q.profile", "=", scope.profile)
    .where("q.status", "=", "open")
    .where(projectCondition(scope, "q.project"))
    .orderBy(PRIORITY_ORDER)
    .orderBy("q.created_at", "desc")
    .orderBy("q.question_id")
    .limit(limit)
    .execute();
}

// ------------------------------------------------------------------ claims and evidence

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

// ------------------------------------------------------------------ facts

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
  if (ids.length === 0) return [];
  return db
    .selectFrom("governance_facts")
    .selectAll()
    .where("profile", "=", profile)
    .where("fact_id", "in", ids)
    .orderBy("fact_id")
    .execute();
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

// ------------------------------------------------------------------ issues

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
