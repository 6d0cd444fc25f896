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
  mk,
  mustRow,
  ok,
  quietly,
  UUID_RE,
  uniq,
} from "../support/tasks-write.ts";

const UP = "upsert_note_by_title_project";
const MATCHED = "normalized_title_project";

describe.each(DIALECTS)("upsert_note_by_title_project on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  async function notesTitled(project: string | null, titleNorm: string) {
    let q = h.db.db
      .selectFrom("shampoo_tasks")
      .selectAll()
      .where("type", "=", "note")
      .where("title_norm", "=", titleNorm);
    q = project === null ? q.where("project", "is", null) : q.where("project", "=", project);
    return q.execute();
  }

  it("the catalog example: creates a note with defaults section next and priority medium", async () => {
    const a = await h.as({ principal: "ops", grants: ["shared-ops"] });
    const r = await ok(a, UP, {
      description: "Chosen because WAL tolerates concurrent writers.",
      project: "shared-ops",
      title: "Bus Timeout Decision",
    });
    expect(r).toEqual({
      action: "created",
      matched_on: MATCHED,
      status: "not_started",
      task_id: r.task_id,
      title: "Bus Timeout Decision",
      type: "note",
    });
    expect(r.task_id).toMatch(UUID_RE);
    expect(await mustRow(h, r.task_id as string)).toMatchObject({
      type: "note",
      status: "not_started",
      section: "next",
      priority: "medium",
      project: "shared-ops",
      description: "Chosen because WAL tolerates concurrent writers.",
      notes: null,
      created_by: "ops",
    });
  });

  it("creates with every parameter", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const r = await ok(a, UP, {
      title: "  Full Note ",
      project: p,
      description: "body",
      notes: "meta",
      priority: "critical",
      section: "someday",
      update_if_found: false,
    });
    expect(r).toMatchObject({ action: "created", title: "Full Note", type: "note", status: "not_started" });
    expect(await mustRow(h, r.task_id as string)).toMatchObject({
      title: "Full Note",
      title_norm: "full note",
      description: "body",
      notes: "meta",
      priority: "critical",
      section: "someday",
    });
  });

  it("matches the normalized title (case, spacing, accents) in the same project and updates only what is set", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const c = await ok(a, UP, { title: "Café  Decision", project: p, description: "v1", priority: "high" });
    const id = c.task_id as string;
    h.clock.advance(60_000);
    const u = await ok(a, UP, { title: "  cafe decision", project: p, description: "v2" });
    expect(u).toEqual({
      task_id: id,
      title: "Café  Decision",
      type: "note",
      action: "updated",
      fields: ["description", "updated_at"],
      matched_on: MATCHED,
    });
    // priority (high) and section (next) stay: they change only when explicitly set.
    expect(await mustRow(h, id)).toMatchObject({
      title: "Café  Decision",
      description: "v2",
      priority: "high",
      section: "next",
      notes: null,
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    expect(
      await ok(a, UP, { title: "CAFÉ DECISION", project: p, section: "today", priority: "low", notes: "n" }),
    ).toEqual({
      task_id: id,
      title: "Café  Decision",
      type: "note",
      action: "updated",
      fields: ["notes", "section", "priority", "updated_at"],
      matched_on: MATCHED,
    });
    expect(await mustRow(h, id)).toMatchObject({ description: "v2", notes: "n", section: "today", priority: "low" });
    // Empty strings are "not set": they never clear anything.
    expect(
      (await ok(a, UP, { title: "cafe decision", project: p, description: "", notes: "", section: "", priority: "" }))
        .action,
    ).toBe("existing");
    expect(await mustRow(h, id)).toMatchObject({ description: "v2", notes: "n" });
    expect(await notesTitled(p, "cafe decision")).toHaveLength(1);
  });

  it("replays converge: identical content answers existing and records nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const args = { title: "Replay", project: p, description: "same", section: "today" };
    const c = await ok(a, UP, args);
    for (let i = 0; i < 3; i++) {
      const r = await expectUnchanged(h, () => ok(a, UP, args));
      expect(r).toEqual({ task_id: c.task_id, title: "Replay", type: "note", action: "existing", matched_on: MATCHED });
    }
    expect(await eventsOf(h, c.task_id as string)).toHaveLength(1);
  });

  it("update_if_found false returns the match untouched with action existing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const c = await ok(a, UP, { title: "Frozen", project: p, description: "original" });
    const r = await expectUnchanged(h, () =>
      ok(a, UP, { title: "frozen", project: p, description: "changed", priority: "critical", update_if_found: false }),
    );
    expect(r).toEqual({ task_id: c.task_id, title: "Frozen", type: "note", action: "existing", matched_on: MATCHED });
    // update_if_found true (explicit) applies.
    expect(
      (await ok(a, UP, { title: "frozen", project: p, description: "changed", update_if_found: true })).action,
    ).toBe("updated");
  });

  it("the project is part of the key: other projects and untagged are separate notes", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p, q, ""] });
    const inP = await ok(a, UP, { title: "Shared Name", project: p });
    const inQ = await ok(a, UP, { title: "Shared Name", project: q });
    const untagged = await ok(a, UP, { title: "Shared Name" });
    const untagged2 = await ok(a, UP, { title: "shared name", project: "", description: "x" });
    expect([inP.action, inQ.action, untagged.action, untagged2.action]).toEqual([
      "created",
      "created",
      "created",
      "updated",
    ]);
    expect(new Set([inP.task_id, inQ.task_id, untagged.task_id]).size).toBe(3);
    expect(untagged2.task_id).toBe(untagged.task_id);
    expect((await mustRow(h, untagged.task_id as string)).project).toBeNull();
  });

  it("tasks never match; notes in any status do, live ones first, then the oldest", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const task = await mk(a, { title: "Dup Title", project: p, type: "task" });
    const first = await ok(a, UP, { title: "Dup Title", project: p });
    expect(first.action).toBe("created");
    expect(first.task_id).not.toBe(task);
    // Duplicates made outside upsert (create_task_or_note never converges).
    h.clock.advance(1000);
    const second = await mk(a, { title: "dup title", project: p, type: "note" });
    h.clock.advance(1000);
    const third = await mk(a, { title: "DUP TITLE", project: p, type: "note" });
    // Oldest live note wins.
    expect((await ok(a, UP, { title: "Dup Title", project: p, description: "1" })).task_id).toBe(first.task_id);
    // Once the oldest is archived, the next live one is preferred.
    await ok(a, "update_task", { task_id: first.task_id, status: "archived" });
    expect((await ok(a, UP, { title: "Dup Title", project: p, description: "2" })).task_id).toBe(second);
    await ok(a, "update_task", { task_id: second, status: "done" });
    await ok(a, "update_task", { task_id: third, status: "cancelled" });
    // No live note left: the oldest finished one is updated, keeping its status (never revived, never duplicated).
    const r = await ok(a, UP, { title: "Dup Title", project: p, description: "3" });
    expect(r).toMatchObject({ task_id: first.task_id, action: "updated" });
    expect(await mustRow(h, first.task_id as string)).toMatchObject({ status: "archived", description: "3" });
    expect((await mustRow(h, task)).description).toBeNull();
  });

  it("rejects blank and missing titles", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await expectRefused(h, a, UP, { title: "   ", project: p }, "title must not be blank");
    await expectRefused(h, a, UP, { title: "\t\n", project: p }, "title must not be blank");
    await expectRefused(h, a, UP, { title: "", project: p }, /^title must NOT have fewer than 1/);
    await expectRefused(h, a, UP, { project: p }, "Missing required argument: title");
  });

  it("strict validation: unknown arguments, wrong types and bad enums", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await expectRefused(h, a, UP, { title: "x", project: p, type: "task" }, "Unknown argument: type");
    await expectRefused(h, a, UP, { title: "x", project: p, due_date: "2026-12-01" }, "Unknown argument: due_date");
    await expectRefused(
      h,
      a,
      UP,
      { title: "x", project: p, update_if_found: "false" },
      "update_if_found must be boolean",
    );
    await expectRefused(h, a, UP, { title: "x", project: 1 }, "project must be string");
    await expectRefused(
      h,
      a,
      UP,
      { title: "x", project: p, priority: "urgent" },
      /^priority must be one of: ("", )?low, medium, high, critical$/,
    );
    await expectRefused(
      h,
      a,
      UP,
      { title: "x", project: p, section: "later" },
      /^section must be one of: ("", )?inbox, today, next, someday, waiting$/,
    );
    await expectRefused(h, a, UP, { title: "x", project: p, description: 3 }, "description must be string");
  });

  it("out-of-scope projects deny generically; untagged fails closed without the untagged grant", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q] });
    await ok(b, UP, { title: "Theirs", project: q, description: "secret" });
    // An existing foreign note and a never-used project answer the same, and nothing changes.
    const r1 = await expectUnchanged(h, () => a.call(UP, { title: "Theirs", project: q, description: "overwrite" }));
    const r2 = await expectUnchanged(h, () => a.call(UP, { title: "Theirs", project: uniq(), description: "x" }));
    expect(r1).toEqual(r2);
    expect(r1.structuredContent).toEqual({ error: "Project not in scope", error_type: "scope" });
    await expectRefused(h, a, UP, { title: "Untagged" }, "Project not in scope", "scope");
    await expectRefused(h, a, UP, { title: "Untagged", project: "" }, "Project not in scope", "scope");
    const star = await h.as({ principal: "star", grants: ["*"] });
    await expectRefused(h, star, UP, { title: "Untagged" }, "Project not in scope", "scope");
    await expectRefused(h, star, UP, { title: "x", project: "*" }, "'*' is a grant, not a project value");
    // Star reaches named projects: it converges on bob's note.
    expect((await ok(star, UP, { title: "theirs", project: q, notes: "seen" })).action).toBe("updated");
  });

  it("stays inside the profile: the same key in another profile is another note", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const twin = await h.as({ principal: "alice", grants: [p], profile: "twin" });
    const mine = await ok(a, UP, { title: "Profiled", project: p, description: "default" });
    const theirs = await ok(twin, UP, { title: "Profiled", project: p, description: "twin" });
    expect(theirs.action).toBe("created");
    expect(theirs.task_id).not.toBe(mine.task_id);
    expect(await mustRow(h, mine.task_id as string)).toMatchObject({ profile: "default", description: "default" });
    expect(await mustRow(h, theirs.task_id as string)).toMatchObject({ profile: "twin", description: "twin" });
  });

  it("records a create event, then one update event per effective change, chained", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [p], role: "conductor" });
    h.clock.advance(1000);
    const c = await ok(a, UP, { title: "Chain", project: p, notes: "one" });
    const id = c.task_id as string;
    h.clock.advance(1000);
    const args = { title: "chain", project: p, notes: "two" };
    await ok(b, UP, args);
    const events = await eventsOf(h, id);
    expect(events).toHaveLength(2);
    expectEvent(events[0], {
      agent: a,
      tool: UP,
      action: "create",
      at: h.clock.now() - 1000,
      parent: null,
      entityId: id,
    });
    expectEvent(events[1], {
      agent: b,
      tool: UP,
      action: "update",
      at: h.clock.now(),
      parent: events[0]?.event_id ?? null,
      entityId: id,
    });
    expect(JSON.parse(events[1]?.old_json ?? "{}").notes).toBe("one");
    expect(JSON.parse(events[1]?.new_json ?? "{}").notes).toBe("two");
    expect(JSON.parse(events[1]?.payload_json ?? "{}")).toEqual(args);
    expect(events[1]?.clock).toBeGreaterThan(events[0]?.clock ?? Number.POSITIVE_INFINITY);
    expect((await mustRow(h, id)).last_event_id).toBe(events[1]?.event_id);
  });

  it("concurrent upserts of one title converge on ONE note", async () => {
    const p = uniq();
    const agents = await Promise.all(Array.from({ length: 12 }, (_, i) => h.as({ principal: `r${i}`, grants: [p] })));
    const results = await Promise.all(
      agents.map((ag, i) =>
        ok(ag, UP, { title: i % 2 ? "Race Note" : "race  NOTE", project: p, description: `v${i}` }),
      ),
    );
    const ids = new Set(results.map((r) => r.task_id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.action === "created")).toHaveLength(1);
    expect(results.filter((r) => r.action === "updated")).toHaveLength(11);
    expect(await notesTitled(p, "race note")).toHaveLength(1);
    // The history is one straight chain: create, then 11 updates, each seeing the one before.
    const events = await eventsOf(h, [...ids][0] as string);
    expect(events.map((e) => e.action)).toEqual(["create", ...Array(11).fill("update")]);
    for (let i = 1; i < events.length; i++) expect(events[i]?.parent_event_id).toBe(events[i - 1]?.event_id);
  });

  it("concurrent upserts of several titles make one note per title", async () => {
    const p = uniq();
    const agents = await Promise.all(Array.from({ length: 8 }, (_, i) => h.as({ principal: `d${i}`, grants: [p] })));
    const results = await Promise.all(
      agents.map((ag, i) => ok(ag, UP, { title: `Note ${i % 4}`, project: p, description: `v${i}` })),
    );
    expect(new Set(results.map((r) => r.task_id)).size).toBe(4);
    for (let k = 0; k < 4; k++) expect(await notesTitled(p, `note ${k}`)).toHaveLength(1);
  });

  it("a failing write creates and changes nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const remove = await injectFailure(h, "INSERT", "title", "Doomed Note");
    try {
      const { out } = await quietly(() => expectUnchanged(h, () => a.call(UP, { title: "Doomed Note", project: p })));
      expect(out.structuredContent).toEqual(INTERNAL);
    } finally {
      await remove();
    }
    const id = (await ok(a, UP, { title: "Sturdy", project: p })).task_id as string;
    const removeU = await injectFailure(h, "UPDATE", "id", id);
    try {
      const { out } = await quietly(() =>
        expectUnchanged(h, () => a.call(UP, { title: "Sturdy", project: p, description: "new" })),
      );
      expect(out.structuredContent).toEqual(INTERNAL);
    } finally {
      await removeU();
    }
  });
});
