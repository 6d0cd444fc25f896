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
  const clock = await nextClock(trx, caller.profile);
  const eventId = randomUUID();
  await trx
    .insertInto("shampoo_history")
    .values({
      event_id: eventId,
      profile: caller.profile,
      principal: caller.principal,
      role: caller.role,
      session_id: source.session ?? null,
      clock,
      at: iso(now),
      entity_kind: m.entityKind,
      entity_id: m.entityId,
      action: m.action,
      old_json: m.old === undefined || m.old === null ? null : JSON.stringify(m.old),
      new_json: m.new === undefined || m.new === null ? null : JSON.stringify(m.new),
      payload_json: m.payload === undefined ? null : JSON.stringify(m.payload),
      parent_event_id: m.parentEventId ?? null,
      source_json: JSON.stringify(source),
    })
    .execute();
  return eventId;
}

async function nextClock(trx: Transaction<ShampooDB>, profile: string): Promise<number> {
  // One statement, race-free on both engines (INSERT … ON CONFLICT … RETURNING).
  const row = await trx
    .insertInto("shampoo_clocks")
    .values({ profile, clock: 1 })
    .onConflict((oc) => oc.column("profile").doUpdateSet((eb) => ({ clock: eb("shampoo_clocks.clock", "+", 1) })))
    .returning("clock")
    .executeTakeFirstOrThrow();
  return Number(row.clock);
}
