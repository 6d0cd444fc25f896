import { randomUUID } from "node:crypto";
import { iso, type Prepared, prepared, type Transaction } from "kernel";
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
  /**
   * The project the row was in when the event happened (null: untagged). Default: the `project`
   * of `old` when it has one, else of `new`; neither → unknown.
   */
  project?: string | null;
}

/** The history `project` column of a mutation: "" untagged, null unknown (see Mutation.project). */
function eventProject(m: Mutation): string | null {
  const of = (v: unknown): { found: boolean; project: unknown } =>
    v !== null && typeof v === "object" && "project" in v
      ? { found: true, project: (v as { project: unknown }).project }
      : { found: false, project: undefined };
  let p: unknown;
  if (m.project !== undefined) p = m.project;
  else {
    const o = of(m.old);
    const n = of(m.new);
    if (o.found) p = o.project;
    else if (n.found) p = n.project;
    else return null;
  }
  return typeof p === "string" ? p : "";
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
 * recordEvent for several events of one transaction at once: the events get consecutive clock
 * values in the order given, exactly as one recordEvent per event would have given them.
 *
 * Inside platform `write()` (deferHistory below) the events are only collected: write() writes
 * them all, with ONE clock bump per profile, at the end of the transaction, so the clock row
 * (hot on PostgreSQL: every writer of a profile updates it) is locked only for the commit.
 * Elsewhere the clock is bumped and the rows written now, before the transaction commits.
 */
export async function recordEvents(
  trx: Transaction<ShampooDB>,
  caller: Caller,
  source: Source,
  now: number,
  events: PendingEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const at = iso(now);
  const sourceJson = JSON.stringify(source);
  const rows: Unclocked[] = events.map((m) => ({
    event_id: m.eventId,
    profile: caller.profile,
    principal: caller.principal,
    role: caller.role,
    session_id: source.session ?? null,
    at,
    entity_kind: m.entityKind,
    entity_id: m.entityId,
    action: m.action,
    old_json: m.old === undefined || m.old === null ? null : JSON.stringify(m.old),
    new_json: m.new === undefined || m.new === null ? null : JSON.stringify(m.new),
    payload_json: m.payload === undefined ? null : JSON.stringify(m.payload),
    parent_event_id: m.parentEventId ?? null,
    source_json: sourceJson,
    project: eventProject(m),
  }));
  const deferred = pendingHistory.get(trx);
  if (deferred) deferred.push(...rows);
  else await writeHistory(trx, rows);
}

/** A history row before its clock value is known. */
type Unclocked = Omit<Record<(typeof HISTORY_COLUMNS)[number], unknown>, "clock"> & { profile: string };

/** Transactions whose events are written at their end (platform write()). */
const pendingHistory = new WeakMap<object, Unclocked[]>();

/** The events of a transaction that are collected, not yet written (platform write()). */
export interface DeferredHistory {
  /** How many events wait. */
  pending(): number;
  /** Writes the waiting events now (one clock bump per profile); later ones are collected again. */
  flush(): Promise<number>;
  /** Writes the waiting events and stops collecting: call it last inside the transaction. */
  end(): Promise<number>;
}

/**
 * Collects the events recorded on `trx` until flushed (one clock bump per profile, then
 * multi-row INSERTs). `end()` last inside the transaction.
 */
export function deferHistory(trx: Transaction<ShampooDB>): DeferredHistory {
  const rows: Unclocked[] = [];
  pendingHistory.set(trx, rows);
  const flush = async () => {
    const batch = rows.splice(0);
    await writeHistory(trx, batch);
    return batch.length;
  };
  return {
    pending: () => rows.length,
    flush,
    end: async () => {
      const n = await flush();
      pendingHistory.delete(trx);
      return n;
    },
  };
}

async function writeHistory(trx: Transaction<ShampooDB>, unclocked: Unclocked[]): Promise<void> {
  if (unclocked.length === 0) return;
  const byProfile = new Map<string, Unclocked[]>();
  for (const r of unclocked) {
    const list = byProfile.get(r.profile);
    if (list) list.push(r);
    else byProfile.set(r.profile, [r]);
  }
  const rows: Record<string, unknown>[] = [];
  // Profiles in name order: two transactions touching the same profiles lock their clock rows in
  // the same order (no deadlock on PostgreSQL).
  for (const profile of [...byProfile.keys()].sort()) {
    const list = byProfile.get(profile) as Unclocked[];
    const last = await nextClock(trx, profile, list.length);
    const first = last - list.length + 1;
    list.forEach((r, i) => {
      rows.push({ ...r, clock: first + i });
    });
  }
  // Back in the order recorded (seq follows it), clocks already fixed per profile.
  const order = new Map(unclocked.map((r, i) => [r.event_id, i]));
  if (byProfile.size > 1)
    rows.sort((a, b) => (order.get(a.event_id as string) ?? 0) - (order.get(b.event_id as string) ?? 0));
  // 16 columns a row: 100 rows stay far below SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += HISTORY_BATCH) {
    const batch = rows.slice(i, i + HISTORY_BATCH);
    const values: Record<string, unknown> = {};
    batch.forEach((row, k) => {
      for (const c of HISTORY_COLUMNS) values[`${c}${k}`] = row[c];
    });
    await insertHistory(batch.length).run(trx, values);
  }
}

const HISTORY_BATCH = 100;
const HISTORY_COLUMNS = [
  "event_id",
  "profile",
  "principal",
  "role",
  "session_id",
  "clock",
  "at",
  "entity_kind",
  "entity_id",
  "action",
  "old_json",
  "new_json",
  "payload_json",
  "parent_event_id",
  "source_json",
  "project",
] as const;

/**
 * The multi-row history INSERT of `n` rows, compiled once per row count and database (kernel
 * prepared(): Kysely's builder and compiler cost more than running the statement on SQLite);
 * value `${column}${k}` is column of row k.
 */
const historyInserts = new Map<number, Prepared<ShampooDB, Record<string, unknown>, unknown>>();
function insertHistory(n: number): Prepared<ShampooDB, Record<string, unknown>, unknown> {
  let p = historyInserts.get(n);
  if (!p) {
    p = prepared<ShampooDB, Record<string, unknown>, unknown>((db, m) =>
      db.insertInto("shampoo_history").values(
        Array.from({ length: n }, (_, k) => {
          const row: Record<string, unknown> = {};
          for (const c of HISTORY_COLUMNS) row[c] = m[`${c}${k}`];
          return row as never;
        }),
      ),
    );
    historyInserts.set(n, p);
  }
  return p;
}

/** The clock bump (INSERT … ON CONFLICT … RETURNING), compiled once per database. */
const bumpClock = prepared<ShampooDB, { profile: string; by: number }, { clock: number | string | bigint }>((db, p) =>
  db
    .insertInto("shampoo_clocks")
    .values({ profile: p.profile, clock: p.by })
    .onConflict((oc) => oc.column("profile").doUpdateSet((eb) => ({ clock: eb("shampoo_clocks.clock", "+", p.by) })))
    .returning("clock"),
);

/** Bumps the profile's clock by `by`; returns its new value (the last of the `by` values taken). */
async function nextClock(trx: Transaction<ShampooDB>, profile: string, by = 1): Promise<number> {
  // One statement, race-free on both engines (INSERT … ON CONFLICT … RETURNING).
  const row = await bumpClock.first(trx, { profile, by });
  if (!row) throw new Error("clock bump returned no row");
  return Number(row.clock);
}
