import { sql } from "kernel";
import { expect, vi } from "vitest";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import type { HistoryRow } from "../../src/store/schema.ts";
import type { Agent, Harness } from "./shampoo.ts";

/** Helpers shared by the task-write suites (test/tasks-write*.test.ts). */

/** A history row as read back, with numeric seq and clock on both engines. */
export type Event = Omit<HistoryRow, "seq" | "clock"> & { seq: number; clock: number };

export const MISSING_ID = "00000000-0000-4000-8000-000000000000";
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const NOT_FOUND = { error: "Task not found", error_type: "not_found" };
export const SCOPE_DENIED = { error: "Project not in scope", error_type: "scope" };

let n = 0;
/** A fresh project name, so tests sharing one database never see each other's rows. */
export function uniq(prefix = "p"): string {
  return `${prefix}-${++n}-${Math.random().toString(36).slice(2, 7)}`;
}

export async function taskRow(h: Harness, id: string): Promise<TaskRow | undefined> {
  const row = await h.db.db.selectFrom("shampoo_tasks").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return undefined;
  const { search: _s, ...rest } = row as TaskRow & { search?: unknown };
  return rest;
}

export async function mustRow(h: Harness, id: string): Promise<TaskRow> {
  const row = await taskRow(h, id);
  if (!row) throw new Error(`no task ${id}`);
  return row;
}

export async function eventsOf(h: Harness, id: string): Promise<Event[]> {
  const rows = await h.db.db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("entity_id", "=", id)
    .orderBy("seq")
    .execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq), clock: Number(r.clock) }));
}

export async function profileEvents(h: Harness, profile: string): Promise<Event[]> {
  const rows = await h.db.db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("profile", "=", profile)
    .orderBy("seq")
    .execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq), clock: Number(r.clock) }));
}

/** Everything a write could touch: every task, every history event, every clock. */
export async function snapshot(h: Harness): Promise<unknown> {
  const tasks = await h.db.db.selectFrom("shampoo_tasks").selectAll().orderBy("id").execute();
  const history = await h.db.db.selectFrom("shampoo_history").selectAll().orderBy("seq").execute();
  const clocks = await h.db.db.selectFrom("shampoo_clocks").selectAll().orderBy("profile").execute();
  return { tasks, history, clocks, counts: { tasks: tasks.length, history: history.length } };
}

/** Runs `fn` and asserts that the database is byte-for-byte what it was before. */
export async function expectUnchanged<T>(h: Harness, fn: () => Promise<T>): Promise<T> {
  const before = await snapshot(h);
  const out = await fn();
  expect(await snapshot(h)).toEqual(before);
  return out;
}

/** Asserts a call is refused with the given error (string: exact message; RegExp: matched) and changes nothing. */
export async function expectRefused(
  h: Harness,
  agent: Agent,
  tool: string,
  args: Record<string, unknown>,
  error: string | RegExp,
  errorType = "validation",
): Promise<void> {
  await expectUnchanged(h, async () => {
    const r = await agent.call(tool, args);
    expect(r.isError, `${tool} ${JSON.stringify(args)} should fail`).toBe(true);
    const sc = r.structuredContent as { error: string; error_type: string };
    if (typeof error === "string") expect(sc.error).toBe(error);
    else expect(sc.error).toMatch(error);
    expect(sc.error_type).toBe(errorType);
  });
}

/** Creates a task and returns its id (fails the test if the create fails). */
export async function mk(agent: Agent, args: Record<string, unknown>): Promise<string> {
  const r = await agent.call("create_task_or_note", args);
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  return (r.structuredContent as { task_id: string }).task_id;
}

/** Calls a tool and fails the test on an error result. */
export async function ok(agent: Agent, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await agent.call(tool, args);
  expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).toBeFalsy();
  return r.structuredContent as Record<string, unknown>;
}

/** Sets fields directly in the store (test setup only: e.g. an old updated_at). */
export async function poke(h: Harness, id: string, set: Partial<TaskRow>): Promise<void> {
  await h.db.db.updateTable("shampoo_tasks").set(set).where("id", "=", id).execute();
}

/**
 * Installs a trigger that makes the database refuse one write (a mid-way failure of the
 * canonical mutation path). Returns the removal function.
 */
export async function injectFailure(
  h: Harness,
  op: "INSERT" | "UPDATE",
  column: "id" | "title",
  value: string,
): Promise<() => Promise<void>> {
  if (!/^[\w .-]+$/.test(value)) throw new Error("keep injected values simple");
  const name = `fail_${op.toLowerCase()}_${++n}`;
  const lit = sql.lit(value);
  if (h.db.dialect === "sqlite") {
    await sql`CREATE TRIGGER ${sql.raw(name)} BEFORE ${sql.raw(op)} ON shampoo_tasks WHEN NEW.${sql.raw(column)} = ${lit} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`.execute(
      h.db.db,
    );
    return async () => {
      await sql`DROP TRIGGER ${sql.raw(name)}`.execute(h.db.db);
    };
  }
  await sql`CREATE FUNCTION ${sql.raw(name)}() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql`.execute(
    h.db.db,
  );
  await sql`CREATE TRIGGER ${sql.raw(name)} BEFORE ${sql.raw(op)} ON shampoo_tasks FOR EACH ROW WHEN (NEW.${sql.raw(column)} = ${lit}) EXECUTE FUNCTION ${sql.raw(name)}()`.execute(
    h.db.db,
  );
  return async () => {
    await sql`DROP TRIGGER ${sql.raw(name)} ON shampoo_tasks`.execute(h.db.db);
    await sql`DROP FUNCTION ${sql.raw(name)}()`.execute(h.db.db);
  };
}

/** Silences the registry's stderr report of an internal error while `fn` runs; returns what was written. */
export async function quietly<T>(fn: () => Promise<T>): Promise<{ out: T; stderr: string }> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((c: unknown) => {
    chunks.push(String(c));
    return true;
  });
  try {
    return { out: await fn(), stderr: chunks.join("") };
  } finally {
    spy.mockRestore();
  }
}

export const INTERNAL = { error: "internal error; nothing was changed", error_type: "internal_error" };

/**
 * The invariants every write event keeps: who (principal, role), when (at = the injected
 * clock), where (source {tool, session} with session_id alike), the chain to the entity's
 * previous event, and old/new views.
 */
export function expectEvent(
  e: Event | undefined,
  want: {
    agent: Agent;
    tool: string;
    action: string;
    at: number;
    parent: string | null;
    entityId: string;
  },
): void {
  expect(e).toBeDefined();
  if (!e) return;
  expect(e.entity_kind).toBe("task");
  expect(e.entity_id).toBe(want.entityId);
  expect(e.action).toBe(want.action);
  expect(e.principal).toBe(want.agent.caller.principal);
  expect(e.role).toBe(want.agent.caller.role);
  expect(e.profile).toBe(want.agent.caller.profile);
  expect(e.at).toBe(new Date(want.at).toISOString());
  expect(e.parent_event_id).toBe(want.parent);
  const source = JSON.parse(e.source_json) as { tool: string; session: string };
  expect(source.tool).toBe(want.tool);
  expect(source.session).toMatch(new RegExp(`^mem-\\d+-${want.agent.caller.principal}$`));
  expect(e.session_id).toBe(source.session);
  expect(e.event_id).toMatch(UUID_RE);
}
