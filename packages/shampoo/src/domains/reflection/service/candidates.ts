import { iso } from "kernel";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { given } from "../../../platform/errors.ts";
import { read, write } from "../../../platform/write.ts";
import { taskView } from "../../tasks/model.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { changeTask } from "../../tasks/service/mutate.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import type { ReflectApplyInput, ReflectDecideInput, ReflectReviewInput } from "../inputs.gen.ts";
import { badArgument, badTransition, candidateNotFound, candidateView, pageOffset, runNotFound } from "../model.ts";
import { isDecision, isDecisionFilter, type Plan, plan, type TargetNow } from "../rules/apply.ts";
import type { Fingerprint } from "../rules/detect.ts";
import { CATEGORIES, clamp, isCategory, offsetOf, REVIEW_LIMIT } from "../rules/vocabulary.ts";
import type { ReflectionCandidateRow } from "../schema.ts";
import {
  acceptedCandidates,
  getCandidate,
  getRun,
  insertSnapshot,
  listCandidates,
  setDecision,
} from "../store/runs.ts";
import { taskExists } from "../store/targets.ts";

/** Candidates: review (pure read), decide, and apply with before/after snapshots. */

export async function reviewCandidates(ctx: ShampooCtx, a: ReflectReviewInput): Promise<Record<string, unknown>> {
  const decision = a.decision_filter ?? "";
  if (!isDecisionFilter(decision)) {
    throw badArgument("unknown_decision_filter", `decision_filter must be "", pending, accept, reject or defer`);
  }
  const type = given(a.candidate_type_filter) ?? null;
  if (type !== null && !isCategory(type)) {
    throw badArgument("invalid_argument", `candidate_type_filter must be one of ${CATEGORIES.join(", ")}`);
  }
  const limit = clamp(a.limit, REVIEW_LIMIT.default, REVIEW_LIMIT.min, REVIEW_LIMIT.max);
  const offset = pageOffset(offsetOf(a.offset));
  // A run the caller cannot reach has no visible candidate: the empty shape, as for an unknown id.
  const { rows, total } = await read(ctx, (db) =>
    listCandidates(db, ctx.caller, a.run_id, { decision, type, limit, offset }),
  );
  return {
    candidates: rows.map(candidateView),
    total,
    limit,
    offset,
    decision_filter: decision,
    candidate_type_filter: type ?? "",
  };
}

export async function decideCandidate(ctx: ShampooCtx, a: ReflectDecideInput): Promise<Record<string, unknown>> {
  const decision = a.decision;
  // Shape first: an unknown decision answers the same whether or not the candidate exists.
  if (!isDecision(decision)) throw badArgument("invalid_argument", "decision must be accept, reject or defer");
  const decidedBy = given(a.decided_by) ?? "user";
  return write(ctx, async (w) => {
    const c = await getCandidate(w.trx, ctx.caller, a.candidate_id, w.engine.caps.rowLock);
    if (!c) throw candidateNotFound();
    const set = { decision, decided_by: decidedBy, decided_principal: ctx.caller.principal, decided_at: iso(w.now) };
    await w.event({
      entityKind: "reflection_candidate",
      entityId: c.candidate_id,
      action: "decide",
      old: { decision: c.decision, decided_by: c.decided_by, decided_at: c.decided_at },
      new: { decision, decided_by: decidedBy, decided_at: set.decided_at },
      payload: { run_id: c.run_id },
    });
    await setDecision(w.trx, c.candidate_id, set);
    return { candidate_id: c.candidate_id, decision, decided_by: decidedBy };
  });
}

const nowOf = (t: TaskRow | undefined): TargetNow | null =>
  t ? { id: t.id, last_event_id: t.last_event_id, status: t.status, parent_id: t.parent_id } : null;

/**
 * Applies a completed run's accepted candidates in one transaction: for each, the target is
 * read again under the caller's grants (locked on PostgreSQL), the plan (rules/apply.ts) says
 * skip or mutate, and a mutation goes through the task domain's canonical path with a
 * before/after snapshot. Rerunning skips what was applied (already_applied) and writes nothing.
 * Applies of one run are serialised by the run's row lock (PostgreSQL) or the writer lock (SQLite).
 */
export async function applyRun(ctx: ShampooCtx, a: ReflectApplyInput): Promise<Record<string, unknown>> {
  const appliedBy = given(a.applied_by) ?? "user";
  const wanted = new Set(
    (a.candidate_ids_csv ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  );
  const scope = scopeOf(ctx.caller);
  return write(ctx, async (w) => {
    const { trx, now } = w;
    const run = await getRun(trx, ctx.caller, a.run_id, { lock: w.engine.caps.rowLock });
    if (!run) throw runNotFound();
    if (run.status !== "completed") throw badTransition("run_not_completed", run.run_id, run.status);
    const accepted = (await acceptedCandidates(trx, ctx.caller, run.run_id)).filter(
      (c) => wanted.size === 0 || wanted.has(c.candidate_id),
    );
    const skipped: Array<{ candidate_id: string; reason: string }> = [];
    const failed: Array<{ candidate_id: string; error: string }> = [];
    let applied = 0;
    for (const c of accepted) {
      const fingerprint = JSON.parse(c.fingerprint_json) as Fingerprint;
      const target = c.target_kind === "task" ? await getTask(trx, scope, c.target_ref, w.engine) : undefined;
      if (!isCategory(c.type)) {
        // A candidate of a type this version has no mutation for (written by a newer one).
        failed.push({ candidate_id: c.candidate_id, error: `no mutation for candidate type ${c.type}` });
        continue;
      }
      const keeper = fingerprint.keeper ? await getTask(trx, scope, fingerprint.keeper.id, w.engine) : undefined;
      const decision: Plan = plan({
        type: c.type,
        target_kind: c.target_kind as "task" | "entity",
        fingerprint,
        applied: c.snapshot_at !== null,
        target: nowOf(target),
        targetExists:
          target !== undefined ||
          (c.target_kind === "task" && (await taskExists(trx, ctx.caller.profile, c.target_ref))),
        keeper: nowOf(keeper),
        parentVisible: target?.parent_id ? (await getTask(trx, scope, target.parent_id)) !== undefined : false,
      });
      if ("skip" in decision) {
        skipped.push({ candidate_id: c.candidate_id, reason: decision.skip });
        continue;
      }
      const before = target as TaskRow;
      const eventId = await changeTask(w, before, decision.set, "reflect_apply", {
        run_id: run.run_id,
        candidate_id: c.candidate_id,
        type: c.type,
      });
      const after: TaskRow = { ...before, ...decision.set, updated_at: iso(now), last_event_id: eventId };
      await insertSnapshot(trx, snapshotRow(ctx, c, before, after, appliedBy, eventId, now));
      applied++;
    }
    return { run_id: run.run_id, considered: accepted.length, applied, skipped, failed };
  });
}

function snapshotRow(
  ctx: ShampooCtx,
  c: ReflectionCandidateRow,
  before: TaskRow,
  after: TaskRow,
  appliedBy: string,
  eventId: string,
  now: number,
) {
  return {
    candidate_id: c.candidate_id,
    run_id: c.run_id,
    profile: ctx.caller.profile,
    target_kind: c.target_kind,
    target_ref: c.target_ref,
    before_json: JSON.stringify(taskView(before)),
    after_json: JSON.stringify(taskView(after)),
    applied_by: appliedBy,
    applied_principal: ctx.caller.principal,
    applied_at: iso(now),
    event_id: eventId,
  };
}
