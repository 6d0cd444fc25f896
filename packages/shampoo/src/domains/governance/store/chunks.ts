import { sql } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { AnnotationRow, ChunkRow, QuestionRow } from "../schema/tables.ts";
import type { Db, Trx } from "./db.ts";

export function chunks(db: Db, scope: Scope) {
  return db
    .selectFrom("governance_chunks")
    .where("governance_chunks.profile", "=", scope.profile)
    .where(projectCondition(scope, "governance_chunks.project"));
}

/**
 * Not scoped by project: the service re-reads the chunk's source through its own scoped query
 * before acting (service/chunks.ts resolveChunk).
 */
export async function chunkByIdInProfile(db: Db, profile: string, id: string): Promise<ChunkRow | undefined> {
  return db
    .selectFrom("governance_chunks")
    .selectAll()
    .where("profile", "=", profile)
    .where("chunk_id", "=", id)
    .executeTakeFirst();
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

/** A chunk's open questions asked under `project` (a moved chunk leaves its old ones behind). */
export async function openQuestionsOf(db: Db, chunkId: string, project: string | null): Promise<QuestionRow[]> {
  return db
    .selectFrom("governance_questions")
    .selectAll()
    .where("chunk_id", "=", chunkId)
    .where((eb) => (project === null ? eb("project", "is", null) : eb("project", "=", project)))
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

export async function addAnnotation(trx: Trx, row: AnnotationRow): Promise<void> {
  await trx.insertInto("governance_annotations").values(row).execute();
}

/** The visible open tasks and notes without a chunk yet, most recently changed first. */
export async function tasksWithoutChunk(db: Db, scope: Scope, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("shampoo_tasks as t")
    .leftJoin("governance_chunks as c", (j) =>
      j.onRef("c.source_ref", "=", "t.id").onRef("c.profile", "=", "t.profile").on("c.source_kind", "=", "task"),
    )
    .select("t.id")
    .where("t.profile", "=", scope.profile)
    .where(projectCondition(scope, "t.project"))
    .where("t.status", "in", ["not_started", "in_progress"])
    .where("c.chunk_id", "is", null)
    .orderBy("t.updated_at", "desc")
    .orderBy("t.id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** The visible chunks awaiting a human, most recently changed first, with their open questions. */
export async function awaitingChunks(db: Db, scope: Scope, limit: number) {
  return chunks(db, scope)
    .select(["chunk_id", "title", "project", "updated_at"])
    .select((eb) =>
      eb
        .selectFrom("governance_questions as q")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("q.chunk_id", "=", "governance_chunks.chunk_id")
        .where("q.status", "=", "open")
        .as("questions_open"),
    )
    .where("state", "=", "awaiting_human")
    .orderBy("updated_at", "desc")
    .orderBy("chunk_id")
    .limit(limit)
    .execute();
}

/** The first `limit` visible chunks by id (audit_memory's scan). */
export async function chunksById(db: Db, scope: Scope, limit: number): Promise<ChunkRow[]> {
  return chunks(db, scope).selectAll().orderBy("chunk_id").limit(limit).execute();
}

/** The visible chunks not frozen, most recently changed first (a pack's candidates). */
export async function unfrozenChunks(db: Db, scope: Scope, limit: number): Promise<ChunkRow[]> {
  return chunks(db, scope)
    .selectAll()
    .where("state", "!=", "frozen")
    .orderBy("updated_at", "desc")
    .orderBy("chunk_id")
    .limit(limit)
    .execute();
}
