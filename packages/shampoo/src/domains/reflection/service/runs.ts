import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { projectValue } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { given } from "../../../platform/errors.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../../platform/lifecycle.ts";
import { createRow } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import type {
  ReflectArchiveInput,
  ReflectCancelInput,
  ReflectDiscardInput,
  ReflectHistoryInput,
  ReflectStartInput,
} from "../inputs.gen.ts";
import { badArgument, badTransition, pageOffset, runNotFound, runView, runViewFor, startView } from "../model.ts";
import { candidateId, canonical, findingsDigest, flatten } from "../rules/detect.ts";
import { canArchive, move } from "../rules/lifecycle.ts";
import { summaryOf } from "../rules/report.ts";
import {
  CANDIDATE_CAP,
  CONTRACT_VERSION,
  clamp,
  HISTORY_LIMIT,
  INSTRUCTIONS_MAX,
  offsetOf,
  RUN_STATUSES,
  type RunStatus,
} from "../rules/vocabulary.ts";
import type { ReflectionCandidateRow, ReflectionRunRow } from "../schema.ts";
import {
  casRun,
  getRun,
  insertCandidates,
  listRuns,
  runById,
  updateRun,
  visibleCandidateCounts,
} from "../store/runs.ts";
import { auditParams, auditPass } from "./audit.ts";

/**
 * Runs: start (create → run → complete | fail), cancel, archive, discard, and the run list.
 * Every change is one platform write (platform/write.ts) with its history event (entity_kind
 * reflection_run), and every status move is a compare-and-swap on the status it read
 * (rules/lifecycle.ts).
 */

function runEvent(w: WriteScope, run: ReflectionRunRow, action: string, change: unknown) {
  return w.event({
    entityKind: "reflection_run",
    entityId: run.run_id,
    action,
    old: { status: run.status, archived_at: run.archived_at },
    new: change,
    parentEventId: run.last_event_id,
  });
}

/** Creates the pending run with its recorded input (first step of reflect_start). */
export async function createRun(ctx: ShampooCtx, a: ReflectStartInput): Promise<ReflectionRunRow> {
  const instructions = given(a.instructions) ?? null;
  if (instructions !== null && instructions.length > INSTRUCTIONS_MAX) {
    throw badArgument(
      "instructions_too_long",
      `instructions hold ${instructions.length} characters; at most ${INSTRUCTIONS_MAX}`,
    );
  }
  const version = given(a.version) ?? CONTRACT_VERSION;
  if (version !== CONTRACT_VERSION) {
    throw badArgument(
      "invalid_argument",
      `unknown run version ${JSON.stringify(version)} (known: ${CONTRACT_VERSION})`,
    );
  }
  // No upper bound of its own: past the cap the run fails (candidate_limit_exceeded).
  const p = auditParams(ctx.caller, a, Number.MAX_SAFE_INTEGER);
  return write(ctx, async (w) => {
    const at = iso(w.now);
    const runId = randomUUID();
    return createRow(w, {
      table: "shampoo_reflection_runs",
      kind: "reflection_run",
      id: runId,
      view: runView,
      payload: a,
      row: {
        run_id: runId,
        profile: ctx.caller.profile,
        project: p.project,
        status: "pending",
        version,
        created_by: given(a.created_by) ?? "user",
        principal: ctx.caller.principal,
        model: given(a.model) ?? null,
        instructions,
        input_json: JSON.stringify(p),
        summary_json: null,
        candidates_persisted: 0,
        error_type: null,
        created_at: at,
        started_at: null,
        finished_at: null,
        archived_at: null,
        ...NEW_LIFECYCLE,
        updated_at: at,
      },
    });
  });
}

/** Moves a run by compare-and-swap; false when it was no longer in `from` (someone moved it first). */
async function swap(
  w: WriteScope,
  runId: string,
  from: RunStatus,
  set: Partial<ReflectionRunRow> & { status: RunStatus },
  action: string,
): Promise<boolean> {
  const run = await runById(w.trx, w.ctx.caller.profile, runId);
  if (!run || run.status !== from) return false;
  // The swap first: a mover that lost the race writes nothing, not even its event.
  if (!(await casRun(w.trx, runId, [from], { ...set, updated_at: iso(w.now) }))) return false;
  const eventId = await runEvent(w, run, action, { status: set.status });
  await updateRun(w.trx, runId, { last_event_id: eventId });
  return true;
}

export interface ExecuteHooks {
  /** Called after the scan, before the completing transaction (tests: a cancel during the pass). */
  beforeComplete?(): Promise<void>;
}

/**
 * The pass of a pending run: pending → running, the audit on one read snapshot, then one
 * transaction that persists every candidate and moves running → completed, or, past the cap,
 * running → failed with no candidate. A run moved meanwhile (canceled) keeps its status and
 * gets no candidate. Engine failures mark the run failed, best effort, and surface.
 */
export async function executeRun(
  ctx: ShampooCtx,
  runId: string,
  hooks: ExecuteHooks = {},
): Promise<Record<string, unknown>> {
  const current = () => read(ctx, async (db) => (await runById(db, ctx.caller.profile, runId)) as ReflectionRunRow);
  try {
    // The time the run started: the pass judges the memory as of then.
    const now = await write(ctx, async (w) =>
      (await swap(w, runId, "pending", { status: "running", started_at: iso(w.now) }, "run")) ? w.now : null,
    );
    if (now === null) return startView(await current());
    const run = await current();
    const p = JSON.parse(run.input_json);
    // Read at most cap + 1 rows a category: one more than the cap already fails the run.
    const pass = { ...p, limit_per_category: Math.min(p.limit_per_category, CANDIDATE_CAP + 1) };
    const findings = await read(ctx, (db, engine) => auditPass(db, engine.dialect, ctx.caller, pass, now));
    const summary = summaryOf(findings, p, now);
    const list = flatten(findings);
    await hooks.beforeComplete?.();
    await write(ctx, async (w) => {
      if (list.length > CANDIDATE_CAP) {
        await swap(w, runId, "running", failure("candidate_limit_exceeded", summary, w.now), "fail");
        return;
      }
      const ok = await swap(
        w,
        runId,
        "running",
        {
          status: "completed",
          finished_at: iso(w.now),
          summary_json: JSON.stringify(summary),
          candidates_persisted: list.length,
        },
        "complete",
      );
      if (!ok) return; // canceled during the pass: no candidate is persisted
      const rows: ReflectionCandidateRow[] = list.map((f, ord) => ({
        candidate_id: candidateId(runId, f),
        run_id: runId,
        profile: ctx.caller.profile,
        ord,
        type: f.type,
        suggested_action: f.suggested_action,
        target_kind: f.target_kind,
        target_ref: f.target_ref,
        evidence_json: canonical(f.evidence),
        evidence_project: f.evidence_project,
        private_to: f.private_to,
        confidence: f.confidence,
        fingerprint_json: JSON.stringify(f.fingerprint),
        decision: null,
        decided_by: null,
        decided_principal: null,
        decided_at: null,
        created_at: iso(w.now),
      }));
      await insertCandidates(w.trx, rows);
      await w.event({
        entityKind: "reflection_run",
        entityId: runId,
        action: "persist_candidates",
        old: null,
        new: { candidates_persisted: rows.length, digest: findingsDigest(list) },
      });
    });
    return startView(await current());
  } catch (e) {
    // Best effort: the run must not stay "running" after a failed pass.
    await write(ctx, async (w) => {
      for (const from of ["running", "pending"] as const) {
        if (await swap(w, runId, from, failure("internal_error", null, w.now), "fail")) return;
      }
    }).catch(() => {});
    throw e;
  }
}

function failure(errorType: string, summary: unknown, now: number): Partial<ReflectionRunRow> & { status: "failed" } {
  return {
    status: "failed",
    error_type: errorType,
    finished_at: iso(now),
    summary_json: summary === null ? null : JSON.stringify(summary),
  };
}

export async function startReflection(ctx: ShampooCtx, a: ReflectStartInput): Promise<Record<string, unknown>> {
  const run = await createRun(ctx, a);
  return executeRun(ctx, run.run_id);
}

/** A lifecycle move on a run the caller may reach (not found otherwise), in one write. */
async function onRun<T>(
  ctx: ShampooCtx,
  runId: string,
  fn: (w: WriteScope, run: ReflectionRunRow, at: string) => Promise<T>,
): Promise<T> {
  return write(ctx, async (w) => {
    const run = await getRun(w.trx, ctx.caller, runId, { lock: w.engine.caps.rowLock });
    if (!run) throw runNotFound();
    return fn(w, run, iso(w.now));
  });
}

export async function cancelRun(ctx: ShampooCtx, a: ReflectCancelInput): Promise<Record<string, unknown>> {
  return onRun(ctx, a.run_id, async (w, run, at) => {
    const m = move(run.status, "cancel");
    if (!m.ok) throw badTransition(m.code, run.run_id, run.status);
    await swap(w, run.run_id, run.status, { status: m.to, finished_at: at }, "cancel");
    return { run_id: run.run_id, status: m.to, previous_status: run.status, finished_at: at };
  });
}

export async function archiveRun(ctx: ShampooCtx, a: ReflectArchiveInput): Promise<Record<string, unknown>> {
  return onRun(ctx, a.run_id, async (w, run, at) => {
    if (!canArchive(run.status)) throw badTransition("cannot_archive_active_run", run.run_id, run.status);
    if (run.archived_at !== null) return { run_id: run.run_id, archived_at: run.archived_at, newly_archived: false };
    const eventId = await runEvent(w, run, "archive", { status: run.status, archived_at: at });
    await updateRun(w.trx, run.run_id, { archived_at: at, updated_at: at, last_event_id: eventId });
    return { run_id: run.run_id, archived_at: at, newly_archived: true };
  });
}

export async function discardRun(ctx: ShampooCtx, a: ReflectDiscardInput): Promise<Record<string, unknown>> {
  const reason = given(a.reason) ?? null;
  return onRun(ctx, a.run_id, async (w, run) => {
    const m = move(run.status, "discard");
    if (!m.ok) throw badTransition(m.code, run.run_id, run.status);
    // Discarding is the run's retirement: status discarded, lifecycle retired with its stamps.
    const set = { status: m.to, ...lifecycleSet("retire", stampOf(w, reason)) };
    await swap(w, run.run_id, run.status, set, "discard");
    // rows_deleted: the catalog's wire shape (1 on success); nothing is physically removed.
    return { run_id: run.run_id, rows_deleted: 1 };
  });
}

export async function runHistory(ctx: ShampooCtx, a: ReflectHistoryInput): Promise<Record<string, unknown>> {
  const project = projectValue(a.project);
  const status = given(a.status) ?? null;
  if (status !== null && (status === "discarded" || !(RUN_STATUSES as readonly string[]).includes(status))) {
    throw badArgument("invalid_argument", `status must be one of pending, running, completed, failed, canceled`);
  }
  const includeArchived = a.include_archived === true;
  const limit = clamp(a.limit, HISTORY_LIMIT.default, HISTORY_LIMIT.min, HISTORY_LIMIT.max);
  const offset = pageOffset(offsetOf(a.offset));
  const { rows, total, counts } = await read(ctx, async (db) => {
    const page = await listRuns(db, ctx.caller, {
      project,
      status: status as RunStatus | null,
      includeArchived,
      limit,
      offset,
    });
    return {
      ...page,
      counts: await visibleCandidateCounts(
        db,
        ctx.caller,
        page.rows.map((r) => r.run_id),
      ),
    };
  });
  return {
    runs: rows.map((r) => runViewFor(r, counts.get(r.run_id))),
    total,
    limit,
    offset,
    project,
    status: status ?? "",
    include_archived: includeArchived,
  };
}
