import { randomUUID } from "node:crypto";
import { iso, type Transaction } from "kernel";
import type { Caller } from "../access/caller.ts";
import type { ShampooDB } from "./schema.ts";

/** Where a mutation came from, recorded with its event (the "source span"). */
export interface Source {
  tool: string;
  session?: string;
  request?: string;
}

export interface Mutation {
  entityKind: string;
  entityId: string;
  action: string;
  old: unknown;
  new: unknown;
  payload?: unknown;
  /** The entity's previous event, if any: events of one entity form a chain. */
  parentEventId?: string | null;
}

/**
 * The one canonical mutation path's second half: every write records its history event in the
 * SAME transaction as the change, so a crash can never leave a change without its event or an
 * event without its change. The per-profile clock is bumped in that transaction too (a row lock
 * on PostgreSQL; SQLite serialises writers).
 */
export async function recordEvent(
  trx: Transaction<ShampooDB>,
  caller: Caller,
  source: Source,
  now: number,
  m: Mutation,
): Promise<string> {
  const eventId = randomUUID();
  await recordEvents(trx, caller, source, now, [{ ...m, eventId }]);
  return eventId;
}

/** One event of a batch: its id is chosen by the caller (rows can point at it before it is written). */
export interface PendingEvent extends Mutation {
  eventId: string;
}

/**
 * recordEvent for several events of one transaction at once: the clock is bumped once by their
 * number and the events get consecutive clock values in the order given, exactly as one
 * recordEvent per event would have given them; the rows are written by multi-row INSERTs.
 * Call it before the transaction commits (the events are part of it).
 */
export async function recordEvents(
  trx: Transaction<ShampooDB>,
  caller: Caller,
  source: Source,
  now: number,
  events: PendingEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const last = await nextClock(trx, caller.profile, events.length);
  const first = last - events.length + 1;
  const at = iso(now);
  const sourceJson = JSON.stringify(source);
  const rows = events.map((m, i) => ({
    event_id: m.eventId,
    profile: caller.profile,
    principal: caller.principal,
    role: caller.role,
    session_id: source.session ?? null,
    clock: first + i,
    at,
    entity_kind: m.entityKind,
    entity_id: m.entityId,
    action: m.action,
    old_json: m.old === undefined || m.old === null ? null : JSON.stringify(m.old),
    new_json: m.new === undefined || m.new === null ? null : JSON.stringify(m.new),
    payload_json: m.payload === undefined ? null : JSON.stringify(m.payload),
    parent_event_id: m.parentEventId ?? null,
    source_json: sourceJson,
  }));
  // 15 columns a row: 100 rows stay far below SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 100)
    await trx
      .insertInto("shampoo_history")
      .values(rows.slice(i, i + 100))
      .execute();
}

/** Bumps the profile's clock by `by`; returns its new value (the last of the `by` values taken). */
async function nextClock(trx: Transaction<ShampooDB>, profile: string, by = 1): Promise<number> {
  // One statement, race-free on both engines (INSERT … ON CONFLICT … RETURNING).
  const row = await trx
    .insertInto("shampoo_clocks")
    .values({ profile, clock: by })
    .onConflict((oc) => oc.column("profile").doUpdateSet((eb) => ({ clock: eb("shampoo_clocks.clock", "+", by) })))
    .returning("clock")
    .executeTakeFirstOrThrow();
  return Number(row.clock);
}
