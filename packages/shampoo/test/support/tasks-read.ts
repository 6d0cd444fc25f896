import { randomUUID } from "node:crypto";
import { sql } from "kernel";
import { expect } from "vitest";
import { normalizeTitle } from "../../src/domains/tasks/model.ts";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import type { Agent, Harness } from "./shampoo.ts";

/** Helpers shared by the task-read suites (test/tasks-read*.test.ts). */

export const NOW = "2026-11-30T12:00:00.000Z";
export const TODAY = "2026-11-30";

let n = 0;
/** A fresh profile name: suites share one database per dialect, profiles keep tests apart. */
export function freshProfile(prefix = "r"): string {
  return `${prefix}${++n}${Math.random().toString(36).slice(2, 6)}`;
}

export interface SeedSpec {
  title: string;
  project?: string;
  section?: string;
  priority?: string;
  type?: string;
  description?: string;
  notes?: string;
  due_date?: string;
  parent_id?: string;
  reminder_at?: string;
  /** Set after creation through update_task. */
  status?: string;
}

/** Creates a task or note through the tools (and moves its status if asked); returns its id. */
export async function seed(agent: Agent, spec: SeedSpec): Promise<string> {
  const { status, ...create } = spec;
  const r = await agent.call("create_task_or_note", create);
  if (r.isError) throw new Error(`seed failed: ${JSON.stringify(r.structuredContent)}`);
  const id = (r.structuredContent as { task_id: string }).task_id;
  if (status && status !== "not_started") {
    const u = await agent.call("update_task", { task_id: id, status });
    if (u.isError) throw new Error(`status failed: ${JSON.stringify(u.structuredContent)}`);
  }
  return id;
}

/** Seeds in order, advancing the clock a minute before each so created_at orders them. */
export async function seedAll(h: Harness, agent: Agent, specs: SeedSpec[]): Promise<string[]> {
  const ids: string[] = [];
  for (const s of specs) {
    h.clock.advance(60_000);
    ids.push(await seed(agent, s));
  }
  h.clock.set(NOW);
  return ids;
}

/** Every task row and every history event (pure reads must leave both untouched). */
export async function snapshot(h: Harness): Promise<unknown> {
  const tasks = await h.db.db
    .selectFrom("shampoo_tasks")
    .select([
      "id",
      "profile",
      "project",
      "title",
      "status",
      "priority",
      "section",
      "description",
      "notes",
      "due_date",
      "parent_id",
      "updated_at",
      "last_event_id",
    ])
    .orderBy("id")
    .execute();
  const history = await h.db.db.selectFrom("shampoo_history").select(["event_id"]).orderBy("seq").execute();
  const clocks = await h.db.db.selectFrom("shampoo_clocks").selectAll().orderBy("profile").execute();
  return { tasks, history, clocks: clocks.map((c) => ({ ...c, clock: Number(c.clock) })) };
}

/** A refused call: isError, the error payload, and the message matched. */
export async function expectError(
  agent: Agent,
  tool: string,
  args: Record<string, unknown>,
  message: string | RegExp,
  errorType = "validation",
): Promise<Record<string, unknown>> {
  const r = await agent.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)} should fail`).toBe(true);
  const sc = r.structuredContent as Record<string, unknown>;
  expect(sc.error_type).toBe(errorType);
  if (typeof message === "string") expect(sc.error).toBe(message);
  else expect(sc.error).toMatch(message);
  return sc;
}

/**
 * SQLite: shampoo_tasks_live_fts (010) holds exactly the live rows, each under its scope key
 * (profile and project numbers from shampoo_task_scopes, then the task rowid), with exactly the
 * words the four-field index holds for that row (term, column and position, read through
 * fts5vocab), and passes FTS5's integrity check. No-op on PostgreSQL.
 */
export async function expectLiveIndex(h: Harness): Promise<void> {
  if (h.db.dialect !== "sqlite") return;
  const db = h.db.db;
  const keys = await sql`SELECT rowid >> 52 AS pno, (rowid >> 32) & 1048575 AS jno, rowid & 4294967295 AS rid
    FROM shampoo_tasks_live_fts ORDER BY rid`.execute(db);
  const live = await sql`SELECT s.pno, s.jno, t.rowid AS rid FROM shampoo_tasks t
    LEFT JOIN shampoo_task_scopes s ON s.profile = t.profile AND s.project = coalesce(t.project, '')
    WHERE t.status IN ('not_started', 'in_progress') ORDER BY rid`.execute(db);
  expect(keys.rows).toEqual(live.rows);
  // Numbering: one profile row (project "", jno 0) per profile, projects 1.. inside it.
  const bad = await sql`SELECT * FROM shampoo_task_scopes s WHERE (s.project = '') != (s.jno = 0)
    OR NOT EXISTS (SELECT 1 FROM shampoo_task_scopes p WHERE p.profile = s.profile AND p.project = '' AND p.pno = s.pno)`.execute(
    db,
  );
  expect(bad.rows).toEqual([]);
  await sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.live_words USING fts5vocab(main, shampoo_tasks_live_fts, instance)`.execute(
    db,
  );
  await sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.all_words USING fts5vocab(main, shampoo_tasks_fts, instance)`.execute(
    db,
  );
  const words =
    await sql`SELECT doc & 4294967295 AS rid, term, col, "offset" FROM temp.live_words ORDER BY 1, 2, 3, 4`.execute(db);
  const expected = await sql`SELECT doc AS rid, term, col, "offset" FROM temp.all_words
    WHERE doc IN (SELECT rowid FROM shampoo_tasks WHERE status IN ('not_started', 'in_progress')) ORDER BY 1, 2, 3, 4`.execute(
    db,
  );
  expect(words.rows).toEqual(expected.rows);
  await sql`INSERT INTO shampoo_tasks_live_fts(shampoo_tasks_live_fts) VALUES ('integrity-check')`.execute(db);
}

export type Task = Record<string, unknown> & { id: string; title: string };

export function titles(list: unknown): string[] {
  return (list as Task[]).map((t) => t.title);
}

/**
 * Inserts rows straight into the table (no tools, no history): for volume fixtures only, where
 * hundreds of tool calls would only slow the suite down. FTS stays in sync (trigger / generated column).
 */
export async function bulkInsert(
  h: Harness,
  profile: string,
  rows: (Partial<TaskRow> & { title: string })[],
): Promise<string[]> {
  const full: TaskRow[] = rows.map((r, i) => {
    const at = new Date(Date.parse(NOW) - (rows.length - i) * 1000).toISOString();
    return {
      id: randomUUID(),
      profile,
      project: null,
      title_norm: normalizeTitle(r.title),
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
      created_by: "bulk",
      created_at: at,
      updated_at: at,
      last_event_id: randomUUID(),
      ...r,
    };
  });
  await h.db.db.insertInto("shampoo_tasks").values(full).execute();
  return full.map((r) => r.id);
}
