import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";
import type { LeaseKey } from "./model.ts";

/**
 * Makes a resource claimable (state open, fence 0), once: offering it again changes nothing.
 * Locking: INSERT … ON CONFLICT DO NOTHING on the primary key; concurrent offers of the same key
 * leave exactly one row, and never touch a lease already held or done.
 */
export async function offerLease(w: WriteScope, key: LeaseKey): Promise<boolean> {
  const at = iso(w.now);
  const r =
    await sql`INSERT INTO shampoo_leases (profile, kind, resource_id, state, holder, fence, expires_ms, created_at, updated_at)
    VALUES (${w.ctx.caller.profile}, ${key.kind}, ${key.resourceId}, 'open', NULL, 0, NULL, ${at}, ${at})
    ON CONFLICT (profile, kind, resource_id) DO NOTHING`.execute(w.trx);
  const added = Number(r.numAffectedRows ?? 0) > 0;
  if (added) {
    await w.event({
      entityKind: `lease:${key.kind}`,
      entityId: key.resourceId,
      action: "offer",
      old: null,
      new: { state: "open" },
    });
  }
  return added;
}
