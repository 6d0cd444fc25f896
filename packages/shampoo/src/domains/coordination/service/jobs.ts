import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { projectValue } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given } from "../../../platform/errors.ts";
import { createRow, recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { JobClaimInput, JobCompleteInput, JobCreateInput, JobReleaseInput } from "../inputs.gen.ts";
import { jobNotFound, jobView, num } from "../model.ts";
import { DEFAULT_LEASE_S, MAX_ATTEMPTS } from "../rules.ts";
import type { JobRow } from "../schema.ts";
import { exhaustedJobs, fencedUpdate, nextClaimable, takeJob, visibleJob } from "../store/jobs.ts";
import { visibleLane } from "../store/lanes.ts";
import { explicitGrant } from "../store/visibility.ts";
import { idOf } from "./ids.ts";

/**
 * Jobs under fenced leases. A claim takes one row (SKIP LOCKED on PostgreSQL, the database write
 * lock on SQLite) and raises its fence in the same UPDATE; every later statement of the holder
 * names that fence in its WHERE, and the owner path also needs the lease still running at the
 * write's clock. So a holder whose lease expired can never complete or release a job another
 * holder took since, and a lease ends exactly when its time ends. A job is never dropped: past
 * its 5th attempt, with its lease over, it ends as failed.
 */

const leaseLost = (fence: number) =>
  fail("lease_lost", `lease lost: fence ${fence} no longer holds this job (it expired and was taken over, or ended)`, {
    fence,
  });
const leaseExpired = () =>
  fail("lease_expired", "lease expired: claim the job again before completing or releasing it");
const notClaimed = (state: string) =>
  fail("job_not_claimed", `job is not claimed (it is ${state})`, { current_state: state });

/** One change of a job row with its history event (the row points at it). */
async function jobEvent(w: WriteScope, old: JobRow, next: JobRow, action: string): Promise<string> {
  return recordChange(w, { kind: "job", id: old.id, action, old, next, view: jobView });
}

export function jobCreate(ctx: ShampooCtx, a: JobCreateInput): Promise<Record<string, unknown>> {
  const kind = given(a.kind)?.trim();
  if (kind === undefined) throw fail("validation", "kind must not be blank");
  const projectGiven = given(a.project) !== undefined;
  const explicit = projectValue(given(a.project));
  const laneRaw = given(a.lane_id);
  return write(ctx, async (w) => {
    let project = explicit;
    let laneId: string | null = null;
    if (laneRaw !== undefined) {
      const id = idOf(laneRaw);
      const lane = id === null ? undefined : await visibleLane(w.trx, ctx.caller, id);
      if (!lane) throw fail("not_found", "lane not found");
      if (projectGiven && explicit !== lane.project) {
        throw fail("validation", `project ${explicit} does not match the lane's quorum project`);
      }
      project = lane.project;
      laneId = lane.id;
    }
    if (!explicitGrant(ctx.caller, project)) {
      throw fail("scope_denied", "outside client scope: creating a job needs an explicit grant on its project");
    }
    const at = iso(w.now);
    const id = randomUUID();
    await createRow(w, {
      table: "shampoo_jobs",
      kind: "job",
      view: jobView,
      row: {
        id,
        profile: ctx.caller.profile,
        project,
        lane_id: laneId,
        kind,
        payload: a.payload ?? "",
        state: "queued",
        owner: null,
        fence: 0,
        lease_until_ms: null,
        attempts: 0,
        reclaimed: 0,
        result_ref: null,
        completed_by: null,
        completed_fence: null,
        created_by: ctx.caller.principal,
        created_at: at,
        updated_at: at,
      },
    });
    return { job_id: id, state: "queued" };
  });
}

/** Jobs whose attempts are spent and whose last lease is over end as failed (kept, never dropped). */
async function failExhausted(w: WriteScope): Promise<void> {
  for (const job of await exhaustedJobs(w.trx, w.engine, w.ctx.caller, w.now)) {
    const at = iso(w.now);
    const next: JobRow = { ...job, state: "failed", lease_until_ms: null, updated_at: at };
    const eventId = await jobEvent(w, job, next, "exhaust");
    await fencedUpdate(w.trx, job, num(job.fence), null, {
      state: "failed",
      lease_until_ms: null,
      updated_at: at,
      last_event_id: eventId,
    });
  }
}

export function jobClaim(ctx: ShampooCtx, a: JobClaimInput): Promise<Record<string, unknown>> {
  const leaseMs = (a.lease_seconds ?? DEFAULT_LEASE_S) * 1000;
  const kind = given(a.kind);
  return write(ctx, async (w) => {
    await failExhausted(w);
    const job = await nextClaimable(w.trx, w.engine, ctx.caller, w.now, kind);
    if (!job) return { claimed: false };
    const reclaimed = job.state === "claimed";
    const at = iso(w.now);
    const leaseUntil = w.now + leaseMs;
    const next: JobRow = {
      ...job,
      state: "claimed",
      owner: ctx.caller.principal,
      fence: num(job.fence) + 1,
      lease_until_ms: leaseUntil,
      attempts: job.attempts + 1,
      reclaimed: job.reclaimed + (reclaimed ? 1 : 0),
      updated_at: at,
    };
    const eventId = await jobEvent(w, job, next, reclaimed ? "reclaim" : "claim");
    const fence = await takeJob(
      w.trx,
      job,
      { owner: ctx.caller.principal, leaseUntilMs: leaseUntil, reclaimed, at, eventId },
      w.now,
    );
    // The row was locked (or the database was): a claim that finds it gone is a lost race, silent.
    if (fence === null) throw fail("conflict", "the job was taken meanwhile; claim again", { retryable: true });
    return {
      claimed: true,
      job_id: job.id,
      kind: job.kind,
      payload: job.payload,
      lease_until: iso(leaseUntil),
      attempts: next.attempts,
      reclaimed,
      fence,
    };
  });
}

/**
 * The fence a holder's call acts under, or why it may not act: with a fence, that very lease
 * (and, for complete, still running); without one, the caller's own live lease, or the
 * conductor's override of someone else's (no lease check). `liveAt` null skips the time check.
 */
function holderFence(
  w: WriteScope,
  job: JobRow,
  given: number | undefined,
  needLive: boolean,
): { fence: number; liveAt: number | null } {
  const current = num(job.fence);
  const live = job.lease_until_ms !== null && num(job.lease_until_ms) > w.now;
  if (given !== undefined) {
    if (given !== current) throw leaseLost(given);
    if (needLive && !live) throw leaseExpired();
    return { fence: current, liveAt: needLive ? w.now : null };
  }
  if (job.owner === w.ctx.caller.principal) {
    if (needLive && !live) throw leaseExpired();
    return { fence: current, liveAt: needLive ? w.now : null };
  }
  if (w.ctx.caller.role === "conductor") return { fence: current, liveAt: null };
  throw leaseLost(current);
}

export function jobComplete(ctx: ShampooCtx, a: JobCompleteInput): Promise<Record<string, unknown>> {
  const id = idOf(a.job_id);
  if (id === null) throw jobNotFound();
  return write(ctx, async (w) => {
    const job = await visibleJob(w.trx, ctx.caller, id, w.engine);
    if (!job) throw jobNotFound();
    if (job.state === "completed" || job.state === "failed") {
      if (job.state !== a.outcome) {
        throw fail("job_already_terminal", `job already terminal: it ended ${job.state}`, { current_state: job.state });
      }
      // A replay by whoever completed it (with a fence: that very lease) changes nothing.
      const same =
        a.fence !== undefined
          ? num(job.completed_fence) === a.fence
          : job.completed_by === ctx.caller.principal || ctx.caller.role === "conductor";
      if (!same) throw leaseLost(a.fence ?? num(job.fence));
      return { job_id: job.id, state: job.state, idempotent: true };
    }
    if (job.state !== "claimed") throw notClaimed(job.state);
    const { fence, liveAt } = holderFence(w, job, a.fence, true);
    const at = iso(w.now);
    const set = {
      state: a.outcome,
      result_ref: given(a.result_ref) ?? null,
      completed_by: ctx.caller.principal,
      completed_fence: fence,
      lease_until_ms: null,
      updated_at: at,
    } satisfies Partial<JobRow>;
    const eventId = await jobEvent(w, job, { ...job, ...set }, "complete");
    if (!(await fencedUpdate(w.trx, job, fence, liveAt, { ...set, last_event_id: eventId }))) throw leaseLost(fence);
    return { job_id: job.id, state: a.outcome };
  });
}

export function jobRelease(ctx: ShampooCtx, a: JobReleaseInput): Promise<Record<string, unknown>> {
  const id = idOf(a.job_id);
  if (id === null) throw jobNotFound();
  return write(ctx, async (w) => {
    const job = await visibleJob(w.trx, ctx.caller, id, w.engine);
    if (!job) throw jobNotFound();
    if (job.state !== "claimed") throw notClaimed(job.state);
    const { fence } = holderFence(w, job, a.fence, false);
    // A job whose attempts are spent could never be claimed again: it ends as failed instead.
    const state = job.attempts >= MAX_ATTEMPTS ? "failed" : "queued";
    const set = { state, owner: null, lease_until_ms: null, updated_at: iso(w.now) } satisfies Partial<JobRow>;
    const eventId = await jobEvent(w, job, { ...job, ...set }, "release");
    if (!(await fencedUpdate(w.trx, job, fence, null, { ...set, last_event_id: eventId }))) throw leaseLost(fence);
    return { job_id: job.id, state };
  });
}
