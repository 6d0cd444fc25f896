import { iso, type Transaction } from "kernel";
import type { ShampooCtx } from "../../context.ts";
import { recordEvent } from "../../store/history.ts";
import type { ShampooDB, TaskRow } from "../../store/schema.ts";
import { taskView } from "./model.ts";
import { updateTaskRow } from "./store.ts";

/**
 * The canonical task mutation (service.ts changeRow's rule: the change and its history event,
 * chained to the task's previous one, in one transaction) for a caller that already holds the
 * transaction and has read and checked the row: reflect_apply changes many tasks and writes
 * their snapshots all-or-nothing. Only status and parent_id: a change to text or project would
 * also have to re-run link discovery (service.ts DISCOVERY_FIELDS), which this path does not.
 */
export type StructuralChange = Partial<Pick<TaskRow, "status" | "parent_id">>;

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
