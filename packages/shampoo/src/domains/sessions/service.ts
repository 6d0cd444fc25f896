import { randomUUID } from "node:crypto";
import { iso, type Kysely, type Transaction } from "kernel";
import { type Caller, canWrite, projectValue, type Scope, scopeDenied, scopeOf } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import { given } from "../../platform/errors.ts";
import { createRow, recordChange } from "../../platform/rows.ts";
import { read, type WriteScope, write } from "../../platform/write.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { type Continuity, resumeContinuity } from "./hooks.ts";
import type { CloseSessionInput, ResumeContextInput, SessionRecallInput, SessionSaveInput } from "./inputs.gen.ts";
import {
  filesValue,
  malformedSession,
  packEventView,
  sessionEventView,
  sessionNotFound,
  sessionView,
} from "./model.ts";
import {
  buildHandoff,
  HANDOFF_TOKEN_BUDGET,
  PACK_EVENTS,
  PACK_TASKS,
  parseSessionId,
  RECENT_DAYS,
  recallCount,
  resumeSummary,
} from "./rules.ts";
import type { NewContextPack, SessionRow } from "./schema.ts";
import {
  getSession,
  insertPack,
  insertRun,
  openChildCounts,
  openTasks,
  recallSessions,
  recentTaskEvents,
  updateSession,
} from "./store.ts";

/**
 * Session operations. Ownership: a session belongs to the principal that created it. session_save
 * and resume_context let star callers act on other principals' sessions (the catalog's star
 * bypass); close_session never does ("only entries owned by the caller's own principal flip").
 * Every path also needs the session's project inside the caller's grants. Shape checks (UUID
 * form, supplied project) run before any lookup, so they answer alike for any session. Writes are
 * platform write()s (the change and its event commit together; the session row is locked where
 * the engine has row locks), session_recall one read() snapshot.
 */

const DAY_MS = 86_400_000;

/**
 * The session a caller names, in session_save's vocabulary: none for a blank id (given), else a
 * UUID (else "session_id must be a UUID…") the caller may see, owner, handed-to or star (else
 * "session not found"). resume_context's session, and context governance's pack sessions.
 */
export async function namedSession(
  db: Kysely<ShampooDB> | Transaction<ShampooDB>,
  caller: Caller,
  raw: unknown,
): Promise<SessionRow | null> {
  const v = given(raw);
  if (v === undefined) return null;
  const id = parseSessionId(v);
  if (id === null) throw malformedSession();
  const session = await getSession(db, caller, id, { starBypass: true });
  if (!session) throw sessionNotFound();
  return session;
}

/**
 * Applies `set` to a session with its history event (chained to the session's previous one).
 * Sessions are keyed by profile and id, so the event goes through recordChange and the row
 * through the store's keyed update.
 */
async function changeSession(
  w: WriteScope,
  old: SessionRow,
  set: Partial<SessionRow>,
  action: string,
  payload: unknown,
): Promise<void> {
  const next = { ...old, ...set };
  const eventId = await recordChange(w, {
    kind: "session",
    id: old.session_id,
    action,
    old,
    next,
    view: sessionEventView,
    payload,
  });
  await updateSession(w.trx, old.profile, old.session_id, { ...set, last_event_id: eventId });
}

/**
 * Create (no id given) or update (an id given) in one transaction. An explicit id names a
 * session to update: one no session holds, one held by another principal (without star), one
 * whose project left the grants, and one in another profile all answer "session not found", the
 * same bytes, and change nothing. (Creating under an unknown explicit id, as before, answered
 * differently from a foreign id: an existence oracle.) Updates keep the prior project, summary
 * and files wherever the call supplies nothing (an empty string or null supplies nothing;
 * handoff_to is trimmed, blank is absent); ended_at is stamped to now on both paths. Saving an
 * ended session renews it (state live).
 */
export async function sessionSave(ctx: ShampooCtx, a: SessionSaveInput): Promise<Record<string, unknown>> {
  const explicit = given(a.session_id);
  const id = explicit === undefined ? randomUUID() : parseSessionId(explicit);
  if (id === null) throw malformedSession();
  const projectGiven = Boolean(a.project);
  const project = projectValue(a.project);
  // Supplied projects must be granted now, whatever the session.
  if (projectGiven && !canWrite(ctx.caller, project)) throw scopeDenied();
  const summary = a.summary || undefined;
  const files = filesValue(a.active_files);
  const handoff = given(a.handoff_to)?.trim();
  return write(ctx, async (w) => {
    const at = iso(w.now);
    const old = await getSession(w.trx, ctx.caller, id, { starBypass: true, lock: w.engine.caps.rowLock });
    if (old) {
      // Only the owner hands a session on (star never substitutes for ownership when attributing).
      if (handoff !== undefined && old.owner !== ctx.caller.principal) throw sessionNotFound();
      const action = handoff !== undefined && handoff !== old.handed_to ? "handoff" : "update";
      await changeSession(
        w,
        old,
        {
          project: projectGiven ? project : old.project,
          summary: summary ?? old.summary,
          active_files: files ?? old.active_files,
          handed_to: handoff ?? old.handed_to,
          state: "live",
          ended_at: at,
          updated_at: at,
        },
        action,
        a,
      );
      return { action: "updated", session_id: id };
    }
    if (explicit !== undefined) throw sessionNotFound();
    // An omitted project on creation is an untagged write: it needs the untagged grant.
    if (!projectGiven && !canWrite(ctx.caller, null)) throw scopeDenied();
    // A fresh v4 id: a collision with an existing session is as good as impossible.
    await createRow(w, {
      table: "shampoo_sessions",
      kind: "session",
      id,
      view: sessionEventView,
      payload: a,
      row: {
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
      },
    });
    return { action: "created", session_id: id };
  });
}

/** Pure read: the caller's most recently saved sessions (star: everyone's), inside the grants. */
export async function sessionRecall(ctx: ShampooCtx, a: SessionRecallInput): Promise<Record<string, unknown>> {
  const n = recallCount(a.last_n);
  const rows = await read(ctx, (db) => recallSessions(db, ctx.caller, n));
  return { sessions: rows.map(sessionView), count: rows.length };
}

/**
 * Moves one live session owned by the caller's own principal (no star bypass) to ended. Foreign,
 * unknown, malformed and already-ended ids all answer matched 0 and change nothing.
 */
export async function closeSession(ctx: ShampooCtx, a: CloseSessionInput): Promise<Record<string, unknown>> {
  const id = parseSessionId(a.session_id);
  const untouched = { closed: a.session_id, matched: 0 };
  if (id === null) return untouched;
  return write(ctx, async (w) => {
    const at = iso(w.now);
    const old = await getSession(w.trx, ctx.caller, id, {
      starBypass: false,
      ownedOnly: true,
      lock: w.engine.caps.rowLock,
    });
    if (old?.state !== "live") return untouched;
    const set: Partial<SessionRow> = {
      state: "ended",
      ended_at: at,
      closed_at: at,
      closed_by: ctx.caller.principal,
      updated_at: at,
    };
    await changeSession(w, old, set, "close", a);
    return { closed: a.session_id, matched: 1 };
  });
}

/**
 * The continuity lists the modules contribute (sessions' `resumeContinuity`: governance's open
 * questions, chunks awaiting a human, changed facts), concatenated in module order; empty lists
 * where no module contributes.
 */
async function continuityOf(w: WriteScope, scope: Scope, withQuestions: boolean): Promise<Continuity> {
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
export async function resumeContext(ctx: ShampooCtx, a: ResumeContextInput): Promise<Record<string, unknown>> {
  // The shape check first, outside any transaction: a malformed id answers alike for any session.
  const raw = given(a.session_id);
  if (raw !== undefined && parseSessionId(raw) === null) throw malformedSession();
  const includeQuestions = a.include_open_questions !== false;
  const scope = scopeOf(ctx.caller);
  return write(ctx, async (w) => {
    const { trx, now } = w;
    const at = iso(now);
    const session = await namedSession(trx, ctx.caller, raw);
    const id = session?.session_id ?? null;
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
    pack.last_event_id = await recordChange(w, {
      kind: "context_pack",
      id: packId,
      action: "create",
      old: null,
      next: pack,
      view: packEventView(built.items),
      payload: { ...a, run_id: runId },
    });
    await insertPack(trx, pack);

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
      summary: resumeSummary({
        session,
        packId,
        built,
        questions: includeQuestions ? gov.open_questions.length : null,
        awaiting: gov.chunks_awaiting_human.length,
        facts: gov.changed_facts.length,
      }),
    };
  });
}
