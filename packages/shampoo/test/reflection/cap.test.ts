import { randomUUID } from "node:crypto";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import { ADMIN } from "../support/reflection.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { ok, uniq } from "../support/tasks-write.ts";

/** Empty notes written straight into the store (fixture volume only; the tools read them as usual). */
async function emptyNotes(h: Harness, project: string, n: number, tag: string): Promise<void> {
  const at = new Date(h.clock.now()).toISOString();
  const rows: TaskRow[] = Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    profile: "default",
    project,
    title: `note ${tag}${i}`,
    title_norm: `note ${tag}${i}`,
    type: "note",
    status: "not_started",
    priority: "medium",
    section: "next",
    description: null,
    notes: null,
    due_date: null,
    parent_id: null,
    recurring: null,
    reminder_at: null,
    assignee: null,
    shared_by: null,
    created_by: "fixture",
    created_at: at,
    updated_at: at,
    last_event_id: `fixture-${i}`,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await h.db.db
      .insertInto("shampoo_tasks")
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

describe.each(DIALECTS)("reflection candidate cap (%s)", (dialect) => {
  let h: Harness;
  let agent: Agent;
  const p = uniq("cap");
  beforeAll(async () => {
    h = await harness(dialect);
    agent = await h.as({ principal: "alice", grants: [p] });
    await emptyNotes(h, p, 10_000, "a");
  });
  afterAll(async () => h?.close());

  it("persists exactly 10,000 candidates, and fails the run at 10,001 keeping none", async () => {
    const full = await ok(agent, "reflect_start", { project: p, limit_per_category: 50_000 });
    expect(full).toMatchObject({ status: "completed", candidates_persisted: 10_000 });
    expect((await ok(agent, "reflect_review", { run_id: full.run_id, limit: 1 })).total).toBe(10_000);

    await emptyNotes(h, p, 1, "b");
    h.clock.advance(1000);
    const over = await ok(agent, "reflect_start", { project: p, limit_per_category: 50_000 });
    expect(over).toMatchObject({ status: "failed", candidates_persisted: 0, error_type: "candidate_limit_exceeded" });
    expect((await ok(agent, "reflect_review", { run_id: over.run_id })).total).toBe(0);
    const failed = await ok(agent, "reflect_history", { project: p, status: "failed" });
    expect(failed.runs).toEqual([
      expect.objectContaining({ run_id: over.run_id, error_type: "candidate_limit_exceeded" }),
    ]);
    // A failed run is terminal: it archives and discards, and cannot be applied or canceled.
    expect((await agent.call("reflect_apply", { run_id: over.run_id })).structuredContent).toMatchObject({
      error: "run_not_completed",
    });
    expect((await agent.call("reflect_cancel", { run_id: over.run_id })).structuredContent).toMatchObject({
      error: "cannot_cancel_terminal_run",
    });
    // The default limit keeps a run small whatever the memory holds.
    expect(await ok(agent, "reflect_start", { project: p })).toMatchObject({
      status: "completed",
      candidates_persisted: 20,
    });
  });

  it("reflect_audit clamps limit_per_category to 1..1000", async () => {
    const big = await ok(agent, "reflect_audit", { project: p, limit_per_category: 50_000 });
    expect(big.summary).toMatchObject({ total_candidates: 1000, applied_filters: { limit_per_category: 1000 } });
    const tiny = await ok(agent, "reflect_audit", { project: p, limit_per_category: -4 });
    expect(tiny.summary).toMatchObject({ total_candidates: 1, applied_filters: { limit_per_category: 1 } });
    const admin = await h.as(ADMIN);
    expect((await ok(admin, "reflect_audit", {})).summary).toMatchObject({ applied_filters: { project: null } });
  });
});
