import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { type Caller, makeCaller, type Role } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, notFound } from "../../../platform/errors.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { read, write } from "../../../platform/write.ts";
import type { IssueTicketInput, ListSessionsInput, RevokePrincipalInput, RevokeSessionInput } from "../inputs.gen.ts";
import { principalView, sessionEventView, sessionListView, ticketView } from "../model.ts";
import {
  digest,
  isUuid,
  listLimit,
  newSecret,
  oneOf,
  parseSessionToken,
  SESSION_STATUSES,
  sameDigest,
  sessionStatus,
  TICKET_ISSUE_FAILED,
  TICKET_KINDS,
  ticketProjects,
  ticketTtl,
  userOk,
} from "../rules.ts";
import type { AuthSessionRow, PrincipalRow } from "../schema.ts";
import { activeSessionsOf, getPrincipal, getSessionRow, listSessionRows, sessionWithPrincipal } from "../store.ts";

/**
 * The conductor's side of the registry: tickets, the session list, revocation; and the one
 * question every HTTP request asks of it (`resolveSessionToken`). Revocation is a row change, and
 * every request resolves its token against the rows, so a revocation made on any instance holds
 * on every instance from the very next call.
 */

const ticketFailed = () => fail("ticket_issue_failed", TICKET_ISSUE_FAILED);

export function issueTicket(ctx: ShampooCtx, a: IssueTicketInput) {
  const role = a.role ?? "agent";
  const kind = a.ticket_kind ?? "standard";
  const ttl = ticketTtl(a.ttl_seconds);
  const projects = ticketProjects(ctx.caller, a.projects);
  if (
    !userOk(a.user) ||
    !projects ||
    !oneOf(["agent", "conductor"], role) ||
    !oneOf(TICKET_KINDS, kind) ||
    ttl === null
  ) {
    throw ticketFailed();
  }
  if (a.reason !== undefined && a.reason !== null && a.reason.length > 1000) throw ticketFailed();
  const secret = newSecret();
  const ticketId = randomUUID();
  return write(ctx, async (w) => {
    await createRow(w, {
      table: "shampoo_auth_tickets",
      kind: "auth_ticket",
      id: ticketId,
      action: "issue",
      view: ticketView,
      row: {
        ticket_id: ticketId,
        profile: ctx.caller.profile,
        secret_digest: digest(secret),
        user: a.user,
        role,
        projects_json: JSON.stringify(projects),
        ticket_kind: kind,
        reason: given(a.reason) ?? null,
        issued_by: ctx.caller.principal,
        issued_at: iso(w.now),
        expires_at: iso(w.now + ttl * 1000),
        redeemed_at: null,
        redeemed_by: null,
      },
    });
    return {
      ticket_id: ticketId,
      secret,
      note: "The secret is shown once: deliver it out of band. It travels only inside the encrypted handshake envelope (npx shampoo login). One redemption; it expires unredeemed.",
      expires_at: iso(w.now + ttl * 1000),
      profile: ctx.caller.profile,
    };
  });
}

export function listSessions(ctx: ShampooCtx, a: ListSessionsInput) {
  const status = given(a.status);
  const clientId = given(a.client_id);
  const limit = listLimit(a.limit);
  const now = ctx.clock.now();
  if (status !== undefined && !oneOf(SESSION_STATUSES, status)) return Promise.resolve({ sessions: [], count: 0 });
  return read(ctx, async (db) => {
    const rows = await listSessionRows(db, { profile: ctx.caller.profile, clientId, status, limit, now });
    const sessions = rows.map((r) => sessionListView(r, now));
    return { sessions, count: sessions.length };
  });
}

const revokedSet = (now: number, by: string, reason: string | null) => ({
  status: "revoked" as const,
  revoked_at: iso(now),
  revoked_by: by,
  revoke_reason: reason,
});

async function revokeSessionRow(
  w: Parameters<Parameters<typeof write>[1]>[0],
  s: AuthSessionRow,
  reason: string | null,
) {
  await changeRow(w, {
    table: "shampoo_auth_sessions",
    kind: "auth_session",
    action: "revoke",
    old: s,
    set: revokedSet(w.now, w.ctx.caller.principal, reason),
    view: sessionEventView,
    key: { column: "session_id", value: s.session_id },
  });
}

export function revokeSession(ctx: ShampooCtx, a: RevokeSessionInput) {
  const reason = given(a.reason) ?? null;
  return write(ctx, async (w) => {
    const s = isUuid(a.session_id) ? await getSessionRow(w.trx, a.session_id) : undefined;
    if (!s || s.profile !== ctx.caller.profile) throw notFound("session");
    const before = sessionStatus(s, w.now);
    if (s.status !== "active") return { session_id: s.session_id, revoked: false, status: before };
    await revokeSessionRow(w, s, reason);
    return { session_id: s.session_id, revoked: true, status: "revoked" };
  });
}

export function revokePrincipal(ctx: ShampooCtx, a: RevokePrincipalInput) {
  const reason = given(a.reason) ?? null;
  return write(ctx, async (w) => {
    const p = isUuid(a.client_id) ? await getPrincipal(w.trx, ctx.caller.profile, a.client_id) : undefined;
    if (!p) throw notFound("principal");
    let sessions = 0;
    for (const s of await activeSessionsOf(w.trx, p.client_id, w.now)) {
      await revokeSessionRow(w, s, reason);
      sessions++;
    }
    if (p.status !== "active")
      return { client_id: p.client_id, revoked: false, status: p.status, sessions_revoked: sessions };
    await changeRow(w, {
      table: "shampoo_auth_principals",
      kind: "auth_principal",
      action: "revoke",
      old: p as PrincipalRow,
      set: revokedSet(w.now, ctx.caller.principal, reason),
      view: principalView,
      key: { column: "client_id", value: p.client_id },
    });
    return { client_id: p.client_id, revoked: true, status: "revoked", sessions_revoked: sessions };
  });
}

/**
 * The caller a registry session token stands for, read from the database on every call: null
 * for an unknown, wrong, expired or revoked session, or a revoked principal.
 */
export async function resolveSessionToken(ctx: ShampooCtx, token: string): Promise<Caller | null> {
  const parsed = parseSessionToken(token);
  if (!parsed) return null;
  const now = ctx.clock.now();
  const row = await read(ctx, (db) => sessionWithPrincipal(db, parsed.sessionId));
  if (!row || !sameDigest(row.token_digest, parsed.secret)) return null;
  if (row.status !== "active" || Date.parse(row.expires_at) <= now || row.principal_status !== "active") return null;
  return makeCaller({
    principal: row.principal,
    role: row.role as Role,
    profile: row.profile,
    grants: JSON.parse(row.projects_json) as string[],
  });
}
