import { iso, type Kysely, type Transaction } from "kernel";
import type { ShampooDB } from "../../store/schema.ts";
import type { AuthSessionRow, ChallengeRow, PrincipalRow, TicketRow } from "./schema.ts";

/** Every query of the auth registry's tables. */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** Live (unconsumed, unexpired) challenges: the slots in use. */
export async function liveChallenges(db: Db, now: number): Promise<number> {
  const r = await db
    .selectFrom("shampoo_auth_challenges")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("consumed_at", "is", null)
    .where("expires_at", ">", iso(now))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function insertChallenge(db: Db, row: ChallengeRow): Promise<void> {
  await db.insertInto("shampoo_auth_challenges").values(row).execute();
}

/**
 * Consumes a challenge: one compare-and-swap that only a live, unconsumed slot passes, wiping
 * its seed in the same statement. Of any number of concurrent attempts exactly one gets the row.
 */
export async function consumeChallenge(db: Db, challengeId: string, now: number): Promise<ChallengeRow | null> {
  const row = await db
    .selectFrom("shampoo_auth_challenges")
    .selectAll()
    .where("challenge_id", "=", challengeId)
    .executeTakeFirst();
  if (!row || row.consumed_at !== null || row.seed === null) return null;
  const r = await db
    .updateTable("shampoo_auth_challenges")
    .set({ consumed_at: iso(now), seed: null })
    .where("challenge_id", "=", challengeId)
    .where("consumed_at", "is", null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  return Date.parse(row.expires_at) > now ? row : null;
}

export async function insertTicket(db: Db, row: TicketRow): Promise<void> {
  await db.insertInto("shampoo_auth_tickets").values(row).execute();
}

export function getTicket(db: Db, profile: string, ticketId: string): Promise<TicketRow | undefined> {
  return db
    .selectFrom("shampoo_auth_tickets")
    .selectAll()
    .where("profile", "=", profile)
    .where("ticket_id", "=", ticketId)
    .executeTakeFirst();
}

/** Burns a ticket: only an unredeemed one; true for exactly one of any concurrent redemptions. */
export async function burnTicket(db: Db, ticketId: string, clientId: string, now: number, eventId: string) {
  const r = await db
    .updateTable("shampoo_auth_tickets")
    .set({ redeemed_at: iso(now), redeemed_by: clientId, last_event_id: eventId })
    .where("ticket_id", "=", ticketId)
    .where("redeemed_at", "is", null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export function getPrincipal(db: Db, profile: string, clientId: string): Promise<PrincipalRow | undefined> {
  return db
    .selectFrom("shampoo_auth_principals")
    .selectAll()
    .where("profile", "=", profile)
    .where("client_id", "=", clientId)
    .executeTakeFirst();
}

export async function insertPrincipal(db: Db, row: PrincipalRow): Promise<void> {
  await db.insertInto("shampoo_auth_principals").values(row).execute();
}

/** The next session generation of an active principal (compare-and-swap on the old one). */
export async function bumpGeneration(db: Db, p: PrincipalRow, eventId: string): Promise<boolean> {
  const r = await db
    .updateTable("shampoo_auth_principals")
    .set({ generation: p.generation + 1, last_event_id: eventId })
    .where("client_id", "=", p.client_id)
    .where("generation", "=", p.generation)
    .where("status", "=", "active")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function revokePrincipalRow(db: Db, clientId: string, set: Partial<PrincipalRow>): Promise<boolean> {
  const r = await db
    .updateTable("shampoo_auth_principals")
    .set(set)
    .where("client_id", "=", clientId)
    .where("status", "=", "active")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertSession(db: Db, row: AuthSessionRow): Promise<void> {
  await db.insertInto("shampoo_auth_sessions").values(row).execute();
}

export function getSessionRow(db: Db, sessionId: string): Promise<AuthSessionRow | undefined> {
  return db.selectFrom("shampoo_auth_sessions").selectAll().where("session_id", "=", sessionId).executeTakeFirst();
}

export async function setSessionRevoked(db: Db, sessionId: string, set: Partial<AuthSessionRow>): Promise<boolean> {
  const r = await db
    .updateTable("shampoo_auth_sessions")
    .set(set)
    .where("session_id", "=", sessionId)
    .where("status", "=", "active")
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A principal's live sessions: active and not yet expired (an expired one stays `expired`). */
export function activeSessionsOf(db: Db, clientId: string, now: number): Promise<AuthSessionRow[]> {
  return db
    .selectFrom("shampoo_auth_sessions")
    .selectAll()
    .where("client_id", "=", clientId)
    .where("status", "=", "active")
    .where("expires_at", ">", iso(now))
    .execute();
}

/**
 * Sessions of a profile, newest first, narrowed by principal and by status (expired = an active
 * row past its expiry; active = one that is not).
 */
export function listSessionRows(
  db: Db,
  q: { profile: string; clientId?: string | undefined; status?: string | undefined; limit: number; now: number },
): Promise<AuthSessionRow[]> {
  let s = db.selectFrom("shampoo_auth_sessions").selectAll().where("profile", "=", q.profile);
  if (q.clientId !== undefined) s = s.where("client_id", "=", q.clientId);
  if (q.status === "expired") s = s.where("status", "=", "active").where("expires_at", "<=", iso(q.now));
  else if (q.status === "active") s = s.where("status", "=", "active").where("expires_at", ">", iso(q.now));
  else if (q.status !== undefined) s = s.where("status", "=", q.status as AuthSessionRow["status"]);
  return s.orderBy("created_at", "desc").orderBy("session_id").limit(q.limit).execute();
}

/** A session with its principal's standing and grant: what the HTTP layer resolves a token to. */
export function sessionWithPrincipal(db: Db, sessionId: string) {
  return db
    .selectFrom("shampoo_auth_sessions as s")
    .innerJoin("shampoo_auth_principals as p", "p.client_id", "s.client_id")
    .select([
      "s.session_id",
      "s.profile",
      "s.token_digest",
      "s.status",
      "s.expires_at",
      "s.client_id",
      "p.principal",
      "p.role",
      "p.projects_json",
      "p.status as principal_status",
    ])
    .where("s.session_id", "=", sessionId)
    .executeTakeFirst();
}
