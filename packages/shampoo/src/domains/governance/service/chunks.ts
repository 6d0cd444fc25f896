import { randomUUID } from "node:crypto";
import { fail, notFound } from "../../../platform/errors.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import { assess, type ChunkState, canMove, detectSignals } from "../rules/chunks.ts";
import { awaitingBlock, draftQuestions, MAX_QUESTIONS } from "../rules/questions.ts";
import { sourceHash } from "../rules/text.ts";
import type { ChunkRow, QuestionRow } from "../schema/tables.ts";
import { annotationExists, chunkById, chunkBySource, openQuestionsOf, putChunk, putQuestion } from "../store.ts";
import { event, type W } from "./write.ts";

/**
 * Chunks are materialized from tasks and notes (the memory SHAMPOO holds): chunk_ref is a chunk
 * id, or the id of a visible task or note, whose chunk is made on first reference from its title,
 * description and notes. A chunk's project is its source's, and it is scoped like it.
 */
export const SOURCE_TASK = "task";

export function taskText(t: TaskRow): string {
  return [t.title, t.description, t.notes]
    .filter((s): s is string => typeof s === "string" && s.trim() !== "")
    .join("\n\n");
}

export function bodyOf(c: Pick<ChunkRow, "source_text" | "answers_text">): string {
  return c.answers_text === "" ? c.source_text : `${c.source_text}\n\n${c.answers_text}`;
}

function newChunk(w: W, t: TaskRow): ChunkRow {
  const text = taskText(t);
  return {
    chunk_id: randomUUID(),
    profile: w.ctx.caller.profile,
    project: t.project,
    source_kind: SOURCE_TASK,
    source_ref: t.id,
    title: t.title,
    source_text: text,
    answers_text: "",
    source_hash: sourceHash(text),
    state: "new",
    state_hash: null,
    policy: null,
    materiality: 0,
    uncertainty: 0,
    signals_json: "[]",
    created_at: w.at,
    updated_at: w.at,
    assessed_at: null,
    last_event_id: "",
  };
}

/** Writes a chunk change with its event; returns the stored row. */
export async function saveChunk(w: W, old: ChunkRow | null, row: ChunkRow, action: string, payload?: unknown) {
  row.last_event_id = await event(w, "chunk", row.chunk_id, action, old, row, payload);
  await putChunk(w.trx, row, old === null);
  return row;
}

/**
 * The chunk a ref names, visible to the caller, or "chunk not found". `sync` re-reads a
 * task-backed chunk's source (title, text, project) from its task first — the task
 * materialization assess_context and audit_memory keep current.
 */
export async function resolveChunk(w: W, ref: string, sync: boolean): Promise<ChunkRow> {
  const byId = await chunkById(w.trx, w.scope, ref);
  if (byId) return sync ? syncChunk(w, byId) : byId;
  const task = await getTask(w.trx, w.scope, ref);
  if (!task) throw notFound("chunk");
  const existing = await chunkBySource(w.trx, w.ctx.caller.profile, SOURCE_TASK, task.id);
  if (existing) return sync ? syncChunk(w, existing, task) : existing;
  return saveChunk(w, null, newChunk(w, task), "materialize", { source_kind: SOURCE_TASK, source_ref: task.id });
}

/** Re-reads a chunk's source task; a changed title, text or project is written with its event. */
export async function syncChunk(w: W, c: ChunkRow, task?: TaskRow): Promise<ChunkRow> {
  if (c.source_kind !== SOURCE_TASK) return c;
  const t = task ?? (await getTask(w.trx, w.scope, c.source_ref));
  if (!t) return c;
  const text = taskText(t);
  if (text === c.source_text && t.title === c.title && t.project === c.project) return c;
  const row: ChunkRow = { ...c, title: t.title, source_text: text, project: t.project, updated_at: w.at };
  row.source_hash = sourceHash(bodyOf(row));
  return saveChunk(w, c, row, "resync", { source_ref: t.id });
}

export async function assessChunk(w: W, ref: string, force: boolean, sessionId: string | null) {
  const old = await resolveChunk(w, ref, true);
  const a = assess({
    state: old.state as ChunkState,
    body: bodyOf(old),
    hash: old.source_hash,
    stateHash: old.state_hash,
    force,
    last: { materiality: old.materiality, uncertainty: old.uncertainty },
  });
  let annotations = 0;
  if (a.assessed) {
    const row: ChunkRow = {
      ...old,
      state: a.state,
      state_hash: a.state === old.state ? old.state_hash : old.source_hash,
      policy: a.policy,
      materiality: a.materiality,
      uncertainty: a.uncertainty,
      signals_json: JSON.stringify(a.signals),
      assessed_at: w.at,
    };
    const changed = ["state", "state_hash", "policy", "materiality", "uncertainty", "signals_json"].some(
      (k) => row[k as keyof ChunkRow] !== old[k as keyof ChunkRow],
    );
    // session_id is attribution only (catalog): recorded in the event payload, never checked.
    if (changed) await saveChunk(w, old, { ...row, updated_at: w.at }, "assess", { session_id: sessionId, force });
    for (const s of a.signals) {
      const kind = `signal:${s.kind}`;
      if (await annotationExists(w.trx, old.chunk_id, kind, old.source_hash)) continue;
      await w.trx
        .insertInto("governance_annotations")
        .values({
          annotation_id: randomUUID(),
          profile: old.profile,
          chunk_id: old.chunk_id,
          kind,
          body: `${s.kind}: ${s.count} marker${s.count === 1 ? "" : "s"} (${s.markers.join(", ")})`,
          source_hash: old.source_hash,
          created_at: w.at,
        })
        .execute();
      annotations++;
    }
  }
  const result = {
    chunk_id: old.chunk_id,
    state: a.state,
    previous_state: a.previous_state,
    policy: a.policy,
    materiality: a.materiality,
    uncertainty: a.uncertainty,
    should_skip: a.should_skip,
    skip_reason: a.skip_reason,
    signals_detected: a.signals,
    annotations_created: annotations,
  };
  return result;
}

export function questionView(q: Pick<QuestionRow, "question_id" | "text" | "type" | "priority">) {
  return { id: q.question_id, text: q.text, type: q.type, priority: q.priority };
}

/**
 * Up to five typed open questions per chunk; a type already open is not asked twice. Frozen
 * chunks are refused ("cannot queue"); every other state moves to awaiting_human.
 */
export async function queueClarification(w: W, ref: string, max: number) {
  const old = await resolveChunk(w, ref, false);
  if (old.state === "frozen") throw fail("cannot_queue", "cannot queue clarification: chunk is frozen");
  const open = await openQuestionsOf(w.trx, old.chunk_id);
  const room = Math.max(0, MAX_QUESTIONS - open.length);
  const drafts = draftQuestions(
    old.title,
    old.project,
    detectSignals(bodyOf(old)),
    new Set(open.map((q) => q.type)),
    Math.min(room, max),
  );
  const created: QuestionRow[] = [];
  for (const d of drafts) {
    const q: QuestionRow = {
      question_id: randomUUID(),
      profile: old.profile,
      project: old.project,
      chunk_id: old.chunk_id,
      type: d.type,
      text: d.text,
      priority: d.priority,
      status: "open",
      answer_text: null,
      answered_by: null,
      answered_at: null,
      created_at: w.at,
      last_event_id: "",
    };
    q.last_event_id = await event(w, "question", q.question_id, "create", null, q);
    await putQuestion(w.trx, q, true);
    created.push(q);
  }
  const all = [...open, ...created];
  const block = awaitingBlock(all.map(questionView));
  await w.trx
    .insertInto("governance_annotations")
    .values({
      annotation_id: randomUUID(),
      profile: old.profile,
      chunk_id: old.chunk_id,
      kind: "awaiting_human",
      body: block,
      source_hash: old.source_hash,
      created_at: w.at,
    })
    .execute();
  let state = old.state;
  if (canMove(old.state as ChunkState, "queue", "awaiting_human") && old.state !== "awaiting_human") {
    state = "awaiting_human";
    await saveChunk(
      w,
      old,
      { ...old, state, state_hash: old.source_hash, policy: "await_human", updated_at: w.at },
      "queue",
      {
        questions: created.map((q) => q.question_id),
      },
    );
  }
  return { chunk_id: old.chunk_id, state, questions: all.map(questionView), awaiting_human_block: block };
}

/**
 * Marks the addressed open questions answered (one with question_id, all without), appends the
 * answer to the chunk body (a new source hash: the chunk is assessable again), and moves
 * awaiting_human or uncertain chunks back to enrichable. Frozen chunks refuse ("cannot record").
 */
export async function recordHumanAnswer(w: W, ref: string, answer: string, questionId: string | undefined) {
  const old = await resolveChunk(w, ref, false);
  if (old.state === "frozen") throw fail("cannot_record", "cannot record answer: chunk is frozen");
  const open = await openQuestionsOf(w.trx, old.chunk_id);
  const addressed = questionId === undefined ? open : open.filter((q) => q.question_id === questionId);
  if (questionId !== undefined && addressed.length === 0) throw notFound("question");
  for (const q of addressed) {
    const row: QuestionRow = {
      ...q,
      status: "answered",
      answer_text: answer,
      answered_by: w.ctx.caller.principal,
      answered_at: w.at,
    };
    row.last_event_id = await event(w, "question", q.question_id, "answer", q, row);
    await putQuestion(w.trx, row, false);
  }
  const to = addressed.length === 1 ? ` to ${addressed[0]?.type} question ${addressed[0]?.question_id}` : "";
  const entry = `[answer ${w.at} by ${w.ctx.caller.principal}${to}] ${answer.trim()}`;
  const row: ChunkRow = {
    ...old,
    answers_text: old.answers_text === "" ? entry : `${old.answers_text}\n\n${entry}`,
    updated_at: w.at,
  };
  row.source_hash = sourceHash(bodyOf(row));
  const next: ChunkState =
    old.state === "awaiting_human" || old.state === "uncertain" ? "enrichable" : (old.state as ChunkState);
  if (!canMove(old.state as ChunkState, "answer", next)) throw new Error(`illegal chunk move ${old.state} → ${next}`);
  row.state = next;
  if (next !== old.state) row.state_hash = row.source_hash;
  await saveChunk(w, old, row, "answer", { question_ids: addressed.map((q) => q.question_id) });
  await w.trx
    .insertInto("governance_provenance")
    .values({
      provenance_id: randomUUID(),
      profile: old.profile,
      target_kind: "chunk",
      target_id: old.chunk_id,
      source_kind: "human_answer",
      source_ref: w.ctx.caller.principal,
      detail_json: JSON.stringify({ question_ids: addressed.map((q) => q.question_id), answer }),
      created_at: w.at,
    })
    .execute();
  return {
    chunk_id: old.chunk_id,
    new_state: next,
    previous_state: old.state,
    questions_resolved: addressed.length,
    source_hash_updated: row.source_hash !== old.source_hash,
  };
}
