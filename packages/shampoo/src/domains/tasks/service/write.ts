import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { canWrite, projectValue, scopeDenied, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { given, invalid, notFound } from "../../../platform/errors.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type {
  ArchiveDoneTasksInput,
  AssignTaskInput,
  BumpOverduePriorityInput,
  CreateTaskOrNoteInput,
  UpdateTaskInput,
  UpsertNoteByTitleProjectInput,
} from "../inputs.gen.ts";
import { CLEAR, FINISHED, normalizeTitle, PRIORITIES, PRIORITY_RANK, today } from "../model.ts";
import { checkDate, checkDateTime, checkRecurring, isUuid } from "../rules/values.ts";
import type { TaskRow } from "../schema.ts";
import { getTask, lockNoteKey, lockParentLinks, parentOf, scoped } from "../store/tasks.ts";
import { changeTask, createTask } from "./mutate.ts";

/**
 * Task and note rules. Every write is one platform write() (platform/write.ts): the change, its
 * history event and what the `tasksWritten` listeners add (links' auto-discovery) commit or fail
 * together. Pure shape checks (dates, recurrence, enums, "No fields to update") run before
 * anything is read, so they answer the same whether or not the target exists. Row locks and
 * advisory locks are asked of the engine (w.engine): a no-op on SQLite, whose write transaction
 * holds the database's one write lock from BEGIN.
 */

const DAY_MS = 86_400_000;
/** Earliest instant an ISO timestamp column can hold as fixed-width text (year 0001). */
const EARLIEST_MS = Date.parse("0001-01-01T00:00:00.000Z");

/**
 * A parent must be visible to the caller (otherwise: Task not found, same as missing). For an
 * existing task, the parent must not be the task itself or one of its visible descendants. The
 * chain is walked through tasks the caller may see and stops at the first it may not: refusing
 * because of content outside the grants would reveal it (no existence oracle). A loop closed
 * only through invisible tasks is therefore possible; nothing walks a chain without a seen-set.
 */
async function checkParent(w: WriteScope, parentId: string, selfId?: string): Promise<void> {
  const scope = scopeOf(w.ctx.caller);
  if (!isUuid(parentId)) throw notFound("Task");
  if (!(await getTask(w.trx, scope, parentId))) throw notFound("Task");
  if (selfId === undefined) return; // a new task has no descendants
  const seen = new Set<string>();
  let cursor: string | null | undefined = parentId;
  while (cursor) {
    if (cursor === selfId) throw invalid("parent_id would make a cycle");
    if (seen.has(cursor)) break; // an older cycle elsewhere in the chain: not this task's
    seen.add(cursor);
    cursor = await parentOf(w.trx, scope, cursor);
  }
}

/** A fresh row with the creation defaults; callers override what they were given. */
function newRow(ctx: ShampooCtx, now: number, f: Partial<TaskRow> & { title: string }): TaskRow {
  return {
    id: randomUUID(),
    profile: ctx.caller.profile,
    project: null,
    title_norm: normalizeTitle(f.title),
    type: "task",
    status: "not_started",
    priority: "medium",
    section: "inbox",
    description: null,
    notes: null,
    due_date: null,
    parent_id: null,
    recurring: null,
    reminder_at: null,
    assignee: null,
    shared_by: null,
    created_by: ctx.caller.principal,
    created_at: iso(now),
    updated_at: iso(now),
    last_event_id: "",
    ...f,
  };
}

export async function createTaskOrNote(ctx: ShampooCtx, a: CreateTaskOrNoteInput): Promise<Record<string, unknown>> {
  return write(ctx, taskCreation(ctx, a));
}

/**
 * create_task_or_note's checks, run now (they throw before anything is read), and its write, to
 * run inside a write() — its own, or a larger one (inbound approval creates tasks in its batch).
 */
export function taskCreation(
  ctx: ShampooCtx,
  a: CreateTaskOrNoteInput,
): (w: WriteScope) => Promise<Record<string, unknown>> {
  const title = String(a.title ?? "").trim();
  if (!title) throw invalid("title must not be blank");
  const project = projectValue(a.project);
  const due = given(a.due_date) === undefined ? null : checkDate("due_date", a.due_date as string);
  const reminder = given(a.reminder_at) === undefined ? null : checkDateTime("reminder_at", a.reminder_at as string);
  const recurring = given(a.recurring) === undefined ? null : checkRecurring(a.recurring as string);
  const parent = given(a.parent_id) ?? null;
  const assignee = given(a.assignee);
  if (!canWrite(ctx.caller, project)) throw scopeDenied();
  return async (w) => {
    if (parent) await checkParent(w, parent);
    const row = newRow(ctx, w.now, {
      project,
      title,
      type: given(a.type) ?? "task",
      priority: given(a.priority) ?? "medium",
      section: given(a.section) ?? "inbox",
      description: given(a.description) ?? null,
      notes: given(a.notes) ?? null,
      due_date: due,
      parent_id: parent,
      recurring,
      reminder_at: reminder,
      // No argument is silently dropped: an assignee given at creation is stored as assign_task
      // would store it (verbatim, grants nothing), with shared_by the caller.
      ...(assignee === undefined ? {} : { assignee, shared_by: ctx.caller.principal }),
    });
    await createTask(w, row, a);
    return { task_id: row.id, title, type: row.type, status: row.status };
  };
}

/** Fields update_task may change, in the order `fields` reports them, and which accept CLEAR. */
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
] as const;
export const CLEARABLE: ReadonlySet<string> = new Set([
  "due_date",
  "notes",
  "parent_id",
  "project",
  "recurring",
  "reminder_at",
]);

export async function updateTask(ctx: ShampooCtx, a: UpdateTaskInput): Promise<Record<string, unknown>> {
  const id = String(a.task_id);
  // Shape first: every value is checked before the task is looked up.
  const set: Partial<TaskRow> = {};
  for (const field of UPDATABLE) {
    const value = given(a[field]);
    if (value === undefined) continue; // absent and empty strings are ignored
    if (value === CLEAR) {
      if (!CLEARABLE.has(field))
        throw invalid(`${field} cannot be CLEARed (CLEAR applies to ${[...CLEARABLE].join(", ")})`);
      (set as Record<string, unknown>)[field] = null;
      continue;
    }
    switch (field) {
      case "title":
        if (!value.trim()) continue; // a blank title is an empty value: ignored
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
      case "project":
        set.project = projectValue(value);
        break;
      default:
        (set as Record<string, unknown>)[field] = value;
    }
  }
  const fields = Object.keys(set).filter((f) => f !== "title_norm");
  if (fields.length === 0) throw invalid("No fields to update");
  const scope = scopeOf(ctx.caller);
  return write(ctx, async (w) => {
    const old = isUuid(id) ? await getTask(w.trx, scope, id, w.engine) : undefined;
    if (!old) throw notFound("Task");
    // Moves are grant-checked at the destination: a named project, or untagged (CLEAR).
    if ("project" in set && !canWrite(ctx.caller, set.project ?? null)) throw scopeDenied();
    if (set.parent_id) {
      await lockParentLinks(w.trx, w.engine, ctx.caller.profile);
      await checkParent(w, set.parent_id, id);
    }
    await changeTask(w, old, set, "update", a);
    return { updated: id, fields: [...fields, "updated_at"] };
  });
}

export async function assignTask(ctx: ShampooCtx, a: AssignTaskInput): Promise<Record<string, unknown>> {
  const id = String(a.task_id);
  const assignee = typeof a.assignee === "string" && a.assignee.trim() !== "" ? a.assignee : null;
  // Assignment is a coordination hint: stored verbatim, grants nothing; shared_by is the caller.
  const sharedBy = assignee === null ? null : ctx.caller.principal;
  return write(ctx, async (w) => {
    const old = isUuid(id) ? await getTask(w.trx, scopeOf(ctx.caller), id, w.engine) : undefined;
    if (!old) throw notFound("Task");
    await changeTask(w, old, { assignee, shared_by: sharedBy }, assignee === null ? "unassign" : "assign", a);
    return { task_id: id, assignee, shared_by: sharedBy };
  });
}

export const MATCHED_ON = "normalized_title_project";

/**
 * Creates a note, or updates the note with the same normalized title in the same project.
 * Convergence: on PostgreSQL an advisory transaction lock on (profile, normalized title,
 * project) serialises concurrent upserts of one key, so they cannot both miss and both create;
 * SQLite runs one writer at a time. Matching considers notes in every status (the no-delete
 * invariant keeps one identity; upsert never changes status), live ones first, then the oldest.
 * A matched note whose supplied fields already hold those values is left untouched (action
 * existing, no event), so replays record nothing.
 */
export async function upsertNoteByTitleProject(
  ctx: ShampooCtx,
  a: UpsertNoteByTitleProjectInput,
): Promise<Record<string, unknown>> {
  const title = String(a.title ?? "").trim();
  if (!title) throw invalid("title must not be blank");
  const titleNorm = normalizeTitle(title);
  const project = projectValue(a.project);
  const supplied: Partial<Pick<TaskRow, "description" | "notes" | "section" | "priority">> = {};
  for (const f of ["description", "notes", "section", "priority"] as const) {
    const v = given(a[f]);
    if (v !== undefined) supplied[f] = v;
  }
  const updateIfFound = a.update_if_found !== false;
  if (!canWrite(ctx.caller, project)) throw scopeDenied();
  return write(ctx, async (w) => {
    await lockNoteKey(w.trx, w.engine, ctx.caller.profile, titleNorm, project);
    const q = scoped(w.trx, scopeOf(ctx.caller))
      .selectAll()
      .where("type", "=", "note")
      .where("title_norm", "=", titleNorm)
      .where((eb) => (project === null ? eb("project", "is", null) : eb("project", "=", project)))
      .orderBy((eb) =>
        eb
          .case()
          .when("status", "in", [...FINISHED])
          .then(1)
          .else(0)
          .end(),
      )
      .orderBy("created_at")
      .orderBy("id")
      .limit(1);
    const found = await w.engine.forUpdate(q).executeTakeFirst();
    if (found) {
      const base = { task_id: found.id, title: found.title, type: "note" };
      const changed = Object.keys(supplied).filter(
        (f) => supplied[f as keyof typeof supplied] !== found[f as keyof TaskRow],
      ) as (keyof typeof supplied)[];
      if (!updateIfFound || changed.length === 0) return { ...base, action: "existing", matched_on: MATCHED_ON };
      const set: Partial<TaskRow> = {};
      for (const f of changed) set[f] = supplied[f] as string;
      await changeTask(w, found, set, "update", a);
      return { ...base, action: "updated", fields: [...changed, "updated_at"], matched_on: MATCHED_ON };
    }
    const row = newRow(ctx, w.now, {
      project,
      title,
      type: "note",
      section: supplied.section ?? "next",
      priority: supplied.priority ?? "medium",
      description: supplied.description ?? null,
      notes: supplied.notes ?? null,
    });
    await createTask(w, row, a);
    return {
      task_id: row.id,
      title,
      type: "note",
      status: row.status,
      action: "created",
      matched_on: MATCHED_ON,
    };
  });
}

export const DEFAULT_ARCHIVE_DAYS = 7;

/**
 * Moves done tasks (type task) whose last update is strictly older than `older_than_days` days
 * to archived, each with its own event, all in one transaction. Candidates are locked on
 * PostgreSQL (FOR UPDATE re-checks the WHERE after waiting), so concurrent sweeps never archive
 * a task twice and a task reopened meanwhile is skipped.
 */
export async function archiveDoneTasks(ctx: ShampooCtx, a: ArchiveDoneTasksInput): Promise<Record<string, unknown>> {
  const days = a.older_than_days === undefined ? DEFAULT_ARCHIVE_DAYS : Number(a.older_than_days);
  if (!Number.isInteger(days) || days < 0) throw invalid("older_than_days must be a non-negative integer");
  return write(ctx, async (w) => {
    const cutoffMs = w.now - days * DAY_MS;
    // A threshold reaching back before year 1 cannot match any timestamp.
    if (!(cutoffMs > EARLIEST_MS)) return { archived: 0, threshold_days: days };
    const cutoff = iso(cutoffMs);
    const q = scoped(w.trx, scopeOf(ctx.caller))
      .selectAll()
      .where("type", "=", "task")
      .where("status", "=", "done")
      .where("updated_at", "<", cutoff)
      .orderBy("created_at")
      .orderBy("id");
    const rows = await w.engine.forUpdate(q).execute();
    for (const old of rows) {
      await changeTask(w, old, { status: "archived" }, "archive", { older_than_days: days, cutoff });
    }
    return { archived: rows.length, threshold_days: days };
  });
}

export const DEFAULT_BUMP_TARGET = "high";
export const BOTTOM_RUNG_MESSAGE =
  "No lower priorities to bump: low is the bottom rung, so nothing can be raised to it";

/**
 * Raises past-due (due_date before today, UTC, by the injected clock) live tasks (type task,
 * not done/archived/cancelled) strictly below the target to the target, each with its own
 * event, all in one transaction; rows are locked on PostgreSQL as in archiveDoneTasks.
 */
export async function bumpOverduePriority(
  ctx: ShampooCtx,
  a: BumpOverduePriorityInput,
): Promise<Record<string, unknown>> {
  const target = a.target_priority === undefined ? DEFAULT_BUMP_TARGET : String(a.target_priority);
  if (!(PRIORITIES as readonly string[]).includes(target)) {
    throw invalid(`Invalid priority: ${JSON.stringify(target)} (use ${PRIORITIES.join(", ")})`);
  }
  const rank = PRIORITY_RANK[target] as number;
  const lower = PRIORITIES.filter((p) => (PRIORITY_RANK[p] as number) < rank);
  if (lower.length === 0) return { bumped: 0, target_priority: target, message: BOTTOM_RUNG_MESSAGE };
  return write(ctx, async (w) => {
    const day = today(w.now);
    const q = scoped(w.trx, scopeOf(ctx.caller))
      .selectAll()
      .where("type", "=", "task")
      .where("status", "not in", [...FINISHED])
      .where("due_date", "is not", null)
      .where("due_date", "<", day)
      .where("priority", "in", lower)
      .orderBy("due_date")
      .orderBy("id");
    const rows = await w.engine.forUpdate(q).execute();
    for (const old of rows) {
      await changeTask(w, old, { priority: target }, "bump_priority", {
        target_priority: target,
        today: day,
      });
    }
    return { bumped: rows.length, target_priority: target };
  });
}
