import { iso } from "kernel";
import { changeRow, createRow } from "../../../platform/rows.ts";
import type { WriteScope } from "../../../platform/write.ts";
import { tasksWritten } from "../hooks.ts";
import { taskView } from "../model.ts";
import type { TaskRow } from "../schema.ts";

/**
 * The one task write path, inside a platform write(): the row and its history event (the
 * platform's row-change chain, platform/rows.ts: a change is chained to the task's previous
 * event), then the `tasksWritten` listeners (links' auto-discovery), all in the write's
 * transaction. Every task write goes through here: the task tools and reflect_apply.
 */

/** Tells the `tasksWritten` listeners (links' auto-discovery) about a row just written. */
async function written(w: WriteScope, taskId: string, change: "create" | "update", fields: string[]): Promise<void> {
  for (const listener of tasksWritten.all()) await listener(w, { taskId, change, fields });
}

/** Inserts a new row with its "create" event (`row.last_event_id` is set to it). */
export async function createTask(w: WriteScope, row: TaskRow, payload: unknown): Promise<void> {
  const { last_event_id: _none, ...fields } = row;
  const stored = await createRow(w, { table: "shampoo_tasks", kind: "task", row: fields, view: taskView, payload });
  row.last_event_id = stored.last_event_id;
  await written(w, row.id, "create", Object.keys(row));
}

/**
 * Applies `set` (and updated_at, from the write's clock) to an existing row with its event;
 * returns the event id. The caller has read `old` in this write (locked: w.engine.forUpdate).
 */
export async function changeTask(
  w: WriteScope,
  old: TaskRow,
  set: Partial<TaskRow>,
  action: string,
  payload: unknown,
): Promise<string> {
  const change = { ...set, updated_at: iso(w.now) };
  const { eventId } = await changeRow(w, {
    table: "shampoo_tasks",
    kind: "task",
    action,
    old,
    set: change,
    view: taskView,
    payload,
  });
  await written(w, old.id, "update", Object.keys(set));
  return eventId;
}
