import { defineExtensionPoint } from "../../platform/extend.ts";
import type { WriteScope } from "../../platform/write.ts";

/** One task or note row just written (created or changed) inside a task write. */
export interface TaskWritten {
  taskId: string;
  change: "create" | "update";
  /** The columns the write set (every column for a create). */
  fields: readonly string[];
}

/**
 * Fired inside every task write (create_task_or_note, update_task, assign_task,
 * upsert_note_by_title_project, the sweeps), once per row, after the row and its event are
 * written, in the same transaction: what a listener writes commits or rolls back with the task.
 * links contributes its auto-discovery (links/index.ts).
 */
export const tasksWritten =
  defineExtensionPoint<(w: WriteScope, written: TaskWritten) => Promise<void>>("tasks.written");
