import type { TaskRow } from "./schema.ts";

/** Enums and value rules of tasks and notes (catalog "Global enums and constants"). */
export const STATUSES = ["not_started", "in_progress", "done", "archived", "cancelled"] as const;
export const FINISHED = new Set(["done", "archived", "cancelled"]);
export const PRIORITIES = ["low", "medium", "high", "critical"] as const;
export const PRIORITY_RANK: Record<string, number> = { low: 0, medium: 1, high: 2, critical: 3 };
export const SECTIONS = ["inbox", "today", "next", "someday", "waiting"] as const;
export const TYPES = ["task", "note"] as const;
export const CLEAR = "CLEAR";
export const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** Titles match case-, space- and accent-insensitively (upsert_note_by_title_project). */
export function normalizeTitle(title: string): string {
  return title.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();
}

/** The public shape of a task or note. */
export function taskView(t: TaskRow): Record<string, unknown> {
  return {
    id: t.id,
    title: t.title,
    type: t.type,
    status: t.status,
    priority: t.priority,
    section: t.section,
    project: t.project,
    description: t.description,
    notes: t.notes,
    due_date: t.due_date,
    parent_id: t.parent_id,
    recurring: t.recurring === null ? null : JSON.parse(t.recurring),
    reminder_at: t.reminder_at,
    assignee: t.assignee,
    shared_by: t.shared_by,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

/** Today in UTC as YYYY-MM-DD: "past-due" means due_date < today. */
export function today(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}
