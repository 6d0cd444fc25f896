import { sessionStatus } from "./rules.ts";
import type { AuthSessionRow, PrincipalRow, TicketRow } from "./schema.ts";

/**
 * Rows ↔ the public shapes: what list_sessions answers and what history events record. No digest
 * and no seed ever leaves the store; the registry holds no key material by construction.
 */

export const ticketView = (t: TicketRow) => ({
  ticket_id: t.ticket_id,
  user: t.user,
  role: t.role,
  projects: JSON.parse(t.projects_json) as string[],
  ticket_kind: t.ticket_kind,
  reason: t.reason,
  issued_by: t.issued_by,
  issued_at: t.issued_at,
  expires_at: t.expires_at,
  redeemed_at: t.redeemed_at,
  redeemed_by: t.redeemed_by,
});

export const principalView = (p: PrincipalRow) => ({
  client_id: p.client_id,
  principal: p.principal,
  role: p.role,
  projects: JSON.parse(p.projects_json) as string[],
  kind: p.kind,
  status: p.status,
  generation: p.generation,
  ticket_id: p.ticket_id,
  created_at: p.created_at,
  revoked_at: p.revoked_at,
  revoked_by: p.revoked_by,
  revoke_reason: p.revoke_reason,
});

export const sessionEventView = (s: AuthSessionRow) => ({
  session_id: s.session_id,
  client_id: s.client_id,
  principal: s.principal,
  status: s.status,
  generation: s.generation,
  expires_at: s.expires_at,
  revoked_at: s.revoked_at,
  revoked_by: s.revoked_by,
  revoke_reason: s.revoke_reason,
});

/** One row of list_sessions: audit metadata only. */
export function sessionListView(s: AuthSessionRow, now: number) {
  return {
    session_id: s.session_id,
    client_id: s.client_id,
    principal: s.principal,
    status: sessionStatus(s, now),
    generation: s.generation,
    created_at: s.created_at,
    expires_at: s.expires_at,
    revoked: s.status === "revoked",
    revoked_at: s.revoked_at,
    revoked_by: s.revoked_by,
    revoke_reason: s.revoke_reason,
    ref_kind: s.ref_kind,
    client_kind: s.client_kind,
    client_name: s.client_name,
    client_version: s.client_version,
    client_instance_id: s.client_instance_id,
    transport: s.transport,
    user_agent: s.user_agent,
    peer: s.peer,
    profile: s.profile,
  };
}

/** The plaintext of the sealed session response. */
export interface SessionGrant {
  session_id: string;
  client_id: string;
  principal: string;
  expires_at: string;
  session_token: string;
  profile: string;
  /** Ticket path only: the bootstrap credential that renews sessions from now on. */
  bootstrap_secret?: string;
}
