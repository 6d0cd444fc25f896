import { type Engine, type Kysely, prepared, sql } from "kernel";
import { type AttemptRow, type CardRow, type ChamberDB, EVENT_KEY_SPAN, type EventRow } from "./schema.ts";

/**
 * The statements of the attempt lifecycle's hot path (every action runs three of them), compiled
 * once per database instead of rebuilt per call. Colder statements (keys, help, quarantine) stay
 * inline in the services with the builder. The one statement that differs per engine (the attempt
 * number: a sequence on PostgreSQL) is chosen here, from the engine adapter.
 */

/** Every column of a row type, checked complete by the compiler (inserts list their columns). */
function columnsOf<T>(shape: Record<keyof T, true>): Array<keyof T & string> {
  return Object.keys(shape) as Array<keyof T & string>;
}

/** The builder's markers are a proxy with no own keys: an insert picks its columns by name. */
function pick<T>(p: T, keys: Array<keyof T & string>): T {
  return Object.fromEntries(keys.map((k) => [k, p[k]])) as T;
}

const ATTEMPT_COLUMNS = columnsOf<AttemptRow>({
  handle: true,
  toolset_id: true,
  suite_id: true,
  suite_generation: true,
  manifest_hash: true,
  seed: true,
  seed_source: true,
  state: true,
  action_index: true,
  event_count: true,
  quarantine_reason: true,
  replay_salt: true,
  room_json: true,
  identity_json: true,
  observed_client_json: true,
  preflight_json: true,
  route_key: true,
  participation_class: true,
  assurance: true,
  channel: true,
  mcp_session: true,
  created_at: true,
  expires_at: true,
  updated_at: true,
  terminal_at: true,
  verdict: true,
  card_id: true,
  chain_head: true,
  attempt_no: true,
  seed_sealed_before: true,
});
const EVENT_COLUMNS = columnsOf<EventRow>({
  id: true,
  handle: true,
  seq: true,
  kind: true,
  action_index: true,
  request_json: true,
  response_json: true,
  private_json: true,
  at: true,
  hash: true,
});
const CARD_COLUMNS = columnsOf<CardRow>({
  card_id: true,
  handle: true,
  card_version: true,
  body_json: true,
  signature_json: true,
  evidence_status: true,
  created_at: true,
  signed_at: true,
});

export const selectAttempt = prepared<ChamberDB, { handle: string }, AttemptRow>((db, p) =>
  db.selectFrom("chamber_attempts").selectAll().where("handle", "=", p.handle),
);

/** The same row, locked for the transaction (PostgreSQL; SQLite's BEGIN IMMEDIATE already serialises writers). */
const selectAttemptForUpdate = prepared<ChamberDB, { handle: string }, AttemptRow>((db, p) =>
  db.selectFrom("chamber_attempts").selectAll().where("handle", "=", p.handle).forUpdate(),
);

/** The attempt row, locked until commit where the engine has row locks (`engine.caps.rowLock`). */
export function selectAttemptLocked(
  trx: Kysely<ChamberDB>,
  engine: Engine,
  handle: string,
): Promise<AttemptRow | undefined> {
  return (engine.caps.rowLock ? selectAttemptForUpdate : selectAttempt).first(trx, { handle });
}

export const insertAttempt = prepared<ChamberDB, AttemptRow>((db, p) =>
  db.insertInto("chamber_attempts").values(pick(p, ATTEMPT_COLUMNS)),
);

/** What one accepted action changes on the attempt row. */
export const updateAfterAction = prepared<
  ChamberDB,
  Pick<
    AttemptRow,
    "handle" | "state" | "action_index" | "room_json" | "updated_at" | "terminal_at" | "event_count" | "chain_head"
  >
>((db, p) =>
  db
    .updateTable("chamber_attempts")
    .set({
      state: p.state,
      action_index: p.action_index,
      room_json: p.room_json,
      updated_at: p.updated_at,
      terminal_at: p.terminal_at,
      event_count: p.event_count,
      chain_head: p.chain_head,
    })
    .where("handle", "=", p.handle),
);

export const updateAfterSeal = prepared<
  ChamberDB,
  Pick<
    AttemptRow,
    "handle" | "state" | "verdict" | "card_id" | "terminal_at" | "updated_at" | "event_count" | "chain_head"
  >
>((db, p) =>
  db
    .updateTable("chamber_attempts")
    .set({
      state: p.state,
      verdict: p.verdict,
      card_id: p.card_id,
      terminal_at: p.terminal_at,
      updated_at: p.updated_at,
      event_count: p.event_count,
      chain_head: p.chain_head,
    })
    .where("handle", "=", p.handle),
);

export const insertEvent = prepared<ChamberDB, EventRow>((db, p) =>
  db.insertInto("chamber_events").values(pick(p, EVENT_COLUMNS)),
);

/** The attempt's number, as a JS number on both engines (PostgreSQL returns bigint as a string). */
export function attemptNo(row: Pick<AttemptRow, "attempt_no">): number {
  const n = Number(row.attempt_no);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`attempt has no valid attempt_no (${String(row.attempt_no)})`);
  return n;
}

/** Event `seq` of attempt number `no`'s key (EventRow.id). */
export function eventKey(no: number, seq: number): number {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= EVENT_KEY_SPAN) throw new Error(`event seq ${seq} out of range`);
  return no * EVENT_KEY_SPAN + seq;
}

/** The next attempt number: the highest plus one under SQLite's write lock (BEGIN IMMEDIATE). */
const nextAttemptNoSqlite = prepared<ChamberDB, Record<string, never>, { no: number }>((db) =>
  db.selectFrom("chamber_attempts").select(sql<number>`coalesce(max(attempt_no), 0) + 1`.as("no")),
);

/** The next attempt number from a sequence: concurrent PostgreSQL transactions never share one. */
const nextAttemptNoPostgres = prepared<ChamberDB, Record<string, never>, { no: string }>((db) =>
  db.selectNoFrom(sql<string>`nextval('chamber_attempt_no_seq')`.as("no")),
);

/** A number for a new attempt, inside the transaction that inserts it (the sequence exists on PostgreSQL only). */
export async function nextAttemptNo(trx: Kysely<ChamberDB>, engine: Engine): Promise<number> {
  const next =
    engine.dialect === "postgres"
      ? await nextAttemptNoPostgres.first(trx, {})
      : await nextAttemptNoSqlite.first(trx, {});
  return Number(next?.no);
}

/** What a replay reads of an event (its key only orders them). */
export type StoredEventRow = Omit<EventRow, "id">;
const STORED_EVENT_COLUMNS = EVENT_COLUMNS.filter((c): c is Exclude<keyof EventRow, "id"> => c !== "id");

/** An attempt's events in order: the key range of its number. */
export const selectEvents = prepared<ChamberDB, { lo: number; hi: number }, StoredEventRow>((db, p) =>
  db
    .selectFrom("chamber_events")
    .select(STORED_EVENT_COLUMNS)
    .where("id", ">=", p.lo)
    .where("id", "<", p.hi)
    .orderBy("id"),
);

/** selectEvents' range for one attempt. */
export function eventRange(row: Pick<AttemptRow, "attempt_no">): { lo: number; hi: number } {
  const no = attemptNo(row);
  return { lo: no * EVENT_KEY_SPAN, hi: (no + 1) * EVENT_KEY_SPAN };
}

export const insertCard = prepared<ChamberDB, CardRow>((db, p) =>
  db.insertInto("chamber_cards").values(pick(p, CARD_COLUMNS)),
);

export const selectCard = prepared<ChamberDB, { card_id: string }, CardRow>((db, p) =>
  db.selectFrom("chamber_cards").selectAll().where("card_id", "=", p.card_id),
);

/** Stores a signature on a card still pending (a concurrent seal may have signed it first). */
export const signCard = prepared<ChamberDB, { card_id: string; signature_json: string; signed_at: string }>((db, p) =>
  db
    .updateTable("chamber_cards")
    .set({ signature_json: p.signature_json, evidence_status: "signed", signed_at: p.signed_at })
    .where("card_id", "=", p.card_id)
    .where("evidence_status", "=", "pending_signature"),
);

/** The attempt of a card just signed is sealed. */
export const markSealed = prepared<ChamberDB, { handle: string; updated_at: string }>((db, p) =>
  db.updateTable("chamber_attempts").set({ state: "sealed", updated_at: p.updated_at }).where("handle", "=", p.handle),
);

/**
 * Stores a signed tree head only if no head of this size or larger is stored (one statement, the
 * same on both engines): heads only ever grow, so once a head covers a card no smaller one can
 * appear, and the head a proof is frozen at (evidence/log.ts inclusionAtIssue) stays the first.
 * Returns whether it was stored.
 */
export async function insertHeadIfNewest(db: Kysely<ChamberDB>, treeSize: number, headJson: string): Promise<boolean> {
  const r = await sql`
    INSERT INTO chamber_log_heads (tree_size, head_json)
    SELECT CAST(${treeSize} AS BIGINT), ${headJson}
    WHERE NOT EXISTS (SELECT 1 FROM chamber_log_heads WHERE tree_size >= ${treeSize})
    ON CONFLICT (tree_size) DO NOTHING`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}
