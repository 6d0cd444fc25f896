import { randomUUID } from "node:crypto";
import { type DomainError, iso } from "kernel";
import { canWrite, projectValue, scopeDenied, scopeOf } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import { fail } from "../../platform/errors.ts";
import { read, type WriteScope, write } from "../../platform/write.ts";
import { type Continuity, resumeContinuity } from "./hooks.ts";
import {
  blank,
  filesValue,
  malformedSession,
  parseSessionId,
  recallCount,
  sessionEventView,
  sessionView,
} from "./model.ts";
import { buildHandoff, HANDOFF_TOKEN_BUDGET, PACK_EVENTS, PACK_TASKS, RECENT_DAYS } from "./pack.ts";
import type { NewContextPack, SessionRow } from "./schema.ts";
import {
  getSession,
  insertPack,
  insertRun,
  insertSession,
  openChildCounts,
  openTasks,
  recallSessions,
  recentTaskEvents,
  updateSession,
} from "./store.ts";

/**
 * Session rules. Ownership: a session belongs to the principal that created it. session_save
 * and resume_context let star callers act on other principals' sessions (the catalog's star
 * bypass); close_session never does ("only entries owned by the caller's own principal flip").
 * Every path also needs the session's project inside the caller's grants. Shape checks (UUID
 * form, supplied project) run before any lookup, so they answer alike for any session. Writes are
 * platform write()s (the change and its event commit together; the session row is locked where
 * the engine has row locks), session_recall one read() snapshot.
 */

const DAY_MS = 86_400_000;

/** The catalog's denial: foreign, invisible and (for updates) missing sessions read the same. */
export function sessionNotFound(): DomainError {
  return fail("not_found", "session not found");
}

/** A non-empty string, or undefined: empty and null supply nothing. */
function supplied(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

async function saveEvent(w: WriteScope, old: SessionRow | null, row: SessionRow, action: string, payload: unknown) {
  return w.event({
    entityKind: "session",
    entityId: row.session_id,
    action,
    old: old ? sessionEventView(old) : null,
    new: sessionEventView(row),
    payload,
    parentEventId: old?.last_event_id ?? null,
  });
}

/**
 * Create (no id given) or update (an id given) in one transaction. An explicit id names a
 * session to update: one no session holds, one held by another principal (without star), one
 * whose project left the grants, and one in another profile all answer "session not found", the
 * same bytes, and change nothing. (Creating under an unknown explicit id, as before, answered
 * differently from a foreign id: an existence oracle.) Updates keep the prior project, summary
 * and files wherever the call supplies nothing (empty and null supply nothing); ended_at is
 * stamped to now on both paths. Saving an ended session renews it (state live).
 */
export async function sessionSave(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const explicit = !blank(a.session_id);
  let id: string;
  if (!explicit) id = randomUUID();
  else {
    const parsed = parseSessionId(String(a.session_id));
    if (parsed === null) throw malformedSession();
    id = parsed;
  }
  const projectGiven = supplied(a.project) !== undefined;
  const project = projectGiven ? projectValue(a.project) : null;
  // Supplied projects must be granted now, whatever the session.
  if (projectGiven && !canWrite(ctx.caller, project)) throw scopeDenied();
  const summary = supplied(a.summary);
  const files = filesValue(a.active_files);
  const handoff = supplied(typeof a.handoff_to === "string" ? a.handoff_to.trim() : a.handoff_to);
  return write(ctx, async (w) => {
    const trx = w.trx;
    const at = iso(w.now);
    const old = await getSession(trx, ctx.caller, id, { starBypass: true, lock: w.engine.caps.rowLock });
    if (old) {
      // Only the owner hands a session on (star never substitutes for ownership when attributing).
      if (handoff !== undefined && old.owner !== ctx.caller.principal) throw sessionNotFound();
      const row: SessionRow = {
        ...old,
        project: projectGiven ? project : old.project,
        summary: summary ?? old.summary,
        active_files: files ?? old.active_files,
        handed_to: handoff ?? old.handed_to,
        state: "live",
        ended_at: at,
        updated_at: at,
      };
      const action = handoff !== undefined && handoff !== old.handed_to ? "handoff" : "update";
      row.last_event_id = await saveEvent(w, old, row, action, a);
      const { profile: _p, session_id: _s, ...set } = row;
      await updateSession(trx, old.profile, id, set);
      return { action: "updated", session_id: id };
    }
    if (explicit) throw sessionNotFound();
    // An omitted project on creation is an untagged write: it needs the untagged grant.
    if (!projectGiven && !canWrite(ctx.caller, null)) throw scopeDenied();
    const row: SessionRow = {
      profile: ctx.caller.profile,
      session_id: id,
      owner: ctx.caller.principal,
      project,
      summary: summary ?? null,
      active_files: files,
      state: "live",
      started_at: at,
      ended_at: at,
      closed_at: null,
      closed_by: null,
      handed_to: handoff ?? null,
      updated_at: at,
      last_event_id: "",
    };
    row.last_event_id = await saveEvent(w, null, row, "create", a);
    // A fresh v4 id: a collision is as good as impossible; if it happens, nothing is written.
    if (!(await insertSession(trx, row))) throw sessionNotFound();
    return { action: "created", session_id: id };
  });
}

/** Pure read: the caller's most recently saved sessions (star: everyone's), inside the grants. */
export async function sessionRecall(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const n = recallCount(a.last_n);
  const rows = await read(ctx, (db) => recallSessions(db, ctx.caller, n));
  return { sessions: rows.map(sessionView), count: rows.length };
}

/**
 * Moves one live session owned by the caller's own principal (no star bypass) to ended. Foreign,
 * unknown, malformed and already-ended ids all answer matched 0 and change nothing.
 */
export async function closeSession(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const given = String(a.session_id);
  const id = parseSessionId(given);
  const untouched = { closed: given, matched: 0 };
  if (id === null) return untouched;
  return write(ctx, async (w) => {
    const trx = w.trx;
    const at = iso(w.now);
    const old = await getSession(trx, ctx.caller, id, {
      starBypass: false,
      ownedOnly: true,
      lock: w.engine.caps.rowLock,
    });
    if (old?.state !== "live") return untouched;
    const row: SessionRow = {
      ...old,
      state: "ended",
      ended_at: at,
      closed_at: at,
      closed_by: ctx.caller.principal,
      updated_at: at,
    };
    row.last_event_id = await saveEvent(w, old, row, "close", a);
    const { profile: _p, session_id: _s, ...set } = row;
    await updateSession(trx, old.profile, id, set);
    return { closed: given, matched: 1 };
  });
}

/**
 * The continuity lists the modules contribute (sessions' `resumeContinuity`: governance's open
 * questions, chunks awaiting a human, changed facts), concatenated in module order; empty lists
 * where no module contributes.
 */
async function continuityOf(w: WriteScope, scope: ReturnType<typeof scopeOf>, withQuestions: boolean) {
  const out: Continuity = { open_questions: [], chunks_awaiting_human: [], changed_facts: [] };
  for (const source of resumeContinuity.all()) {
    const c = await source(w.trx, scope, w.now, withQuestions);
    out.open_questions.push(...c.open_questions);
    out.chunks_awaiting_human.push(...c.chunks_awaiting_human);
    out.changed_facts.push(...c.changed_facts);
  }
  return out;
}

/**
 * Builds and persists a handoff pack (with its run-history entry and one history event) from
 * the facts available now, then returns it with the continuity lists context governance keeps:
 * open questions, chunks awaiting human input, facts changed in the last 7 days (global scans
 * inside the grants, catalog "Boundaries"). The recipient of a handoff resumes it like the owner.
 */
export async function resumeContext(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  let id: string | null = null;
  if (!blank(a.session_id)) {
    id = parseSessionId(String(a.session_id));
    if (id === null) throw malformedSession();
  }
  const includeQuestions = a.include_open_questions !== false;
  const scope = scopeOf(ctx.caller);
  return write(ctx, async (w) => {
    const { trx, now } = w;
    const at = iso(now);
    let session: SessionRow | null = null;
    if (id !== null) {
      session = (await getSession(trx, ctx.caller, id, { starBypass: true })) ?? null;
      if (!session) throw sessionNotFound();
    }
    const project = session ? session.project : undefined;
    const tasks = await openTasks(trx, scope, project, PACK_TASKS);
    const events = await recentTaskEvents(trx, scope, project, iso(now - RECENT_DAYS * DAY_MS), PACK_EVENTS);
    const openChildren = await openChildCounts(
      trx,
      scope,
      tasks.map((t) => t.id),
    );
    const gov = await continuityOf(w, scope, includeQuestions);
    const built = buildHandoff({
      now,
      budget: HANDOFF_TOKEN_BUDGET,
      session,
      tasks,
      openChildren,
      events,
      questions: gov.open_questions,
      awaiting: gov.chunks_awaiting_human,
      facts: gov.changed_facts,
    });

    const packId = randomUUID();
    const runId = randomUUID();
    const pack: NewContextPack = {
      pack_id: packId,
      profile: ctx.caller.profile,
      pack_type: "handoff",
      session_id: id,
      project: session?.project ?? null,
      token_budget: HANDOFF_TOKEN_BUDGET,
      token_usage: built.tokenUsage,
      freshness_score: built.freshness,
      body: built.body,
      items_json: JSON.stringify(built.items),
      lifecycle: "live",
      created_by: ctx.caller.principal,
      created_at: at,
      last_event_id: "",
    };
    const { body: _b, items_json: _i, last_event_id: _l, ...meta } = pack;
    pack.last_event_id = await w.event({
      entityKind: "context_pack",
      entityId: packId,
      action: "create",
      old: null,
      new: { ...meta, items: built.items },
      payload: { ...a, run_id: runId },
    });
    await insertPack(trx, pack);

    const what = `${built.counts.tasks} open task${built.counts.tasks === 1 ? "" : "s"}, ${built.counts.events} recent event${built.counts.events === 1 ? "" : "s"}`;
    const head = session
      ? `Resumed session ${id} (${session.project === null ? "untagged" : `project ${session.project}`}): handoff pack ${packId} with the session summary, ${built.counts.files} active file${built.counts.files === 1 ? "" : "s"}, ${what}`
      : `General handoff (no session): pack ${packId} with ${what} across your visible projects`;
    const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
    const questions = includeQuestions
      ? n(gov.open_questions.length, "open question", "open questions")
      : "open-question scan skipped on request";
    const pending = `Context: ${questions}, ${n(gov.chunks_awaiting_human.length, "chunk", "chunks")} awaiting human input, ${n(gov.changed_facts.length, "fact", "facts")} changed in the last ${RECENT_DAYS} days.`;
    const summary = `${head} (${built.tokenUsage} of ${HANDOFF_TOKEN_BUDGET} tokens). ${pending}`;

    await insertRun(trx, {
      run_id: runId,
      profile: ctx.caller.profile,
      tool: "resume_context",
      principal: ctx.caller.principal,
      session_id: id,
      pack_id: packId,
      status: "completed",
      input_json: JSON.stringify(a),
      result_json: JSON.stringify({
        pack_id: packId,
        token_usage: built.tokenUsage,
        freshness_score: built.freshness,
        counts: built.counts,
        open_question_scan: includeQuestions,
        open_questions: gov.open_questions.length,
        chunks_awaiting_human: gov.chunks_awaiting_human.length,
        changed_facts: gov.changed_facts.length,
      }),
      started_at: at,
      finished_at: at,
    });

    return {
      session_id: id,
      open_questions: gov.open_questions.map(({ text, type, priority, chunk_title, question_id, chunk_id }) => ({
        question_id,
        text,
        type,
        priority,
        chunk_id,
        chunk_title,
      })),
      changed_facts_since_last_session: gov.changed_facts,
      chunks_awaiting_human: gov.chunks_awaiting_human,
      pack: { pack_id: packId, token_usage: built.tokenUsage, freshness_score: built.freshness, body: built.body },
      summary,
    };
  });
}
