import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";
import { type Lease, leaseLost } from "./model.ts";

/**
 * Marks the leased resource done. Fenced in the statement: only the current fence, on a lease
 * held and not expired at the injected clock's now; a late completion (expired, or reclaimed and
 * claimed again with a higher fence) matches no row and answers lease_lost, changing nothing.
 * Call it in the same write() as the work it completes, so both commit or neither does.
 */
export async function completeLease(w: WriteScope, lease: Lease): Promise<void> {
  const r = await sql`UPDATE shampoo_leases SET state = 'done', expires_ms = NULL, updated_at = ${iso(w.now)}
    WHERE profile = ${w.ctx.caller.profile} AND kind = ${lease.kind} AND resource_id = ${lease.resourceId}
      AND state = 'held' AND fence = ${lease.fence} AND expires_ms > ${w.now}`.execute(w.trx);
  if (Number(r.numAffectedRows ?? 0) === 0) throw leaseLost(lease, lease.fence);
  await w.event({
    entityKind: `lease:${lease.kind}`,
    entityId: lease.resourceId,
    action: "complete",
    old: { holder: lease.holder, fence: lease.fence },
    new: { state: "done" },
  });
}
