import { iso } from "kernel";
import { type Change, changeRow, recordChange } from "../../../platform/rows.ts";
import type { WriteScope } from "../../../platform/write.ts";
import { entityView, observationView, relationView } from "../model.ts";
import type { Entity, Observation, RelationRow } from "../schema.ts";

/**
 * The graph's use of the platform's row-change chain (platform/rows.ts): every changed row gets
 * one history event. write() defers the events and writes them together before the commit (one
 * clock bump, multi-row INSERTs); a graph write flushes them once EVENT_BATCH are waiting, so a
 * bulk import never holds them all in memory.
 */

/** Events waiting beyond this are written at once. */
const EVENT_BATCH = 200;

async function flushIfMany(w: WriteScope): Promise<void> {
  if (w.pendingEvents() >= EVENT_BATCH) await w.flushEvents();
}

/**
 * recordChange, then the batch flush: for rows whose write is not one plain UPDATE (inserts
 * that carry their create event's id, a guarded void). Alias rows have no `last_event_id`
 * (their one event is their creation), hence the looser row type.
 */
export async function record<R extends object>(w: WriteScope, c: Change<R>): Promise<string> {
  const eventId = await recordChange(w, c as Change<R & { last_event_id?: string }>);
  await flushIfMany(w);
  return eventId;
}

/**
 * Applies `set` to an entity row with one event (changeRow), stamping updated_at; returns the
 * new row. Only the changed columns are written, so a touch never re-indexes the
 * name/alias/type search documents.
 */
export async function changeEntity(w: WriteScope, old: Entity, set: Partial<Entity>, action: string): Promise<Entity> {
  const { row } = await changeRow(w, {
    table: "shampoo_entities",
    kind: "entity",
    view: entityView,
    action,
    old,
    set: { ...set, updated_at: iso(w.now) },
  });
  await flushIfMany(w);
  return row;
}

/** changeRow of an observation row (a void or a revive), then the batch flush. */
export async function changeObservationRow(
  w: WriteScope,
  spec: Omit<Parameters<typeof changeRow<"shampoo_observations", Observation>>[1], "table" | "kind" | "view">,
): Promise<Observation> {
  const { row } = await changeRow(w, {
    table: "shampoo_observations",
    kind: "observation",
    view: observationView,
    ...spec,
  });
  await flushIfMany(w);
  return row;
}

/** changeRow of a relation row (a revive), then the batch flush. */
export async function changeRelationRow(
  w: WriteScope,
  spec: Omit<Parameters<typeof changeRow<"shampoo_relations", RelationRow>>[1], "table" | "kind" | "view">,
): Promise<RelationRow> {
  const { row } = await changeRow(w, { table: "shampoo_relations", kind: "relation", view: relationView, ...spec });
  await flushIfMany(w);
  return row;
}
