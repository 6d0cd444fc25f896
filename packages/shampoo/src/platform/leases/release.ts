import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";
import { type Lease, leaseLost } from "./model.ts";

/**
 * Gives the resource back (state open) before the lease runs out. Fenced in the statement: only
 * the holder's own fence matches, so a holder whose lease was reclaimed and claimed by someone
 * else (a higher fence) can never release the new holder's lease. Releasing an expired lease
 * nobody took since is allowed: it only says sooner what reclaim-stale would say.
 */
export async function releaseLease(w: WriteScope, lease: Lease): Promise<void> {
  const r =
    await sql`UPDATE shampoo_leases SET state = 'open', holder = NULL, expires_ms = NULL, updated_at = ${iso(w.now)}
    WHERE profile = ${w.ctx.caller.profile} AND kind = ${lease.kind} AND resource_id = ${lease.resourceId}
      AND state = 'held' AND fence = ${lease.fence}`.execute(w.trx);
  if (Number(r.numAffectedRows ?? 0) === 0) throw leaseLost(lease, lease.fence);
  await w.event({
    entityKind: `lease:${lease.kind}`,
    entityId: lease.resourceId,
    action: "release",
    old: { holder: lease.holder, fence: lease.fence },
    new: { state: "open" },
  });
}
