import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { canSee, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, notFound } from "../../../platform/errors.ts";
import { recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import type { AssessContextInput, QueueClarificationInput, RecordHumanAnswerInput } from "../inputs.gen.ts";
import { historyView, questionView } from "../model.ts";
import { assess, type ChunkState, canMove, detectSignals } from "../rules/chunks.ts";
import { awaitingBlock, draftQuestions, MAX_QUESTIONS } from "../rules/questions.ts";
import { sourceHash } from "../rules/text.ts";
import type { ChunkRow, QuestionRow } from "../schema/tables.ts";
import {
  addAnnotation,
  annotationExists,
  chunkByIdInProfile,
  chunkBySource,
  openQuestionsOf,
  putChunk,
  putQuestion,
} from "../store/chunks.ts";
import { addProvenance } from "../store/provenance.ts";
import { recordRun } from "./runs.ts";

/**
 * Chunks are materialized from tasks and notes (the memory SHAMPOO holds): chunk_ref is a chunk
 * id, or the id of a visible task or note, whose chunk is made on first reference from its title,
 * description and notes. A chunk's project is its source's, and it is scoped like it.
 */
export const SOURCE_TASK = "task";

/**
 * Bounds of human answers: one answer at most ANSWER_MAX_BYTES, a chunk's appended answers at
 * most CHUNK_ANSWERS_MAX_BYTES. Every chunk event records the whole row (folding replay_memory
 * rebuilds it), so an unbounded chunk made history quadratic: 40 answers of 20 KB once made an
 * 801 KB chunk and 32 MB of history.
 */
export const ANSWER_MAX_BYTES = 4096;
export const CHUNK_ANSWERS_MAX_BYTES = 16_384;

export function taskText(t: TaskRow): string {
  return [t.title, t.description, t.notes]
    .filter((s): s is string => typeof s === "string" && s.trim() !== "")
    .join("\n\n");
}

export function bodyOf(c: Pick<ChunkRow, "source_text" | "answers_text">): string {
  return c.answers_text === "" ? c.source_text : `${c.source_text}\n\n${c.answers_text}`;
}

function newChunk(w: WriteScope, t: TaskRow): ChunkRow {
  const text = taskText(t);
  const at = iso(w.now);
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
    created_at: at,
    updated_at: at,
    assessed_at: null,
    last_event_id: "",
  };
}

/** Writes a chunk change with its event; returns the stored row. */
export async function saveChunk(
  w: WriteScope,
  old: ChunkRow | null,
  row: ChunkRow,
  action: string,
  payload?: unknown,
): Promise<ChunkRow> {
  row.last_event_id = await recordChange(w, {
    kind: "chunk",
    id: row.chunk_id,
    action,
    old,
    next: row,
    view: historyView,
    payload,
  });
  await putChunk(w.trx, row, old === null);
  return row;
}

/**
 * The chunk a ref names, acted on under its source's current project and the caller's grants,
 * else "chunk not found". Every tool that uses a chunk comes through here: a task-backed chunk's
 * source is re-read (through the task's own scoped query) before anything else, so a chunk whose
 * task moved to a project the caller cannot see is not found, and one whose task moved into the
 * caller's project is first resynced into it (syncChunk). A chunk is never acted on under a
 * project it no longer belongs to.
 */
export async function resolveChunk(w: WriteScope, ref: string): Promise<ChunkRow> {
  const scope = scopeOf(w.ctx.caller);
  const byId = await chunkByIdInProfile(w.trx, w.ctx.caller.profile, ref);
  if (byId) {
    if (byId.source_kind !== SOURCE_TASK) {
      if (!canSee(w.ctx.caller, byId.project)) throw notFound("chunk");
      return byId;
    }
    const task = await getTask(w.trx, scope, byId.source_ref);
    if (!task) throw notFound("chunk");
    return syncChunk(w, byId, task);
  }
  const task = await getTask(w.trx, scope, ref);
  if (!task) throw notFound("chunk");
  const existing = await chunkBySource(w.trx, w.ctx.caller.profile, SOURCE_TASK, task.id);
  if (existing) return syncChunk(w, existing, task);
  return saveChunk(w, null, newChunk(w, task), "materialize", { source_kind: SOURCE_TASK, source_ref: task.id });
}

/**
 * Re-reads a chunk's source task; a changed title, text or project is written with its event.
 * A move to another project leaves the answers behind: they were written under the old project
 * (its questions stay there, its history and provenance keep them), and the chunk starts over in
 * the new one from its source text (state `new`).
 */
export async function syncChunk(w: WriteScope, c: ChunkRow, task?: TaskRow): Promise<ChunkRow> {
  if (c.source_kind !== SOURCE_TASK) return c;
  const t = task ?? (await getTask(w.trx, scopeOf(w.ctx.caller), c.source_ref));
  if (!t) return c;
  const text = taskText(t);
  if (text === c.source_text && t.title === c.title && t.project === c.project) return c;
  const moved = t.project !== c.project;
  const row: ChunkRow = { ...c, title: t.title, source_text: text, project: t.project, updated_at: iso(w.now) };
  if (moved) Object.assign(row, { answers_text: "", state: "new", state_hash: null, policy: null });
  row.source_hash = sourceHash(bodyOf(row));
  return saveChunk(w, c, row, "resync", moved ? { source_ref: t.id, moved_from: c.project } : { source_ref: t.id });
}

/** assess_context: assesses one chunk (assessChunk) and records the run. */
export function assessContext(ctx: ShampooCtx, a: AssessContextInput) {
  return write(ctx, async (w) => {
    const r = await assessChunk(
      w,
      a.chunk_ref,
      a.force === true,
      typeof a.session_id === "string" ? a.session_id : null,
    );
    await recordRun(w, "assess_context", a, r, { session_id: null });
    return r;
  });
}

/**
 * Re-reads a task-backed chunk's source, scores it (rules/chunks.ts assess) and writes a changed
 * assessment with its event, plus one annotation per signal and source hash.
 */
export async function assessChunk(w: WriteScope, ref: string, force: boolean, sessionId: string | null) {
  const at = iso(w.now);
  const old = await resolveChunk(w, ref);
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
      assessed_at: at,
    };
    const changed = ["state", "state_hash", "policy", "materiality", "uncertainty", "signals_json"].some(
      (k) => row[k as keyof ChunkRow] !== old[k as keyof ChunkRow],
    );
    // session_id is attribution only (catalog): recorded in the event payload, never checked.
    if (changed) await saveChunk(w, old, { ...row, updated_at: at }, "assess", { session_id: sessionId, force });
    for (const s of a.signals) {
      const kind = `signal:${s.kind}`;
      if (await annotationExists(w.trx, old.chunk_id, kind, old.source_hash)) continue;
      await addAnnotation(w.trx, {
        annotation_id: randomUUID(),
        profile: old.profile,
        chunk_id: old.chunk_id,
        kind,
        body: `${s.kind}: ${s.count} marker${s.count === 1 ? "" : "s"} (${s.markers.join(", ")})`,
        source_hash: old.source_hash,
        created_at: at,
      });
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

/**
 * Up to five typed open questions per chunk; a type already open is not asked twice. Frozen
 * chunks are refused ("cannot queue"); every other state moves to awaiting_human.
 */
export function queueClarification(ctx: ShampooCtx, a: QueueClarificationInput) {
  return write(ctx, async (w) => {
    const r = await askQuestions(w, a.chunk_ref, typeof a.max_questions === "number" ? a.max_questions : MAX_QUESTIONS);
    await recordRun(w, "queue_clarification", a, {
      chunk_id: r.chunk_id,
      state: r.state,
      questions: r.questions.length,
    });
    return r;
  });
}

async function askQuestions(w: WriteScope, ref: string, max: number) {
  const at = iso(w.now);
  const old = await resolveChunk(w, ref);
  if (old.state === "frozen") throw fail("cannot_queue", "cannot queue clarification: chunk is frozen");
  const open = await openQuestionsOf(w.trx, old.chunk_id, old.project);
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
      created_at: at,
      last_event_id: "",
    };
    q.last_event_id = await recordChange(w, {
      kind: "question",
      id: q.question_id,
      action: "create",
      old: null,
      next: q,
      view: historyView,
    });
    await putQuestion(w.trx, q, true);
    created.push(q);
  }
  const all = [...open, ...created];
  const block = awaitingBlock(all.map(questionView));
  await addAnnotation(w.trx, {
    annotation_id: randomUUID(),
    profile: old.profile,
    chunk_id: old.chunk_id,
    kind: "awaiting_human",
    body: block,
    source_hash: old.source_hash,
    created_at: at,
  });
  let state = old.state;
  if (canMove(old.state as ChunkState, "queue", "awaiting_human") && old.state !== "awaiting_human") {
    state = "awaiting_human";
    await saveChunk(
      w,
      old,
      { ...old, state, state_hash: old.source_hash, policy: "await_human", updated_at: at },
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
export function recordHumanAnswer(ctx: ShampooCtx, a: RecordHumanAnswerInput) {
  const answer = a.answer_text;
  if (answer.trim() === "") throw fail("validation", "answer_text must not be blank");
  const bytes = Buffer.byteLength(answer.trim());
  if (bytes > ANSWER_MAX_BYTES) throw fail("validation", `answer_text is ${bytes} bytes; at most ${ANSWER_MAX_BYTES}`);
  return write(ctx, async (w) => {
    const r = await answerChunk(w, a.chunk_ref, answer, typeof a.question_id === "string" ? a.question_id : undefined);
    await recordRun(w, "record_human_answer", a, r);
    return r;
  });
}

async function answerChunk(w: WriteScope, ref: string, answer: string, questionId: string | undefined) {
  const at = iso(w.now);
  const old = await resolveChunk(w, ref);
  if (old.state === "frozen") throw fail("cannot_record", "cannot record answer: chunk is frozen");
  const open = await openQuestionsOf(w.trx, old.chunk_id, old.project);
  const addressed = questionId === undefined ? open : open.filter((q) => q.question_id === questionId);
  if (questionId !== undefined && addressed.length === 0) throw notFound("question");
  if (addressed.length === 0)
    throw fail("invalid_state", "chunk has no open question; queue_clarification asks one first");
  for (const q of addressed) {
    const row: QuestionRow = {
      ...q,
      status: "answered",
      answer_text: answer,
      answered_by: w.ctx.caller.principal,
      answered_at: at,
    };
    row.last_event_id = await recordChange(w, {
      kind: "question",
      id: q.question_id,
      action: "answer",
      old: q,
      next: row,
      view: historyView,
    });
    await putQuestion(w.trx, row, false);
  }
  const to = addressed.length === 1 ? ` to ${addressed[0]?.type} question ${addressed[0]?.question_id}` : "";
  const entry = `[answer ${at} by ${w.ctx.caller.principal}${to}] ${answer.trim()}`;
  const answers = old.answers_text === "" ? entry : `${old.answers_text}\n\n${entry}`;
  if (Buffer.byteLength(answers) > CHUNK_ANSWERS_MAX_BYTES)
    throw fail(
      "invalid_state",
      `chunk answers are full: ${Buffer.byteLength(old.answers_text)} of ${CHUNK_ANSWERS_MAX_BYTES} bytes used; put longer material in the task itself`,
    );
  const row: ChunkRow = { ...old, answers_text: answers, updated_at: at };
  row.source_hash = sourceHash(bodyOf(row));
  const next: ChunkState =
    old.state === "awaiting_human" || old.state === "uncertain" ? "enrichable" : (old.state as ChunkState);
  if (!canMove(old.state as ChunkState, "answer", next)) throw new Error(`illegal chunk move ${old.state} → ${next}`);
  row.state = next;
  if (next !== old.state) row.state_hash = row.source_hash;
  await saveChunk(w, old, row, "answer", { question_ids: addressed.map((q) => q.question_id) });
  await addProvenance(w.trx, {
    provenance_id: randomUUID(),
    profile: old.profile,
    target_kind: "chunk",
    target_id: old.chunk_id,
    source_kind: "human_answer",
    source_ref: w.ctx.caller.principal,
    detail_json: JSON.stringify({ question_ids: addressed.map((q) => q.question_id), answer }),
    created_at: at,
  });
  return {
    chunk_id: old.chunk_id,
    new_state: next,
    previous_state: old.state,
    questions_resolved: addressed.length,
    source_hash_updated: row.source_hash !== old.source_hash,
  };
}
