import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";

/**
 * Returns every expired lease of a kind to open (a sweeper's pass). The fence is kept: the next
 * claim raises it, so the old holder's token stays refused. One UPDATE: on PostgreSQL each row it
 * changes is locked by the statement (a concurrent claim of the same row waits, then re-checks
 * its own condition); on SQLite BEGIN IMMEDIATE keeps every other writer out meanwhile.
 */
export async function reclaimStaleLeases(w: WriteScope, kind: string): Promise<string[]> {
  const r = await sql<{
    resource_id: string;
  }>`UPDATE shampoo_leases SET state = 'open', holder = NULL, expires_ms = NULL, updated_at = ${iso(w.now)}
    WHERE profile = ${w.ctx.caller.profile} AND kind = ${kind} AND state = 'held' AND expires_ms <= ${w.now}
    RETURNING resource_id`.execute(w.trx);
  const ids = r.rows.map((x) => x.resource_id).sort();
  for (const id of ids) {
    await w.event({
      entityKind: `lease:${kind}`,
      entityId: id,
      action: "reclaim",
      old: { state: "held" },
      new: { state: "open" },
    });
  }
  return ids;
}
