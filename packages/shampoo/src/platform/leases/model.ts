import { type DomainError, iso } from "kernel";
import { fail } from "../errors.ts";
import type { WriteScope } from "../write.ts";

/** A held lease: the fencing token every later statement of the holder must name. */
export interface Lease {
  kind: string;
  resourceId: string;
  holder: string;
  /** Monotonic per resource: each claim gets one more than every earlier claim. */
  fence: number;
  expiresMs: number;
}

export interface LeaseKey {
  kind: string;
  resourceId: string;
}

/** A statement of a holder whose fence no longer matches a live lease: nothing was changed. */
export function leaseLost(key: LeaseKey, fence: number): DomainError {
  return fail(
    "lease_lost",
    `the lease on ${key.kind} ${key.resourceId} with fence ${fence} is no longer held (it expired or was taken over); nothing was changed`,
    { fence },
  );
}

export function leaseHeld(key: LeaseKey, retryAfterMs: number): DomainError {
  return fail("lease_held", `${key.kind} ${key.resourceId} is leased by someone else`, {
    retryable: true,
    retry_after_ms: Math.max(0, retryAfterMs),
  });
}

export function leaseDone(key: LeaseKey): DomainError {
  return fail("state_conflict", `${key.kind} ${key.resourceId} is already done`, {
    current_state: "done",
    allowed_moves: [],
  });
}

export function checkTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs <= 0 || ttlMs > 86_400_000) {
    throw new RangeError(`lease ttl must be a whole number of ms in 1..86400000, got ${ttlMs}`);
  }
}

/** PostgreSQL returns bigint columns as strings. */
export const num = (v: number | string | bigint | null | undefined): number => Number(v);

/** The lease a claim statement returned, with its history event (claim.ts, claim-next.ts). */
export async function claimed(
  w: WriteScope,
  key: LeaseKey,
  holder: string,
  fence: number | string,
  expiresMs: number,
): Promise<Lease> {
  const lease = { kind: key.kind, resourceId: key.resourceId, holder, fence: num(fence), expiresMs };
  await w.event({
    entityKind: `lease:${key.kind}`,
    entityId: key.resourceId,
    action: "claim",
    old: null,
    new: { holder, fence: lease.fence, expires_at: iso(expiresMs) },
  });
  return lease;
}
