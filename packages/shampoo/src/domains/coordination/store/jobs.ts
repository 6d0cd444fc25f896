import { type Kysely, type RawBuilder, sql, type Transaction } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { MAX_ATTEMPTS } from "../rules.ts";
import type { JobRow } from "../schema.ts";

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** Jobs are visible by project grants alone (the untagged enclave with its explicit grant). */
const jobScope = (caller: Caller): RawBuilder<boolean> => projectCondition(scopeOf(caller), "project");

/** The job `id` if the caller's grants cover it; with `engine`, locked for the rest of the write. */
export async function visibleJob(db: Db, caller: Caller, id: string, engine?: Engine): Promise<JobRow | undefined> {
  const q = db
    .selectFrom("shampoo_jobs")
    .selectAll()
    .where("profile", "=", caller.profile)
    .where("id", "=", id)
    .where(jobScope(caller));
  return (engine ? engine.forUpdate(q) : q).executeTakeFirst() as Promise<JobRow | undefined>;
}

/** Claimable at `now`: queued, or claimed with its lease over; and still under the attempt bound. */
const claimable = (now: number): RawBuilder<boolean> =>
  sql<boolean>`(state = 'queued' OR (state = 'claimed' AND lease_until_ms <= ${now})) AND attempts < ${MAX_ATTEMPTS}`;

/**
 * Jobs whose lease is over and whose attempts are spent: they can never be claimed again, so they
 * end as failed (kept, never dropped). Taken with SKIP LOCKED where the engine has it, so a sweep
 * never waits on (or deadlocks with) a concurrent claimer's row.
 */
export async function exhaustedJobs(
  trx: Transaction<ShampooDB>,
  engine: Engine,
  caller: Caller,
  now: number,
): Promise<JobRow[]> {
  const q = trx
    .selectFrom("shampoo_jobs")
    .selectAll()
    .where("profile", "=", caller.profile)
    .where("state", "=", "claimed")
    .where("lease_until_ms", "<=", now)
    .where("attempts", ">=", MAX_ATTEMPTS)
    .where(jobScope(caller))
    .limit(50);
  return (await engine.forUpdateSkipLocked(q).execute()) as JobRow[];
}

/**
 * The oldest claimable job of the caller's scope (and kind), locked: on PostgreSQL `FOR UPDATE
 * SKIP LOCKED`, so concurrent claimers each lock a different row instead of queueing on the
 * first; on SQLite the write holds the database lock (BEGIN IMMEDIATE), so no row lock is needed.
 */
export async function nextClaimable(
  trx: Transaction<ShampooDB>,
  engine: Engine,
  caller: Caller,
  now: number,
  kind: string | undefined,
): Promise<JobRow | undefined> {
  let q = trx
    .selectFrom("shampoo_jobs")
    .selectAll()
    .where("profile", "=", caller.profile)
    .where("state", "in", ["queued", "claimed"])
    .where(claimable(now))
    .where(jobScope(caller));
  if (kind !== undefined) q = q.where("kind", "=", kind);
  return (await engine.forUpdateSkipLocked(q.orderBy("created_at").orderBy("id").limit(1)).executeTakeFirst()) as
    | JobRow
    | undefined;
}

/**
 * Takes the job: the claim condition is repeated in the UPDATE and the fence raised in the same
 * statement, so of any two claimers of one row at most one gets it (the other's WHERE is false).
 */
export async function takeJob(
  trx: Transaction<ShampooDB>,
  job: JobRow,
  set: { owner: string; leaseUntilMs: number; reclaimed: boolean; at: string; eventId: string },
  now: number,
): Promise<number | null> {
  const r = await sql<{ fence: number | string }>`UPDATE shampoo_jobs
    SET state = 'claimed', owner = ${set.owner}, fence = fence + 1, lease_until_ms = ${set.leaseUntilMs},
      attempts = attempts + 1, reclaimed = reclaimed + ${set.reclaimed ? 1 : 0}, updated_at = ${set.at},
      last_event_id = ${set.eventId}
    WHERE profile = ${job.profile} AND id = ${job.id} AND ${claimable(now)}
    RETURNING fence`.execute(trx);
  const row = r.rows[0];
  return row ? Number(row.fence) : null;
}

/**
 * A holder's fenced change of its job (complete, release): only while the job is claimed at the
 * fence the holder names (and, with `liveAt`, its lease not over), checked where it is changed.
 * False: the lease was lost (expired and taken over, or ended); nothing changed.
 */
export async function fencedUpdate(
  trx: Transaction<ShampooDB>,
  job: JobRow,
  fence: number,
  liveAt: number | null,
  set: Partial<JobRow>,
): Promise<boolean> {
  let q = trx
    .updateTable("shampoo_jobs")
    .set(set)
    .where("profile", "=", job.profile)
    .where("id", "=", job.id)
    .where("state", "=", "claimed")
    .where("fence", "=", fence);
  if (liveAt !== null) q = q.where("lease_until_ms", ">", liveAt);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
