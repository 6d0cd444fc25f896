import { iso, type Transaction } from "kernel";
import type { ShampooCtx } from "../../context.ts";
import type { WriteScope } from "../../platform/write.ts";
import { recordEvent } from "../../store/history.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { tasksWritten } from "./hooks.ts";
import { taskView } from "./model.ts";
import type { TaskRow } from "./schema.ts";
import { insertTask, updateTaskRow } from "./store.ts";

/**
 * The canonical task mutations, inside a platform write(): the row, its history event (a change
 * chained to the task's previous one) and the `tasksWritten` listeners (links' auto-discovery),
 * all in the write's transaction.
 */
/** Tells the `tasksWritten` listeners (links' auto-discovery) about a row just written. */
async function written(w: WriteScope, taskId: string, change: "create" | "update", fields: string[]): Promise<void> {
  for (const listener of tasksWritten.all()) await listener(w, { taskId, change, fields });
}

/** Inserts a new row with its "create" event. */
export async function createTask(w: WriteScope, row: TaskRow, payload: unknown): Promise<void> {
  row.last_event_id = await w.event({
    entityKind: "task",
    entityId: row.id,
    action: "create",
    old: null,
    new: taskView(row),
    payload,
  });
  await insertTask(w.trx, row);
  await written(w, row.id, "create", Object.keys(row));
}

/** Applies `set` to an existing row with its event; returns the event id. */
export async function changeTask(
  w: WriteScope,
  old: TaskRow,
  set: Partial<TaskRow>,
  action: string,
  payload: unknown,
): Promise<string> {
  const change: Partial<TaskRow> = { ...set, updated_at: iso(w.now) };
  const eventId = await w.event({
    entityKind: "task",
    entityId: old.id,
    action,
    old: taskView(old),
    new: taskView({ ...old, ...change }),
    payload,
    parentEventId: old.last_event_id,
  });
  await updateTaskRow(w.trx, old.id, { ...change, last_event_id: eventId });
  await written(w, old.id, "update", Object.keys(set));
  return eventId;
}

export type StructuralChange = Partial<Pick<TaskRow, "status" | "parent_id">>;

/**
 * The same change for a caller that holds a transaction of its own (not a write()) and has read
 * and checked the row: reflect_apply changes many tasks and writes their snapshots
 * all-or-nothing. Only status and parent_id, which no `tasksWritten` listener reacts to (links'
 * discovery follows text and project), so none is called here.
 */
export async function changeTaskIn(
  ctx: ShampooCtx,
  trx: Transaction<ShampooDB>,
  now: number,
  old: TaskRow,
  set: StructuralChange,
  action: string,
  payload: unknown,
): Promise<{ eventId: string; after: TaskRow }> {
  const after: TaskRow = { ...old, ...set, updated_at: iso(now) };
  const eventId = await recordEvent(trx, ctx.caller, ctx.source, now, {
    entityKind: "task",
    entityId: old.id,
    action,
    old: taskView(old),
    new: taskView(after),
    payload,
    parentEventId: old.last_event_id,
  });
  after.last_event_id = eventId;
  await updateTaskRow(trx, old.id, { ...set, updated_at: after.updated_at, last_event_id: eventId });
  return { eventId, after };
}
