import { iso, sql } from "kernel";
import type { WriteScope } from "../write.ts";
import { checkTtl, type Lease, type LeaseKey, leaseDone, leaseHeld, num } from "./model.ts";

/**
 * Claims one named resource for `ttlMs` (the injected clock's time): free (open, never offered)
 * or expired leases are taken, with the fence raised by one; a live lease of another holder
 * answers lease_held, a done one state_conflict.
 * Locking: one upsert whose conflict branch carries the condition (ON CONFLICT DO UPDATE … WHERE);
 * the row is locked by the statement itself on PostgreSQL and by BEGIN IMMEDIATE on SQLite, so
 * two claimers can never both see the lease free: one updates, the other's WHERE is false.
 */
export async function claimLease(w: WriteScope, key: LeaseKey & { holder: string; ttlMs: number }): Promise<Lease> {
  checkTtl(key.ttlMs);
  const at = iso(w.now);
  const expires = w.now + key.ttlMs;
  const profile = w.ctx.caller.profile;
  const r = await sql<{
    fence: number | string;
  }>`INSERT INTO shampoo_leases AS l (profile, kind, resource_id, state, holder, fence, expires_ms, created_at, updated_at)
    VALUES (${profile}, ${key.kind}, ${key.resourceId}, 'held', ${key.holder}, 1, ${expires}, ${at}, ${at})
    ON CONFLICT (profile, kind, resource_id) DO UPDATE
      SET state = 'held', holder = excluded.holder, fence = l.fence + 1, expires_ms = excluded.expires_ms, updated_at = excluded.updated_at
      WHERE l.state = 'open' OR (l.state = 'held' AND l.expires_ms <= ${w.now})
    RETURNING fence`.execute(w.trx);
  const row = r.rows[0];
  if (!row) {
    const cur = await sql<{
      state: string;
      expires_ms: number | string | null;
    }>`SELECT state, expires_ms FROM shampoo_leases
      WHERE profile = ${profile} AND kind = ${key.kind} AND resource_id = ${key.resourceId}`.execute(w.trx);
    const c = cur.rows[0];
    if (c?.state === "done") throw leaseDone(key);
    throw leaseHeld(key, num(c?.expires_ms) - w.now);
  }
  const lease = {
    kind: key.kind,
    resourceId: key.resourceId,
    holder: key.holder,
    fence: num(row.fence),
    expiresMs: expires,
  };
  await w.event({
    entityKind: `lease:${key.kind}`,
    entityId: key.resourceId,
    action: "claim",
    old: null,
    new: { holder: key.holder, fence: lease.fence, expires_at: iso(expires) },
  });
  return lease;
}
