import { type Kysely, sql, type Transaction } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";
import { FINISHED } from "../model.ts";

/**
 * The SQL pieces every task read shares: the column lists a read loads, the live statuses, and
 * the ORDER BY keys (enumerations sorted by meaning, the default order of task lists).
 */

export type Raw<T> = ReturnType<typeof sql<T>>;
export type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

export const TASK_COLUMNS = [
  "shampoo_tasks.id",
  "shampoo_tasks.profile",
  "shampoo_tasks.project",
  "shampoo_tasks.title",
  "shampoo_tasks.title_norm",
  "shampoo_tasks.type",
  "shampoo_tasks.status",
  "shampoo_tasks.priority",
  "shampoo_tasks.section",
  "shampoo_tasks.description",
  "shampoo_tasks.notes",
  "shampoo_tasks.due_date",
  "shampoo_tasks.parent_id",
  "shampoo_tasks.recurring",
  "shampoo_tasks.reminder_at",
  "shampoo_tasks.assignee",
  "shampoo_tasks.shared_by",
  "shampoo_tasks.created_by",
  "shampoo_tasks.created_at",
  "shampoo_tasks.updated_at",
  "shampoo_tasks.last_event_id",
] as const;

/** Every column but the long bodies (description, notes): what bulk scoring loads. */
export const READY_COLUMNS = TASK_COLUMNS.filter(
  (c) => c !== "shampoo_tasks.description" && c !== "shampoo_tasks.notes",
) as Exclude<(typeof TASK_COLUMNS)[number], "shampoo_tasks.description" | "shampoo_tasks.notes">[];

export const FINISHED_LIST = [...FINISHED];
export const LIVE_STATUSES = ["not_started", "in_progress"];

export const and = (parts: Raw<boolean>[]): Raw<boolean> =>
  parts.length === 0 ? sql<boolean>`1 = 1` : sql<boolean>`(${sql.join(parts, sql` AND `)})`;

export const inList = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`));

export const PRIORITY_VALUE = sql`(CASE shampoo_tasks.priority WHEN 'critical' THEN 3 WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)`;
export const STATUS_ORDER = sql`(CASE shampoo_tasks.status WHEN 'in_progress' THEN 0 WHEN 'not_started' THEN 1 WHEN 'done' THEN 2 WHEN 'cancelled' THEN 3 ELSE 4 END)`;
export const SECTION_ORDER = sql`(CASE shampoo_tasks.section WHEN 'today' THEN 0 WHEN 'inbox' THEN 1 WHEN 'next' THEN 2 WHEN 'waiting' THEN 3 ELSE 4 END)`;
export const TYPE_ORDER = sql`(CASE shampoo_tasks.type WHEN 'task' THEN 0 ELSE 1 END)`;

/** One ORDER BY term: a key and its direction. */
export interface OrderTerm {
  key: Raw<unknown>;
  dir: "ASC" | "DESC";
}

export const orderSql = (terms: OrderTerm[]) => sql.join(terms.map((t) => sql`${t.key} ${sql.raw(t.dir)}`));

/**
 * The default order of task lists: most important first, then soonest due, then oldest. The
 * index shampoo_tasks_order (store/schema.ts, 006) holds exactly these keys, the same
 * expressions written the same way: SQLite matches an index expression to ORDER BY textually.
 */
export const DEFAULT_TERMS: OrderTerm[] = [
  { key: PRIORITY_VALUE, dir: "DESC" },
  { key: sql`(shampoo_tasks.due_date IS NULL)`, dir: "ASC" },
  { key: sql`shampoo_tasks.due_date`, dir: "ASC" },
  { key: sql`shampoo_tasks.created_at`, dir: "ASC" },
  { key: sql`shampoo_tasks.id`, dir: "ASC" },
];
export const DEFAULT_ORDER = DEFAULT_TERMS.map((t) => sql`${t.key} ${sql.raw(t.dir)}`);

/** What scoring reads of a live row: the columns the index shampoo_tasks_order holds. */
export const SCORING_COLUMNS = [
  "shampoo_tasks.id",
  "shampoo_tasks.profile",
  "shampoo_tasks.project",
  "shampoo_tasks.type",
  "shampoo_tasks.status",
  "shampoo_tasks.priority",
  "shampoo_tasks.section",
  "shampoo_tasks.due_date",
  "shampoo_tasks.parent_id",
  "shampoo_tasks.reminder_at",
  "shampoo_tasks.created_at",
  "shampoo_tasks.updated_at",
] as const;
