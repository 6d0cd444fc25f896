import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Implementation } from "@modelcontextprotocol/server";

/**
 * 2025-era `Mcp-Session-Id`s that verify themselves (docs/deploy.md "Sessions"): the id is
 * `s1.<payload>.<HMAC-SHA256(secret, payload)>`, the payload the session's nonce, expiry, the
 * principal that opened it and the clientInfo sent at initialize. No instance holds a session
 * map, so an id minted by one instance is honoured by every instance sharing the secret, a flood
 * of `initialize` costs no memory, and nothing is lost when an instance restarts. The price: an
 * id cannot be revoked before it expires (DELETE answers 405, as the 2025 transport allows).
 */

export interface SessionClaims {
  /** Random nonce: the short session id products see (SessionInfo.sessionId). */
  n: string;
  /** Expiry, ms since the epoch. */
  e: number;
  /** Principal that opened the session ("" when the server authenticates nobody). */
  p: string;
  /** clientInfo sent at initialize, cut to bounded strings. */
  c?: { name: string; version: string };
}

const MAX_CLIENT_FIELD = 120;
const MAX_ID_CHARS = 1024;

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac("sha256", secret).update(payload).digest();
}

function cut(s: string): string {
  return [...s].slice(0, MAX_CLIENT_FIELD).join("");
}

export class SessionSigner {
  readonly #secret: Buffer;

  /** `secret`: shared by every instance behind one endpoint; ≥ 32 bytes. Random when absent. */
  constructor(
    secret: string | Buffer | undefined,
    readonly ttlMs: number,
  ) {
    const s = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    if (s.length < 32) throw new Error("session secret must be at least 32 bytes");
    this.#secret = s;
  }

  mint(principal: string, clientInfo: Implementation | undefined, now = Date.now()): { id: string; nonce: string } {
    const claims: SessionClaims = {
      n: randomBytes(16).toString("base64url"),
      e: now + this.ttlMs,
      p: principal,
      ...(clientInfo ? { c: { name: cut(String(clientInfo.name)), version: cut(String(clientInfo.version)) } } : {}),
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
    return { id: `s1.${payload}.${mac(this.#secret, payload).toString("base64url")}`, nonce: claims.n };
  }

  /** The claims of a valid, unexpired id opened by `principal`; null otherwise (one answer for all). */
  verify(id: string, principal: string, now = Date.now()): SessionClaims | null {
    if (id.length > MAX_ID_CHARS) return null;
    const [tag, payload, sig, ...rest] = id.split(".");
    if (tag !== "s1" || !payload || !sig || rest.length) return null;
    const given = Buffer.from(sig, "base64url");
    const want = mac(this.#secret, payload);
    if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
    let claims: SessionClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SessionClaims;
    } catch {
      return null;
    }
    if (typeof claims.e !== "number" || claims.e <= now) return null;
    // A session belongs to the credential that opened it: another principal gets "not found".
    if (claims.p !== principal) return null;
    return claims;
  }
}
