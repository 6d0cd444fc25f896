import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";
import { checkTtl, type Lease, leaseLost } from "./model.ts";

/**
 * Extends a live lease to now + ttlMs. Fenced: the UPDATE matches only the holder's fence on a
 * lease still held and not yet expired, in the same statement (no read-then-write window); a
 * holder whose lease expired, even if nobody took it yet, gets lease_lost.
 */
export async function heartbeatLease(w: WriteScope, lease: Lease, ttlMs: number): Promise<Lease> {
  checkTtl(ttlMs);
  const expires = w.now + ttlMs;
  const r = await sql`UPDATE shampoo_leases SET expires_ms = ${expires}, updated_at = ${iso(w.now)}
    WHERE profile = ${w.ctx.caller.profile} AND kind = ${lease.kind} AND resource_id = ${lease.resourceId}
      AND state = 'held' AND fence = ${lease.fence} AND expires_ms > ${w.now}`.execute(w.trx);
  if (Number(r.numAffectedRows ?? 0) === 0) throw leaseLost(lease, lease.fence);
  return { ...lease, expiresMs: expires };
}
