/**
 * SQL text shared by migration 008 (store/schema.ts) and ready_context's top-of-list read
 * (read.ts readyTop): SQLite matches an index expression to a query's expression textually, so
 * both sides use these exact strings. No imports: the migration module loads it too.
 */

/** The live statuses as a literal list: partial indexes need literals, not parameters (PostgreSQL proves the predicate). */
export const LIVE_STATUS_SQL = "('not_started', 'in_progress')";

/**
 * "Finished" as a literal test on the status (false sorts first: live content first), on any
 * alias: the key of migration 011's index shampoo_tasks_lookup_scan (no alias: SQLite refuses
 * one in an index) and of find_by_title's orders (read.ts LIVE_FIRST).
 */
export function finishedTestSql(alias = ""): string {
  return `(${alias ? `${alias}.status` : "status"} IN ('done', 'archived', 'cancelled'))`;
}

/**
 * A task's date-independent ready_context points (ready.ts judge): priority (critical 40, high
 * 30, medium 20, low 10) + section (today 20, next 6, inbox 3) + in progress 15. The score of a
 * task that is not waiting is this plus the due-date points, which are constant within a due-date
 * band relative to today (past due by k days, due today, due soon, neither).
 */
export function heatSql(alias = ""): string {
  const c = (name: string) => (alias ? `${alias}.${name}` : name);
  return `((CASE ${c("priority")} WHEN 'critical' THEN 40 WHEN 'high' THEN 30 WHEN 'medium' THEN 20 WHEN 'low' THEN 10 ELSE 0 END) + (CASE ${c("section")} WHEN 'today' THEN 20 WHEN 'next' THEN 6 WHEN 'inbox' THEN 3 ELSE 0 END) + (CASE ${c("status")} WHEN 'in_progress' THEN 15 ELSE 0 END))`;
}

/** The priority rank of the default order (read.ts PRIORITY_VALUE), on any alias. */
export function rankSql(alias = ""): string {
  const c = alias ? `${alias}.priority` : "priority";
  return `(CASE ${c} WHEN 'critical' THEN 3 WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END)`;
}
