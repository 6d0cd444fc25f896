import { randomBytes } from "node:crypto";
import { b64u, deriveKeys, fromB64u, open, SUITE, seal } from "./crypto/envelope.ts";
import { hybridEncapsulate } from "./crypto/hybrid.ts";
import type { SessionGrant } from "./model.ts";

/**
 * The client side of the handshake, for any transport: `handshake(call, …)` runs
 * handshake_challenge then handshake_complete through `call` (an MCP tools/call, or the HTTP
 * pre-authentication routes: `httpCall`) and returns the opened session grant. `npx shampoo
 * login` and an agent host's connector use it; nothing here touches a database.
 */

export interface Credential {
  /** ticket: first enrolment (ref_id = ticket_id); bootstrap: renewal (ref_id = client_id). */
  refKind: "ticket" | "bootstrap";
  refId: string;
  secret: string;
  profile?: string;
  client?: {
    client_name?: string;
    client_version?: string;
    client_instance_id?: string;
    client_kind?: "client" | "spoke";
  };
}

export interface Challenge {
  challenge_id: string;
  server_ecdh: string;
  server_kem: string;
  suite: string;
}

export type Call = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** handshake_complete's arguments for a challenge, and how to open its answer. */
export function prepareCompletion(
  ch: Challenge,
  cred: Credential,
  randomness: Uint8Array = randomBytes(160),
): { args: Record<string, string>; open(sealed: Record<string, unknown>): SessionGrant } {
  if (ch.suite !== SUITE) throw new Error(`unsupported handshake suite ${ch.suite}`);
  const serverEcdh = fromB64u(ch.server_ecdh);
  const serverKem = fromB64u(ch.server_kem);
  if (!serverEcdh || !serverKem) throw new Error("malformed challenge");
  const enc = hybridEncapsulate(serverKem, serverEcdh, randomness);
  const profile = cred.profile ?? "default";
  const keys = deriveKeys(enc.sharedSecret, {
    challengeId: ch.challenge_id,
    refKind: cred.refKind,
    refId: cred.refId,
    profile,
    serverEcdh,
    serverKem,
    clientEcdh: enc.ecdhCt,
    kemCt: enc.kemCt,
  });
  const envelope = seal(keys.envelope, new TextEncoder().encode(JSON.stringify({ credential: cred.secret })), keys.th);
  return {
    args: {
      challenge_id: ch.challenge_id,
      client_ecdh: b64u(enc.ecdhCt),
      kem_ct: b64u(enc.kemCt),
      envelope_iv: b64u(envelope.iv),
      envelope_ct: b64u(envelope.ct),
      envelope_tag: b64u(envelope.tag),
      profile,
    },
    open(sealed) {
      const parts = [sealed.iv, sealed.ct, sealed.tag].map(fromB64u);
      if (parts.some((p) => p === null)) throw new Error("handshake failed");
      const [iv, ct, tag] = parts as Uint8Array[];
      const plain = open(
        keys.response,
        { iv: iv as Uint8Array, ct: ct as Uint8Array, tag: tag as Uint8Array },
        keys.th,
      );
      return JSON.parse(new TextDecoder().decode(plain)) as SessionGrant;
    },
  };
}

/** Challenge, complete, open: the session grant, or an Error("handshake failed"). */
export async function handshake(call: Call, cred: Credential): Promise<SessionGrant> {
  const ch = await call("handshake_challenge", { ref_kind: cred.refKind, ref_id: cred.refId, ...(cred.client ?? {}) });
  if (typeof ch.challenge_id !== "string") throw new Error("handshake failed");
  const c = prepareCompletion(ch as unknown as Challenge, cred);
  const sealed = await call("handshake_complete", c.args);
  if (typeof sealed.ct !== "string") throw new Error("handshake failed");
  return c.open(sealed);
}

/** `call` over the server's pre-authentication routes (http.ts): POST <base>/auth/<tool>. */
export function httpCall(base: string): Call {
  const root = new URL(base);
  return async (tool, args) => {
    const res = await fetch(new URL(`/auth/${tool}`, root), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(args),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw new Error(typeof body.error === "string" ? body.error : `HTTP ${res.status}`);
    return body;
  };
}

/**
 * A session that renews itself: `token()` answers the current bearer token, running a fresh
 * bootstrap handshake when less than `marginMs` of its hour is left. For an agent host's
 * Streamable HTTP connector (`Authorization: Bearer ${await s.token()}`).
 */
export class RenewingSession {
  private grant: SessionGrant;
  constructor(
    private readonly call: Call,
    grant: SessionGrant,
    private readonly bootstrapSecret: string,
    private readonly marginMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.grant = grant;
  }
  get current(): SessionGrant {
    return this.grant;
  }
  async token(): Promise<string> {
    if (Date.parse(this.grant.expires_at) - this.now() < this.marginMs) {
      this.grant = await handshake(this.call, {
        refKind: "bootstrap",
        refId: this.grant.client_id,
        secret: this.bootstrapSecret,
        profile: this.grant.profile,
      });
    }
    return this.grant.session_token;
  }
}
