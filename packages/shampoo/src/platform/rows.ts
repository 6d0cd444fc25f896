import type { Transaction } from "kernel";
import type { ShampooDB } from "../store/schema.ts";
import type { WriteScope } from "./write.ts";

/**
 * The one "change a row and record its history event" chain, for every domain. A row that is
 * audited carries `last_event_id`: its event is written in the same transaction (write()), the
 * row points at it, and each row's events chain through `parentEventId` (the row's previous
 * event). The event's `old`/`new` are the domain's public view of the row (`view`), never raw
 * internals such as `profile`.
 *
 *   const row = await createRow(w, { table: "shampoo_reviews", kind: "review", view, row: { … } });
 *   const { row: after } = await changeRow(w, { table: "shampoo_reviews", kind: "review", action: "accept",
 *     view, old, set: { state: "accepted" } });
 *
 * A domain whose insert or update needs more than one plain statement (full-text rows, batched
 * inserts) records the event with `recordChange` and writes the row itself.
 */

/** Rows the chain can write: audited rows of any SHAMPOO table, keyed by a text id column. */
type Audited = { last_event_id: string };
type Table = keyof ShampooDB & string;
type RowOf<T extends Table> = ShampooDB[T] extends Audited ? ShampooDB[T] : never;

/** What an event says about one row change. */
export interface Change<R> {
  /** The history `entity_kind` (task, entity, fact, …). */
  kind: string;
  /** The row's id as history names it. */
  id: string;
  action: string;
  /** The row before the change; null for a creation. */
  old: R | null;
  /** The row after the change. */
  next: R;
  /** The public shape history records for a row. */
  view: (row: R) => unknown;
  payload?: unknown;
  /** A pre-chosen event id (a row already written with it). */
  eventId?: string;
}

/** Records the event of one row change (chained to the row's previous event); returns its id. */
export function recordChange<R extends Partial<Audited>>(w: WriteScope, c: Change<R>): Promise<string> {
  return w.event({
    entityKind: c.kind,
    entityId: c.id,
    action: c.action,
    old: c.old ? c.view(c.old) : null,
    new: c.view(c.next),
    payload: c.payload,
    parentEventId: c.old?.last_event_id ?? null,
    ...(c.eventId ? { eventId: c.eventId } : {}),
  });
}

/** An untyped handle for a table named at run time (the generic helpers below). */
function loose(trx: Transaction<ShampooDB>): Transaction<Record<string, Record<string, unknown>>> {
  return trx as unknown as Transaction<Record<string, Record<string, unknown>>>;
}

/**
 * Inserts `row` with its "create" event (or `action`): the event first, so the row is written
 * already pointing at it. Returns the row as stored.
 */
export async function createRow<T extends Table, R extends RowOf<T>>(
  w: WriteScope,
  spec: {
    table: T;
    kind: string;
    /** The id history names (default: the row's `id`). */
    id?: string;
    row: Omit<R, "last_event_id">;
    view: (row: R) => unknown;
    action?: string;
    payload?: unknown;
  },
): Promise<R> {
  const draft = { ...spec.row, last_event_id: "" } as R;
  const id = spec.id ?? String((spec.row as Record<string, unknown>).id);
  draft.last_event_id = await recordChange(w, {
    kind: spec.kind,
    id,
    action: spec.action ?? "create",
    old: null,
    next: draft,
    view: spec.view,
    payload: spec.payload,
  });
  await loose(w.trx)
    .insertInto(spec.table as string)
    .values(draft as Record<string, unknown>)
    .execute();
  return draft;
}

/**
 * Applies `set` to the row `old` (found by `key`, default `id`) with its event, chained to the
 * row's previous one; returns the event id and the row as it now stands. The caller has read
 * `old` in this transaction (locked where the engine locks rows: `w.engine.forUpdate`).
 */
export async function changeRow<T extends Table, R extends RowOf<T>>(
  w: WriteScope,
  spec: {
    table: T;
    kind: string;
    action: string;
    old: R;
    set: Partial<Omit<R, "last_event_id">>;
    view: (row: R) => unknown;
    /** The key column and value that find the row (default: `id` = old.id); with the row's profile. */
    key?: { column: string; value: string };
    /** The id history names (default: the key's value). */
    id?: string;
    payload?: unknown;
  },
): Promise<{ eventId: string; row: R }> {
  const key = spec.key ?? { column: "id", value: String((spec.old as Record<string, unknown>).id) };
  const next = { ...spec.old, ...spec.set } as R;
  const eventId = await recordChange(w, {
    kind: spec.kind,
    id: spec.id ?? key.value,
    action: spec.action,
    old: spec.old,
    next,
    view: spec.view,
    payload: spec.payload,
  });
  next.last_event_id = eventId;
  let update = loose(w.trx)
    .updateTable(spec.table as string)
    .set({ ...(spec.set as Record<string, unknown>), last_event_id: eventId })
    .where(key.column, "=", key.value);
  // Rows that carry a profile are found inside the caller's profile only: an id never reaches
  // across the profile boundary, whatever the table's key.
  const profile = (spec.old as Record<string, unknown>).profile;
  if (typeof profile === "string") update = update.where("profile", "=", profile);
  await update.execute();
  return { eventId, row: next };
}
