import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "./support/shampoo.ts";

describe.each(DIALECTS)("SHAMPOO task writes on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("creates, updates and assigns with one history event per change", async () => {
    const a = await h.as({ principal: "alice", grants: ["shared-ops"] });
    const c = await a.sc("create_task_or_note", {
      title: "Draft Paul pack README",
      project: "shared-ops",
      section: "next",
      type: "task",
    });
    expect(c).toMatchObject({ title: "Draft Paul pack README", type: "task", status: "not_started" });
    const id = c.task_id as string;
    expect(await a.sc("update_task", { task_id: id, status: "in_progress", due_date: "2026-12-01" })).toEqual({
      updated: id,
      fields: ["due_date", "status", "updated_at"],
    });
    expect(await a.sc("assign_task", { task_id: id, assignee: "bob" })).toEqual({
      task_id: id,
      assignee: "bob",
      shared_by: "alice",
    });
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .selectAll()
      .where("entity_id", "=", id)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => e.action)).toEqual(["create", "update", "assign"]);
    expect(events[1]?.parent_event_id).toBe(events[0]?.event_id);
    expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("create_task_or_note");
  });

  it("answers missing and foreign tasks with the same bytes", async () => {
    const a = await h.as({ principal: "alice2", grants: ["alpha"] });
    const b = await h.as({ principal: "bob2", grants: ["beta"] });
    const t = await a.sc("create_task_or_note", { title: "secret", project: "alpha" });
    const foreign = await b.call("update_task", { task_id: t.task_id, title: "x" });
    const missing = await b.call("update_task", { task_id: "00000000-0000-4000-8000-000000000000", title: "x" });
    expect(foreign).toEqual(missing);
    expect(foreign.structuredContent).toEqual({ error: "Task not found", error_type: "not_found" });
    expect(foreign.isError).toBe(true);
  });
});
