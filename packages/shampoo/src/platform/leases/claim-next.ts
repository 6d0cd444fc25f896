import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";
import { checkTtl, type Lease, num } from "./model.ts";

/**
 * Claims the oldest claimable resource of a kind (open, or held but expired), or null if none.
 * Locking, per engine (the adapter's skipLocked flag):
 * - PostgreSQL: the candidate is chosen by a sub-select `FOR UPDATE SKIP LOCKED`, so concurrent
 *   claimers each lock a different row instead of queueing on the first; the outer UPDATE repeats
 *   the condition, and the fence is raised in the same statement.
 * - SQLite: the transaction holds the database write lock (BEGIN IMMEDIATE), so the sub-select
 *   and the update run with no other writer in between; no row lock is needed.
 */
export async function claimNextLease(
  w: WriteScope,
  opts: { kind: string; holder: string; ttlMs: number },
): Promise<Lease | null> {
  checkTtl(opts.ttlMs);
  const profile = w.ctx.caller.profile;
  const expires = w.now + opts.ttlMs;
  const free = sql`(state = 'open' OR (state = 'held' AND expires_ms <= ${w.now}))`;
  const lock = w.engine.caps.skipLocked ? sql` FOR UPDATE SKIP LOCKED` : sql``;
  const r = await sql<{ resource_id: string; fence: number | string }>`UPDATE shampoo_leases
    SET state = 'held', holder = ${opts.holder}, fence = fence + 1, expires_ms = ${expires}, updated_at = ${iso(w.now)}
    WHERE profile = ${profile} AND kind = ${opts.kind} AND ${free} AND resource_id = (
      SELECT resource_id FROM shampoo_leases
      WHERE profile = ${profile} AND kind = ${opts.kind} AND ${free}
      ORDER BY created_at, resource_id LIMIT 1${lock}
    )
    RETURNING resource_id, fence`.execute(w.trx);
  const row = r.rows[0];
  if (!row) return null;
  const lease = {
    kind: opts.kind,
    resourceId: row.resource_id,
    holder: opts.holder,
    fence: num(row.fence),
    expiresMs: expires,
  };
  await w.event({
    entityKind: `lease:${opts.kind}`,
    entityId: lease.resourceId,
    action: "claim",
    old: null,
    new: { holder: opts.holder, fence: lease.fence, expires_at: iso(expires) },
  });
  return lease;
}
