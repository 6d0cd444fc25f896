import { sql } from "kernel";
import type { Scope } from "../../../access/caller.ts";
import type { STATUSES } from "../model.ts";
import type { TaskRow } from "../schema.ts";
import { type Db, DEFAULT_ORDER, LIVE_STATUSES, SECTION_ORDER, TASK_COLUMNS } from "./sql.ts";
import { scoped } from "./tasks.ts";

/** task_digest's reads: counts per status and section, the listed tasks, the past-due ones. */

export type StatusCounts = Record<(typeof STATUSES)[number], number>;

export interface DigestRows {
  statusCounts: StatusCounts;
  /** Live tasks per listed section (empty when there is no task at all). */
  perSection: Map<string, number>;
  /** The first `limit` live tasks of the listed sections, today first, in the default order. */
  active: TaskRow[];
  overdueCount: number;
  /** The first `overdueMax` past-due live tasks, oldest due first. */
  overdue: TaskRow[];
}

export async function digestRows(
  db: Db,
  scope: Scope,
  q: { sections: readonly string[]; includeOverdue: boolean; limit: number; overdueMax: number; day: string },
): Promise<DigestRows> {
  const tasks = () => scoped(db, scope).where("type", "=", "task");
  const live = () => tasks().where("status", "in", LIVE_STATUSES);

  const statusRows = await tasks()
    .select(["status", sql<number | string>`count(*)`.as("n")])
    .groupBy("status")
    .execute();
  const statusCounts: StatusCounts = { not_started: 0, in_progress: 0, done: 0, archived: 0, cancelled: 0 };
  for (const r of statusRows) statusCounts[r.status as keyof StatusCounts] = Number(r.n);
  const out: DigestRows = { statusCounts, perSection: new Map(), active: [], overdueCount: 0, overdue: [] };
  if (!Object.values(statusCounts).some((n) => n > 0)) return out;

  const sectionRows = await live()
    .where("section", "in", [...q.sections])
    .select(["section", sql<number | string>`count(*)`.as("n")])
    .groupBy("section")
    .execute();
  out.perSection = new Map(sectionRows.map((r) => [r.section, Number(r.n)]));
  out.active = (await live()
    .where("section", "in", [...q.sections])
    .select(TASK_COLUMNS)
    .orderBy(sql.join([sql`${SECTION_ORDER} ASC`, ...DEFAULT_ORDER]))
    .limit(q.limit)
    .execute()) as TaskRow[];

  if (q.includeOverdue) {
    const pastDue = () => live().where("due_date", "is not", null).where("due_date", "<", q.day);
    const c = await pastDue().select(sql<number | string>`count(*)`.as("n")).executeTakeFirst();
    out.overdueCount = Number(c?.n ?? 0);
    out.overdue = (await pastDue()
      .select(TASK_COLUMNS)
      .orderBy(sql.join([sql`shampoo_tasks.due_date ASC`, ...DEFAULT_ORDER]))
      .limit(q.overdueMax)
      .execute()) as TaskRow[];
  }
  return out;
}
