import { expect } from "vitest";
import type { Agent, Harness } from "./shampoo.ts";
import { mk, ok, uniq } from "./tasks-write.ts";

/** Helpers shared by the reflection suites (test/reflection-*.test.ts). */

export const ADMIN = { principal: "admin", grants: ["*", ""] };

/** Every row of every table a write could touch, reflection's included. */
export async function everything(h: Harness): Promise<unknown> {
  const db = h.db.db;
  return {
    tasks: await db.selectFrom("shampoo_tasks").selectAll().orderBy("id").execute(),
    history: await db.selectFrom("shampoo_history").selectAll().orderBy("seq").execute(),
    clocks: await db.selectFrom("shampoo_clocks").selectAll().orderBy("profile").execute(),
    runs: await db.selectFrom("shampoo_reflection_runs").selectAll().orderBy("run_id").execute(),
    candidates: await db.selectFrom("shampoo_reflection_candidates").selectAll().orderBy("candidate_id").execute(),
    snapshots: await db.selectFrom("shampoo_reflection_snapshots").selectAll().orderBy("candidate_id").execute(),
  };
}

/** Asserts a call fails with exactly this payload (error and error_type, plus any extra fields). */
export async function refused(
  agent: Agent,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const r = await agent.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)} should fail: ${JSON.stringify(r.structuredContent)}`).toBe(true);
  return r.structuredContent as Record<string, unknown>;
}

export interface Memory {
  p: string;
  ids: Record<string, string>;
}

/**
 * A small memory in a fresh project with one finding of every category: two copies of one
 * title (plus a third copy of another type, which is not a duplicate), a stale not_started task,
 * an empty note, a child whose parent is in a project the agent cannot see, an abandoned inbox
 * item and an entity without observations. Made by `admin` (star), seen by `agent` (project only).
 */
export async function seedMemory(h: Harness, admin: Agent): Promise<Memory> {
  const p = uniq("refl");
  const hidden = uniq("hidden");
  const ids: Record<string, string> = {};
  const start = h.clock.now();
  h.clock.set("2026-08-01T00:00:00.000Z");
  ids.abandoned = await mk(admin, { title: "Old idea", project: p, section: "inbox", description: "x" });
  h.clock.set(start - 3_600_000);
  ids.keeper = await mk(admin, { title: "Weekly review", project: p, section: "next", description: "x" });
  h.clock.set(start);
  ids.copy = await mk(admin, { title: "weekly  REVIEW", project: p, section: "next", description: "y" });
  ids.noteTwin = await mk(admin, {
    title: "Weekly review",
    type: "note",
    project: p,
    section: "next",
    description: "z",
  });
  ids.stale = await mk(admin, {
    title: "File taxes",
    project: p,
    section: "next",
    due_date: "2026-01-15",
    description: "x",
  });
  ids.empty = await mk(admin, { title: "Empty thoughts", type: "note", project: p, section: "next" });
  ids.parent = await mk(admin, { title: "Secret parent", project: hidden, section: "next", description: "x" });
  ids.child = await mk(admin, { title: "Child", project: p, section: "next", parent_id: ids.parent, description: "x" });
  const e = await ok(admin, "create_entities", { entities: [{ name: `Bare ${p}`, entityType: "thing", project: p }] });
  ids.entity = (e.entity_ids as string[])[0] as string;
  return { p, ids };
}

/** A candidate's content without the fields that name its run. */
export function content(c: Record<string, unknown>): unknown {
  const { candidate_id: _c, run_id: _r, created_at: _t, ...rest } = c;
  return rest;
}
