import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { canWrite, projectValue, scopeDenied, scopeOf } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import { recordEvent } from "../../store/history.ts";
import type { TaskRow } from "../../store/schema.ts";
import { invalid, notFound } from "../../tooling.ts";
import { CLEAR, checkDate, checkDateTime, checkRecurring, isUuid, normalizeTitle, taskView } from "./model.ts";
import { getTask, insertTask, updateTaskRow } from "./store.ts";

/**
 * Task and note rules. Every write runs in one transaction with its history event (the
 * canonical mutation path): the change and its audit record commit or fail together.
 */

const lock = (ctx: ShampooCtx) => (ctx.database.dialect === "postgres" ? "postgres" : false) as "postgres" | false;

/** Validates and resolves a parent: visible to the caller, never the task itself or its descendant. */
async function checkParent(
  ctx: ShampooCtx,
  trx: Parameters<typeof getTask>[0],
  parentId: string,
  selfId?: string,
): Promise<void> {
  if (!isUuid(parentId)) throw notFound("Task");
  const scope = scopeOf(ctx.caller);
  let cursor: string | null = parentId;
  for (let depth = 0; cursor !== null; depth++) {
    if (cursor === selfId) throw invalid("parent_id would make a cycle");
    if (depth > 64) throw invalid("parent chain is deeper than 64");
    const row: TaskRow | undefined = await getTask(trx, scope, cursor);
    if (!row) {
      if (depth === 0) throw notFound("Task");
      break; // an ancestor beyond the caller's sight: the chain stops there
    }
    cursor = row.parent_id;
  }
}

export async function createTaskOrNote(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const title = String(a.title ?? "").trim();
  if (!title) throw invalid("title must not be blank");
  const project = projectValue(a.project);
  if (!canWrite(ctx.caller, project)) throw scopeDenied();
  const due = typeof a.due_date === "string" && a.due_date !== "" ? checkDate("due_date", a.due_date) : null;
  const reminder =
    typeof a.reminder_at === "string" && a.reminder_at !== "" ? checkDateTime("reminder_at", a.reminder_at) : null;
  const recurring = typeof a.recurring === "string" && a.recurring !== "" ? checkRecurring(a.recurring) : null;
  const now = ctx.clock.now();
  return ctx.database.db.transaction().execute(async (trx) => {
    const parent = typeof a.parent_id === "string" && a.parent_id !== "" ? a.parent_id : null;
    if (parent) await checkParent(ctx, trx, parent);
    const id = randomUUID();
    const row: TaskRow = {
      id,
      profile: ctx.caller.profile,
      project,
      title,
      title_norm: normalizeTitle(title),
      type: (a.type as string | undefined) ?? "task",
      status: "not_started",
      priority: (a.priority as string | undefined) ?? "medium",
      section: (a.section as string | undefined) ?? "inbox",
      description: (a.description as string | undefined) || null,
      notes: (a.notes as string | undefined) || null,
      due_date: due,
      parent_id: parent,
      recurring,
      reminder_at: reminder,
      // assignee is accepted but not stored at creation (catalog: use assign_task, which records shared_by)
      assignee: null,
      shared_by: null,
      created_by: ctx.caller.principal,
      created_at: iso(now),
      updated_at: iso(now),
      last_event_id: "",
    };
    row.last_event_id = await recordEvent(trx, ctx.caller, ctx.source, now, {
      entityKind: "task",
      entityId: id,
      action: "create",
      old: null,
      new: taskView(row),
      payload: a,
    });
    await insertTask(trx, row);
    return { task_id: id, title, type: row.type, status: row.status };
  });
}

/** Fields update_task may change, and which accept CLEAR. */
const CLEARABLE = new Set(["due_date", "notes", "parent_id", "project", "recurring", "reminder_at"]);
const UPDATABLE = [
  "title",
  "description",
  "notes",
  "due_date",
  "parent_id",
  "priority",
  "project",
  "recurring",
  "reminder_at",
  "section",
  "status",
  "type",
];

export async function updateTask(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = String(a.task_id);
  const scope = scopeOf(ctx.caller);
  const now = ctx.clock.now();
  return ctx.database.db.transaction().execute(async (trx) => {
    const old = isUuid(id) ? await getTask(trx, scope, id, lock(ctx)) : undefined;
    if (!old) throw notFound("Task");
    const set: Partial<TaskRow> = {};
    for (const field of UPDATABLE) {
      const v = a[field];
      if (v === undefined || v === "") continue; // empty strings are ignored
      const value = String(v);
      if (value === CLEAR) {
        if (!CLEARABLE.has(field)) throw invalid(`${field} cannot be CLEARed`);
        if (field === "project") {
          if (!canWrite(ctx.caller, null)) throw scopeDenied();
          set.project = null;
        } else {
          (set as Record<string, unknown>)[field] = null;
        }
        continue;
      }
      switch (field) {
        case "title":
          if (!value.trim()) continue;
          set.title = value.trim();
          set.title_norm = normalizeTitle(value);
          break;
        case "due_date":
          set.due_date = checkDate("due_date", value);
          break;
        case "reminder_at":
          set.reminder_at = checkDateTime("reminder_at", value);
          break;
        case "recurring":
          set.recurring = checkRecurring(value);
          break;
        case "parent_id":
          await checkParent(ctx, trx, value, id);
          set.parent_id = value;
          break;
        case "project": {
          const p = projectValue(value);
          if (!canWrite(ctx.caller, p)) throw scopeDenied();
          set.project = p;
          break;
        }
        default:
          (set as Record<string, unknown>)[field] = value;
      }
    }
    const fields = Object.keys(set).filter((f) => f !== "title_norm");
    if (fields.length === 0) throw invalid("No fields to update");
    set.updated_at = iso(now);
    const next: TaskRow = { ...old, ...set };
    set.last_event_id = await recordEvent(trx, ctx.caller, ctx.source, now, {
      entityKind: "task",
      entityId: id,
      action: "update",
      old: taskView(old),
      new: taskView(next),
      payload: a,
      parentEventId: old.last_event_id,
    });
    await updateTaskRow(trx, id, set);
    return { updated: id, fields: [...fields, "updated_at"] };
  });
}

export async function assignTask(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = String(a.task_id);
  const assignee = typeof a.assignee === "string" && a.assignee.trim() !== "" ? a.assignee : null;
  // Assignment is a coordination hint: stored verbatim, grants nothing; shared_by is the caller.
  const sharedBy = assignee === null ? null : ctx.caller.principal;
  const now = ctx.clock.now();
  return ctx.database.db.transaction().execute(async (trx) => {
    const old = isUuid(id) ? await getTask(trx, scopeOf(ctx.caller), id, lock(ctx)) : undefined;
    if (!old) throw notFound("Task");
    const next: TaskRow = { ...old, assignee, shared_by: sharedBy, updated_at: iso(now) };
    const eventId = await recordEvent(trx, ctx.caller, ctx.source, now, {
      entityKind: "task",
      entityId: id,
      action: assignee === null ? "unassign" : "assign",
      old: taskView(old),
      new: taskView(next),
      payload: a,
      parentEventId: old.last_event_id,
    });
    await updateTaskRow(trx, id, {
      assignee,
      shared_by: sharedBy,
      updated_at: next.updated_at,
      last_event_id: eventId,
    });
    return { task_id: id, assignee, shared_by: sharedBy };
  });
}
