import { randomBytes, randomUUID } from "node:crypto";
import { DomainError, iso, logger } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { fail } from "../../../platform/errors.ts";
import { createRow, recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import { b64u, deriveKeys, fromB64u, IV_BYTES, open, SUITE, seal, TAG_BYTES } from "../crypto/envelope.ts";
import { HYBRID_SEED_BYTES, hybridDecapsulate, hybridKeys, P256_POINT_BYTES } from "../crypto/hybrid.ts";
import { MLKEM768 } from "../crypto/mlkem.ts";
import type { HandshakeChallengeInput, HandshakeCompleteInput } from "../inputs.gen.ts";
import { principalView, type SessionGrant, sessionEventView, ticketView } from "../model.ts";
import {
  CHALLENGE_SLOTS,
  CHALLENGE_TTL_S,
  CLIENT_KINDS,
  digest,
  HANDSHAKE_FAILED,
  isProfile,
  isRefId,
  isUuid,
  metadataOk,
  newSecret,
  oneOf,
  REF_KINDS,
  SESSION_TTL_S,
  sameDigest,
  sessionToken,
} from "../rules.ts";
import type { AuthSessionRow, ChallengeRow, PrincipalRow } from "../schema.ts";
import {
  bumpGeneration,
  burnTicket,
  consumeChallenge,
  getPrincipal,
  getTicket,
  insertChallenge,
  liveChallenges,
  setSessionRevoked,
} from "../store.ts";

/**
 * The hybrid handshake (docs/shampoo-auth.md):
 *
 *   handshake_challenge(ref_kind, ref_id, metadata)  → challenge_id, server_ecdh, server_kem, suite, expires_in
 *   client: MLKEM768-P256 encapsulation to both keys → kem_ct, client_ecdh; keys from the transcript;
 *           the credential (ticket or bootstrap secret) sealed with AES-256-GCM → envelope_iv/ct/tag
 *   handshake_complete(…)  → the session grant sealed the other way: iv, ct, tag
 *
 * The challenge lives in the database (any instance completes what another issued) and is
 * consumed, seed wiped, by the first complete attempt whatever its outcome, in its own committed
 * write before anything else is checked. Every failure of either call, whatever it was, throws
 * the same `handshake failed` (no field, no oracle); only store faults (the database down or
 * busy) pass through as themselves, since they say nothing about a credential.
 */

const log = logger("auth");

export const handshakeFailed = (): DomainError => fail("handshake_failed", HANDSHAKE_FAILED);

const METADATA = ["client_instance_id", "client_name", "client_version", "transport", "user_agent"] as const;

/** Store faults are the database's, not the handshake's: they keep their own code. */
const STORE_FAULTS = new Set(["db_unavailable", "database_busy", "storage_full", "busy", "unavailable"]);

async function generic<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof DomainError && STORE_FAULTS.has(e.code)) throw e;
    if (!(e instanceof DomainError && e.code === "handshake_failed")) log.debug({ err: (e as Error).message }, what);
    throw handshakeFailed();
  }
}

export function handshakeChallenge(ctx: ShampooCtx, a: HandshakeChallengeInput) {
  return generic("handshake_challenge", async () => {
    const shapeOk =
      oneOf(REF_KINDS, a.ref_kind) &&
      isRefId(a.ref_id) &&
      (a.client_kind === undefined || oneOf(CLIENT_KINDS, a.client_kind)) &&
      METADATA.every((k) => metadataOk(a[k]));
    if (!shapeOk) throw handshakeFailed();
    const seed = randomBytes(HYBRID_SEED_BYTES);
    const keys = hybridKeys(seed);
    const challengeId = randomUUID();
    await write(ctx, async (w) => {
      // One slot count at a time across every instance (advisory lock / SQLite's write lock).
      await w.engine.lockKey(w.trx, "shampoo.auth.challenges");
      if ((await liveChallenges(w.trx, w.now)) >= CHALLENGE_SLOTS) throw handshakeFailed();
      const meta = (k: (typeof METADATA)[number]) => a[k] ?? null;
      const row: ChallengeRow = {
        challenge_id: challengeId,
        profile: ctx.caller.profile,
        seed: b64u(seed),
        ref_kind: a.ref_kind,
        ref_id: a.ref_id,
        client_kind: a.client_kind ?? null,
        client_name: meta("client_name"),
        client_version: meta("client_version"),
        client_instance_id: meta("client_instance_id"),
        transport: meta("transport"),
        user_agent: meta("user_agent"),
        issued_at: iso(w.now),
        expires_at: iso(w.now + CHALLENGE_TTL_S * 1000),
        consumed_at: null,
      };
      await insertChallenge(w.trx, row);
    });
    seed.fill(0);
    return {
      challenge_id: challengeId,
      server_ecdh: b64u(keys.ecdhPublic),
      server_kem: b64u(keys.kemPublic),
      suite: SUITE,
      expires_in: CHALLENGE_TTL_S,
    };
  });
}

/** Exact-length binary field, or the generic failure. */
function bytes(v: unknown, length: number | null): Uint8Array {
  const b = fromB64u(v);
  if (!b || (length !== null && b.length !== length) || b.length === 0) throw handshakeFailed();
  return b;
}

export function handshakeComplete(ctx: ShampooCtx, a: HandshakeCompleteInput, peer?: string) {
  return generic("handshake_complete", async () => {
    if (!isUuid(a.challenge_id)) throw handshakeFailed();
    // Consumed first, committed on its own: a failed attempt burns the slot all the same.
    const slot = await write(ctx, (w) => consumeChallenge(w.trx, a.challenge_id, w.now));
    if (!slot?.seed) throw handshakeFailed();
    const profile = a.profile ?? "default";
    if (!isProfile(profile)) throw handshakeFailed();
    const clientEcdh = bytes(a.client_ecdh, P256_POINT_BYTES);
    const kemCt = bytes(a.kem_ct, MLKEM768.ciphertextBytes);
    const envelope = {
      iv: bytes(a.envelope_iv, IV_BYTES),
      ct: bytes(a.envelope_ct, null),
      tag: bytes(a.envelope_tag, TAG_BYTES),
    };

    const keys = hybridKeys(bytes(slot.seed, HYBRID_SEED_BYTES));
    const shared = hybridDecapsulate(keys, kemCt, clientEcdh);
    const k = deriveKeys(shared, {
      challengeId: slot.challenge_id,
      refKind: slot.ref_kind,
      refId: slot.ref_id,
      profile,
      serverEcdh: keys.ecdhPublic,
      serverKem: keys.kemPublic,
      clientEcdh,
      kemCt,
    });
    const body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(open(k.envelope, envelope, k.th)));
    const credential = body?.credential;
    if (typeof credential !== "string" || credential.length === 0 || credential.length > 512) throw handshakeFailed();

    // The registry write is the connection's caller's (attribution only, never authority),
    // inside the requested profile: its events land in that profile's history.
    const hctx: ShampooCtx = { ...ctx, caller: { ...ctx.caller, profile } };
    const grant = await write(hctx, (w) =>
      slot.ref_kind === "ticket"
        ? redeemTicket(w, slot, credential, profile, peer)
        : bootstrap(w, slot, credential, profile, peer),
    );
    try {
      const sealed = seal(k.response, new TextEncoder().encode(JSON.stringify(grant)), k.th);
      return { iv: b64u(sealed.iv), ct: b64u(sealed.ct), tag: b64u(sealed.tag) };
    } catch (e) {
      // Post-commit failure: the session just made is revoked, never left orphaned.
      await write(hctx, (w) =>
        setSessionRevoked(w.trx, grant.session_id, {
          status: "revoked",
          revoked_at: iso(w.now),
          revoked_by: "handshake",
          revoke_reason: "response could not be sealed",
        }),
      );
      throw e;
    }
  });
}

/** Ticket path: burn the ticket, provision the principal, open its first session — one write. */
async function redeemTicket(
  w: WriteScope,
  slot: ChallengeRow,
  credential: string,
  profile: string,
  peer: string | undefined,
): Promise<SessionGrant> {
  const t = await getTicket(w.trx, profile, slot.ref_id);
  if (!t || t.redeemed_at !== null || Date.parse(t.expires_at) <= w.now || !sameDigest(t.secret_digest, credential)) {
    throw handshakeFailed();
  }
  const clientId = randomUUID();
  const eventId = await recordChange(w, {
    kind: "auth_ticket",
    id: t.ticket_id,
    action: "redeem",
    old: t,
    next: { ...t, redeemed_at: iso(w.now), redeemed_by: clientId },
    view: ticketView,
  });
  // Of concurrent redemptions exactly one passes this compare-and-swap; the rest roll back.
  if (!(await burnTicket(w.trx, t.ticket_id, clientId, w.now, eventId))) throw handshakeFailed();
  const bootstrapSecret = newSecret();
  const principal = await createRow(w, {
    table: "shampoo_auth_principals",
    kind: "auth_principal",
    id: clientId,
    action: "enrol",
    view: principalView,
    row: {
      client_id: clientId,
      profile,
      principal: t.user,
      role: t.role,
      projects_json: t.projects_json,
      kind: t.ticket_kind,
      bootstrap_digest: digest(bootstrapSecret),
      status: "active",
      generation: 0,
      ticket_id: t.ticket_id,
      created_at: iso(w.now),
      revoked_at: null,
      revoked_by: null,
      revoke_reason: null,
    },
  });
  const grant = await openSession(w, principal, slot, profile, peer);
  return { ...grant, bootstrap_secret: bootstrapSecret };
}

/** Bootstrap path: an enrolled, unrevoked principal proves its bootstrap secret. */
async function bootstrap(
  w: WriteScope,
  slot: ChallengeRow,
  credential: string,
  profile: string,
  peer: string | undefined,
): Promise<SessionGrant> {
  const p = await getPrincipal(w.trx, profile, slot.ref_id);
  if (p?.status !== "active" || !sameDigest(p.bootstrap_digest, credential)) throw handshakeFailed();
  return openSession(w, p, slot, profile, peer);
}

async function openSession(
  w: WriteScope,
  p: PrincipalRow,
  slot: ChallengeRow,
  profile: string,
  peer: string | undefined,
): Promise<SessionGrant> {
  const sessionId = randomUUID();
  const secret = newSecret();
  const eventId = await recordChange(w, {
    kind: "auth_principal",
    id: p.client_id,
    action: "session",
    old: p,
    next: { ...p, generation: p.generation + 1 },
    view: principalView,
  });
  if (!(await bumpGeneration(w.trx, p, eventId))) throw handshakeFailed();
  const row: Omit<AuthSessionRow, "last_event_id"> = {
    session_id: sessionId,
    profile,
    client_id: p.client_id,
    principal: p.principal,
    token_digest: digest(secret),
    status: "active",
    generation: p.generation + 1,
    created_at: iso(w.now),
    expires_at: iso(w.now + SESSION_TTL_S * 1000),
    revoked_at: null,
    revoked_by: null,
    revoke_reason: null,
    ref_kind: slot.ref_kind,
    client_kind: slot.client_kind,
    client_name: slot.client_name,
    client_version: slot.client_version,
    client_instance_id: slot.client_instance_id,
    transport: slot.transport,
    user_agent: slot.user_agent,
    peer: peer ?? null,
  };
  await createRow(w, {
    table: "shampoo_auth_sessions",
    kind: "auth_session",
    id: sessionId,
    action: "open",
    view: sessionEventView,
    row,
  });
  return {
    session_id: sessionId,
    client_id: p.client_id,
    principal: p.principal,
    expires_at: row.expires_at,
    session_token: sessionToken(sessionId, secret),
    profile,
  };
}
