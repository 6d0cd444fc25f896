import type { Up } from "../../store/schema.ts";

/**
 * The auth registry: handshake challenges, enrolment tickets, enrolled principals and their
 * registry sessions. Everything an instance needs to finish a handshake or to resolve a session
 * token is here, so any instance behind one endpoint does either (no process memory).
 *
 * Secrets are never stored: tickets, bootstrap credentials and session tokens are kept as SHA-256
 * digests. The one exception is a challenge's 32-byte ephemeral seed, which must outlive the
 * request that issued it so another instance can complete it; it is wiped (NULL) the moment the
 * challenge is consumed, and an expired one is never read again.
 */

/** One challenge slot: single use, 300 s. `seed` is NULL once consumed. */
export interface ChallengeRow {
  challenge_id: string;
  /** The profile of the connection that asked (informational: the completion names its own). */
  profile: string;
  seed: string | null;
  ref_kind: string;
  ref_id: string;
  client_kind: string | null;
  client_name: string | null;
  client_version: string | null;
  client_instance_id: string | null;
  transport: string | null;
  user_agent: string | null;
  issued_at: string;
  expires_at: string;
  consumed_at: string | null;
}

/** A one-time enrolment ticket, its grant fixed at issue. */
export interface TicketRow {
  ticket_id: string;
  profile: string;
  secret_digest: string;
  user: string;
  role: string;
  /** JSON text: the granted projects ("" untagged, "*" star). */
  projects_json: string;
  ticket_kind: string;
  reason: string | null;
  issued_by: string;
  issued_at: string;
  expires_at: string;
  redeemed_at: string | null;
  /** The principal the redemption provisioned. */
  redeemed_by: string | null;
  last_event_id: string;
}

/** A principal enrolled by a ticket: its grant, its bootstrap credential (digest), its standing. */
export interface PrincipalRow {
  client_id: string;
  profile: string;
  principal: string;
  role: string;
  projects_json: string;
  kind: string;
  bootstrap_digest: string;
  status: "active" | "revoked";
  /** How many sessions it has opened. */
  generation: number;
  ticket_id: string;
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  revoke_reason: string | null;
  last_event_id: string;
}

/** A registry session: one hour, its bearer token known only by digest. */
export interface AuthSessionRow {
  session_id: string;
  profile: string;
  client_id: string;
  principal: string;
  token_digest: string;
  status: "active" | "revoked" | "ended";
  generation: number;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  revoke_reason: string | null;
  ref_kind: string;
  client_kind: string | null;
  client_name: string | null;
  client_version: string | null;
  client_instance_id: string | null;
  transport: string | null;
  user_agent: string | null;
  peer: string | null;
  last_event_id: string;
}

export interface AuthDB {
  shampoo_auth_challenges: ChallengeRow;
  shampoo_auth_tickets: TicketRow;
  shampoo_auth_principals: PrincipalRow;
  shampoo_auth_sessions: AuthSessionRow;
}

export const authMigrations: Record<string, Up> = {
  async "0001_registry"(db) {
    const text = "text" as const;
    await db.schema
      .createTable("shampoo_auth_challenges")
      .addColumn("challenge_id", text, (c) => c.primaryKey())
      .addColumn("profile", text, (c) => c.notNull())
      .addColumn("seed", text)
      .addColumn("ref_kind", text, (c) => c.notNull())
      .addColumn("ref_id", text, (c) => c.notNull())
      .addColumn("client_kind", text)
      .addColumn("client_name", text)
      .addColumn("client_version", text)
      .addColumn("client_instance_id", text)
      .addColumn("transport", text)
      .addColumn("user_agent", text)
      .addColumn("issued_at", text, (c) => c.notNull())
      .addColumn("expires_at", text, (c) => c.notNull())
      .addColumn("consumed_at", text)
      .execute();
    // The slot count: live challenges are unconsumed and unexpired.
    await db.schema
      .createIndex("shampoo_auth_challenges_live")
      .on("shampoo_auth_challenges")
      .columns(["consumed_at", "expires_at"])
      .execute();

    await db.schema
      .createTable("shampoo_auth_tickets")
      .addColumn("ticket_id", text, (c) => c.primaryKey())
      .addColumn("profile", text, (c) => c.notNull())
      .addColumn("secret_digest", text, (c) => c.notNull())
      .addColumn("user", text, (c) => c.notNull())
      .addColumn("role", text, (c) => c.notNull())
      .addColumn("projects_json", text, (c) => c.notNull())
      .addColumn("ticket_kind", text, (c) => c.notNull())
      .addColumn("reason", text)
      .addColumn("issued_by", text, (c) => c.notNull())
      .addColumn("issued_at", text, (c) => c.notNull())
      .addColumn("expires_at", text, (c) => c.notNull())
      .addColumn("redeemed_at", text)
      .addColumn("redeemed_by", text)
      .addColumn("last_event_id", text, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("shampoo_auth_principals")
      .addColumn("client_id", text, (c) => c.primaryKey())
      .addColumn("profile", text, (c) => c.notNull())
      .addColumn("principal", text, (c) => c.notNull())
      .addColumn("role", text, (c) => c.notNull())
      .addColumn("projects_json", text, (c) => c.notNull())
      .addColumn("kind", text, (c) => c.notNull())
      .addColumn("bootstrap_digest", text, (c) => c.notNull())
      .addColumn("status", text, (c) => c.notNull())
      .addColumn("generation", "integer", (c) => c.notNull())
      .addColumn("ticket_id", text, (c) => c.notNull())
      .addColumn("created_at", text, (c) => c.notNull())
      .addColumn("revoked_at", text)
      .addColumn("revoked_by", text)
      .addColumn("revoke_reason", text)
      .addColumn("last_event_id", text, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("shampoo_auth_sessions")
      .addColumn("session_id", text, (c) => c.primaryKey())
      .addColumn("profile", text, (c) => c.notNull())
      .addColumn("client_id", text, (c) => c.notNull())
      .addColumn("principal", text, (c) => c.notNull())
      .addColumn("token_digest", text, (c) => c.notNull())
      .addColumn("status", text, (c) => c.notNull())
      .addColumn("generation", "integer", (c) => c.notNull())
      .addColumn("created_at", text, (c) => c.notNull())
      .addColumn("expires_at", text, (c) => c.notNull())
      .addColumn("revoked_at", text)
      .addColumn("revoked_by", text)
      .addColumn("revoke_reason", text)
      .addColumn("ref_kind", text, (c) => c.notNull())
      .addColumn("client_kind", text)
      .addColumn("client_name", text)
      .addColumn("client_version", text)
      .addColumn("client_instance_id", text)
      .addColumn("transport", text)
      .addColumn("user_agent", text)
      .addColumn("peer", text)
      .addColumn("last_event_id", text, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_auth_sessions_list")
      .on("shampoo_auth_sessions")
      .columns(["profile", "client_id", "created_at"])
      .execute();
  },
};
