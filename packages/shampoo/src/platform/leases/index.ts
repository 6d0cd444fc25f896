/**
 * Leases with fencing: one file per locking statement, each with its strategy beside it.
 * Every function takes a WriteScope (platform write()): its time is the injected clock's, its
 * history events commit with it.
 */
export { claimLease } from "./claim.ts";
export { claimNextLease } from "./claim-next.ts";
export { completeLease } from "./complete.ts";
export { heartbeatLease } from "./heartbeat.ts";
export type { Lease, LeaseKey } from "./model.ts";
export { offerLease } from "./offer.ts";
export { reclaimStaleLeases } from "./reclaim-stale.ts";
export { releaseLease } from "./release.ts";
