import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";
import {
  eventsOf,
  expectEvent,
  expectRefused,
  expectUnchanged,
  INTERNAL,
  injectFailure,
  MISSING_ID,
  mk,
  mustRow,
  NOT_FOUND,
  ok,
  quietly,
  uniq,
} from "../support/tasks-write.ts";

describe.each(DIALECTS)("assign_task on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("assigns, records shared_by as the caller, reassigns and unassigns, each with one event", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [p], role: "conductor" });
    const id = await mk(a, { title: "do it", project: p });

    h.clock.advance(1000);
    expect(await ok(a, "assign_task", { task_id: id, assignee: "carol" })).toEqual({
      task_id: id,
      assignee: "carol",
      shared_by: "alice",
    });
    expect(await mustRow(h, id)).toMatchObject({
      assignee: "carol",
      shared_by: "alice",
      updated_at: new Date(h.clock.now()).toISOString(),
    });

    h.clock.advance(1000);
    expect(await ok(b, "assign_task", { task_id: id, assignee: "dave" })).toEqual({
      task_id: id,
      assignee: "dave",
      shared_by: "bob",
    });

    h.clock.advance(1000);
    expect(await ok(a, "assign_task", { task_id: id })).toEqual({ task_id: id, assignee: null, shared_by: null });
    expect(await mustRow(h, id)).toMatchObject({ assignee: null, shared_by: null });

    const events = await eventsOf(h, id);
    expect(events.map((e) => e.action)).toEqual(["create", "assign", "assign", "unassign"]);
    expectEvent(events[2], {
      agent: b,
      tool: "assign_task",
      action: "assign",
      at: h.clock.now() - 1000,
      parent: events[1]?.event_id ?? null,
      entityId: id,
    });
    expect(JSON.parse(events[2]?.old_json ?? "{}")).toMatchObject({ assignee: "carol", shared_by: "alice" });
    expect(JSON.parse(events[2]?.new_json ?? "{}")).toMatchObject({ assignee: "dave", shared_by: "bob" });
    expect(JSON.parse(events[2]?.payload_json ?? "{}")).toEqual({ task_id: id, assignee: "dave" });
    expectEvent(events[3], {
      agent: a,
      tool: "assign_task",
      action: "unassign",
      at: h.clock.now(),
      parent: events[2]?.event_id ?? null,
      entityId: id,
    });
    expect(JSON.parse(events[3]?.new_json ?? "{}")).toMatchObject({ assignee: null, shared_by: null });
  });

  it("empty and blank assignees unassign", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "t", project: p });
    for (const assignee of ["", "   "]) {
      await ok(a, "assign_task", { task_id: id, assignee: "x" });
      expect(await ok(a, "assign_task", { task_id: id, assignee })).toEqual({
        task_id: id,
        assignee: null,
        shared_by: null,
      });
    }
  });

  it("stores the assignee verbatim and grants nothing by it", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const bob = await h.as({ principal: "bob", grants: [uniq()] });
    const id = await mk(a, { title: "t", project: p });
    for (const assignee of [" Bob (reviewer) ", "*", "ünïcödé 🎯", "bob"]) {
      expect((await ok(a, "assign_task", { task_id: id, assignee })).assignee).toBe(assignee);
      expect((await mustRow(h, id)).assignee).toBe(assignee);
    }
    // bob is the assignee, yet the task is outside his grants: it does not exist for him.
    const r = await bob.call("assign_task", { task_id: id, assignee: "bob" });
    const m = await bob.call("assign_task", { task_id: MISSING_ID, assignee: "bob" });
    expect(r).toEqual(m);
    expect(r.structuredContent).toEqual(NOT_FOUND);
  });

  it("assigns notes too", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "n", project: p, type: "note" });
    expect(await ok(a, "assign_task", { task_id: id, assignee: "eve" })).toEqual({
      task_id: id,
      assignee: "eve",
      shared_by: "alice",
    });
  });

  it("missing, foreign, other-profile, untagged-without-grant and malformed ids answer identically", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q, ""] });
    const twin = await h.as({ principal: "alice", grants: [p], profile: "twin" });
    const foreign = await mk(b, { title: "f", project: q });
    const untagged = await mk(b, { title: "u" });
    const otherProfile = await mk(twin, { title: "o", project: p });
    const results = [];
    for (const task_id of [MISSING_ID, foreign, untagged, otherProfile, "x"]) {
      results.push(await expectUnchanged(h, () => a.call("assign_task", { task_id, assignee: "me" })));
    }
    for (const r of results) {
      expect(r).toEqual(results[0]);
      expect(r.structuredContent).toEqual(NOT_FOUND);
    }
  });

  it("strict validation: missing task_id, unknown arguments, wrong types", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "t", project: p });
    await expectRefused(h, a, "assign_task", { assignee: "x" }, "Missing required argument: task_id");
    await expectRefused(
      h,
      a,
      "assign_task",
      { task_id: id, assignee: "x", shared_by: "y" },
      "Unknown argument: shared_by",
    );
    await expectRefused(h, a, "assign_task", { task_id: id, assignee: 5 }, "assignee must be string");
    await expectRefused(h, a, "assign_task", { task_id: id, assignee: null }, "assignee must be string");
    await expectRefused(h, a, "assign_task", { task_id: [id] }, "task_id must be string");
  });

  it("a failing write assigns nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "t", project: p });
    const remove = await injectFailure(h, "UPDATE", "id", id);
    try {
      const { out } = await quietly(() =>
        expectUnchanged(h, () => a.call("assign_task", { task_id: id, assignee: "zed" })),
      );
      expect(out.structuredContent).toEqual(INTERNAL);
    } finally {
      await remove();
    }
  });
});
