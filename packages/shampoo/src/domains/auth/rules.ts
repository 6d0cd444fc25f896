import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Caller } from "../../access/caller.ts";

/**
 * The auth registry's pure decisions: constants, shape checks, token and credential forms,
 * session standing. No ctx, no store (rules.test.ts beside would test them without a database).
 */

/** Live challenge slots across every instance of one database. */
export const CHALLENGE_SLOTS = 64;
export const CHALLENGE_TTL_S = 300;
/** A registry session lasts one hour; a client renews it with a fresh bootstrap handshake. */
export const SESSION_TTL_S = 3600;
export const TICKET_TTL_DEFAULT_S = 3600;
export const TICKET_TTL_MAX_S = 30 * 86_400;
export const LIST_DEFAULT = 20;
export const LIST_MAX = 100;

export const REF_KINDS = ["bootstrap", "ticket"] as const;
export const CLIENT_KINDS = ["client", "spoke"] as const;
export const TICKET_KINDS = ["standard", "spoke"] as const;
export const SESSION_STATUSES = ["active", "revoked", "expired", "ended"] as const;

/** The one answer of every handshake failure: the same bytes whatever went wrong. */
export const HANDSHAKE_FAILED = "handshake failed";
export const TICKET_ISSUE_FAILED = "ticket issue failed";

const REF_ID = /^[A-Za-z0-9._:-]{1,200}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROFILE = /^[A-Za-z0-9._-]{1,64}$/;
export const MAX_METADATA = 200;
const MAX_NAME = 200;

export const isUuid = (v: unknown): v is string => typeof v === "string" && UUID.test(v);
export const isRefId = (v: unknown): v is string => typeof v === "string" && REF_ID.test(v);
export const isProfile = (v: unknown): v is string => typeof v === "string" && PROFILE.test(v);
export const oneOf = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === "string" && (list as readonly string[]).includes(v);

/** Optional client metadata: absent, or a string of at most 200 characters. */
export const metadataOk = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === "string" && v.length <= MAX_METADATA);

export const digest = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex");

/** Digest comparison in constant time (both are 64 hex characters by construction). */
export function sameDigest(stored: string, secret: string): boolean {
  const a = Buffer.from(stored, "hex");
  const b = Buffer.from(digest(secret), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh secret: 32 random bytes, base64url. */
export const newSecret = (): string => randomBytes(32).toString("base64url");

/** A registry session's bearer token: `shs1.<session_id>.<secret>` (RFC 6750 b64token characters). */
export const sessionToken = (sessionId: string, secret: string): string => `shs1.${sessionId}.${secret}`;

export function parseSessionToken(token: string): { sessionId: string; secret: string } | null {
  const m = /^shs1\.([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return m && isUuid(m[1]) ? { sessionId: m[1], secret: m[2] as string } : null;
}

/** The status a session row reads as at `now`: an active row past its expiry is `expired`. */
export function sessionStatus(row: { status: string; expires_at: string }, now: number): string {
  return row.status === "active" && Date.parse(row.expires_at) <= now ? "expired" : row.status;
}

/** list_sessions' limit: default 20, clamped 1..100 (a non-integer is the default). */
export function listLimit(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v)) return LIST_DEFAULT;
  return Math.min(LIST_MAX, Math.max(1, Math.trunc(v)));
}

/**
 * A ticket's grant must lie within the issuer's own: a named project the issuer sees, "" only
 * with the issuer's untagged grant, "*" only with its star. Returns the list as stored, or null.
 */
export function ticketProjects(issuer: Caller, projects: unknown): string[] | null {
  if (!Array.isArray(projects) || projects.length === 0 || projects.length > 100) return null;
  const out: string[] = [];
  for (const p of projects) {
    if (typeof p !== "string" || p.length > MAX_NAME || (p !== "" && p.trim() !== p)) return null;
    if (p === "" ? !issuer.untagged : p === "*" ? !issuer.star : !(issuer.star || issuer.projects.has(p))) return null;
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

export const userOk = (v: unknown): v is string => typeof v === "string" && v.trim() !== "" && v.length <= MAX_NAME;

/** ttl_seconds: default 3600, else an integer 60..30 days; anything else refuses the ticket. */
export function ticketTtl(v: unknown): number | null {
  if (v === undefined || v === null) return TICKET_TTL_DEFAULT_S;
  return typeof v === "number" && Number.isInteger(v) && v >= 60 && v <= TICKET_TTL_MAX_S ? v : null;
}
