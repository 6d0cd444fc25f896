import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRIORITIES, SECTIONS, STATUSES, TYPES } from "../../src/domains/tasks/model.ts";
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
  poke,
  quietly,
  uniq,
} from "../support/tasks-write.ts";

/** What an enum refusal names as allowed (the catalog enums). */
const ALLOWED = { priority: PRIORITIES, section: SECTIONS, status: STATUSES, type: TYPES };

describe.each(DIALECTS)("update_task on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("updates each field on its own, reporting the applied field plus updated_at", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p, q] });
    const parent = await mk(a, { title: "parent", project: p });
    const id = await mk(a, { title: "subject", project: p });
    const cases: [string, string, Record<string, unknown>][] = [
      ["title", "  Renamed Subject ", { title: "Renamed Subject", title_norm: "renamed subject" }],
      ["description", "new body", { description: "new body" }],
      ["notes", "aux", { notes: "aux" }],
      ["due_date", "2027-01-15", { due_date: "2027-01-15" }],
      ["parent_id", parent, { parent_id: parent }],
      ["priority", "critical", { priority: "critical" }],
      ["project", q, { project: q }],
      ["recurring", '{"every":"month","day_of_month":1}', { recurring: '{"every":"month","day_of_month":1}' }],
      ["reminder_at", "2027-01-14T08:00:00Z", { reminder_at: "2027-01-14T08:00:00Z" }],
      ["section", "waiting", { section: "waiting" }],
      ["status", "in_progress", { status: "in_progress" }],
      ["type", "note", { type: "note" }],
    ];
    for (const [field, value, stored] of cases) {
      h.clock.advance(60_000);
      const r = await ok(a, "update_task", { task_id: id, [field]: value });
      expect(r).toEqual({ updated: id, fields: [field, "updated_at"] });
      const row = await mustRow(h, id);
      expect(row).toMatchObject({ ...stored, updated_at: new Date(h.clock.now()).toISOString() });
      expect(row.created_at).toBe("2026-11-30T12:00:00.000Z");
    }
    // One event per update, chained.
    const events = await eventsOf(h, id);
    expect(events.map((e) => e.action)).toEqual(["create", ...cases.map(() => "update")]);
    for (let i = 1; i < events.length; i++) expect(events[i]?.parent_event_id).toBe(events[i - 1]?.event_id);
  });

  it("updates several fields at once and moves through every status", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "multi", project: p });
    expect(
      await ok(a, "update_task", { task_id: id, type: "note", section: "today", title: "Multi", priority: "low" }),
    ).toEqual({ updated: id, fields: ["title", "priority", "section", "type", "updated_at"] });
    for (const status of ["in_progress", "done", "archived", "cancelled", "not_started"]) {
      await ok(a, "update_task", { task_id: id, status });
      expect((await mustRow(h, id)).status).toBe(status);
    }
  });

  it("CLEAR nulls each clearable field (due_date, notes, parent_id, project, recurring, reminder_at)", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p, ""] });
    const parent = await mk(a, { title: "parent", project: p });
    const id = await mk(a, {
      title: "full",
      project: p,
      due_date: "2026-12-31",
      notes: "n",
      parent_id: parent,
      recurring: '{"every":"day"}',
      reminder_at: "2026-12-30T10:00:00",
      description: "keep me",
    });
    for (const field of ["due_date", "notes", "parent_id", "project", "recurring", "reminder_at"]) {
      expect(await ok(a, "update_task", { task_id: id, [field]: "CLEAR" })).toEqual({
        updated: id,
        fields: [field, "updated_at"],
      });
      expect((await mustRow(h, id))[field as "notes"]).toBeNull();
    }
    expect(await mustRow(h, id)).toMatchObject({
      title: "full",
      description: "keep me",
      due_date: null,
      notes: null,
      parent_id: null,
      project: null,
      recurring: null,
      reminder_at: null,
    });
    // All at once, too.
    const id2 = await mk(a, { title: "full2", project: p, due_date: "2026-12-31", notes: "n" });
    expect(await ok(a, "update_task", { task_id: id2, due_date: "CLEAR", notes: "CLEAR", title: "t2" })).toEqual({
      updated: id2,
      fields: ["title", "notes", "due_date", "updated_at"],
    });
  });

  it("refuses CLEAR on every other field, changing nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "keep", project: p, description: "body" });
    for (const field of ["title", "description"]) {
      await expectRefused(
        h,
        a,
        "update_task",
        { task_id: id, [field]: "CLEAR" },
        `${field} cannot be CLEARed (CLEAR applies to due_date, notes, parent_id, project, recurring, reminder_at)`,
      );
    }
    for (const field of ["priority", "section", "status", "type"]) {
      await expectRefused(
        h,
        a,
        "update_task",
        { task_id: id, [field]: "CLEAR" },
        // update_task's enums take "" too: blank leaves the field as it is
        `${field} must be one of: "", ${ALLOWED[field as keyof typeof ALLOWED].join(", ")}`,
      );
    }
    // A refused CLEAR next to a valid field applies neither.
    await expectRefused(h, a, "update_task", { task_id: id, notes: "x", title: "CLEAR" }, /^title cannot be CLEARed/);
  });

  it("ignores empty strings; nothing effective answers No fields to update", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "steady", project: p, notes: "keep", due_date: "2026-12-31" });
    const allEmpty = {
      task_id: id,
      title: "",
      description: "",
      due_date: "",
      notes: "",
      parent_id: "",
      priority: "",
      project: "",
      recurring: "",
      reminder_at: "",
      section: "",
      status: "",
      type: "",
    };
    await expectRefused(h, a, "update_task", allEmpty, "No fields to update");
    await expectRefused(h, a, "update_task", { task_id: id }, "No fields to update");
    await expectRefused(h, a, "update_task", { task_id: id, title: "   " }, "No fields to update");
    // Empty strings beside a real value: only the real value applies; the empty ones keep their values.
    expect(await ok(a, "update_task", { ...allEmpty, section: "today" })).toEqual({
      updated: id,
      fields: ["section", "updated_at"],
    });
    expect(await mustRow(h, id)).toMatchObject({ notes: "keep", due_date: "2026-12-31", project: p, section: "today" });
    // Shape checks come before existence: a missing task with no fields says so too.
    await expectRefused(h, a, "update_task", { task_id: MISSING_ID }, "No fields to update");
  });

  it("rejects bad dates, reminders, recurrences and enums, changing nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "valid", project: p });
    await expectRefused(h, a, "update_task", { task_id: id, due_date: "2026-02-30" }, /^due_date must be a date/);
    await expectRefused(h, a, "update_task", { task_id: id, reminder_at: "soon" }, /^reminder_at must be an ISO/);
    await expectRefused(h, a, "update_task", { task_id: id, reminder_at: "2026-01-01T25:00" }, /impossible time/);
    await expectRefused(h, a, "update_task", { task_id: id, recurring: "{" }, /^recurring must be a JSON object/);
    await expectRefused(h, a, "update_task", { task_id: id, recurring: '{"every":"hour"}' }, /^recurring.every/);
    await expectRefused(
      h,
      a,
      "update_task",
      { task_id: id, status: "finished" },
      /^status must be one of: "", not_started, in_progress, done, archived, cancelled$/,
    );
    await expectRefused(
      h,
      a,
      "update_task",
      { task_id: id, priority: "urgent" },
      /^priority must be one of: ("", )?low, medium, high, critical$/,
    );
    // A bad value next to good ones applies nothing.
    await expectRefused(h, a, "update_task", { task_id: id, title: "new", due_date: "31-12-2026" }, /^due_date/);
    // Valid recurrences and reminders are accepted and canonicalised.
    await ok(a, "update_task", {
      task_id: id,
      recurring: '{"day":"Sunday","every":"week"}',
      reminder_at: "2027-01-01T00:00",
    });
    expect(await mustRow(h, id)).toMatchObject({
      recurring: '{"every":"week","day":"sunday"}',
      reminder_at: "2027-01-01T00:00",
    });
  });

  it("rejects unknown arguments and wrong types before anything runs", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "strict", project: p });
    await expectRefused(h, a, "update_task", { title: "x" }, "Missing required argument: task_id");
    await expectRefused(h, a, "update_task", { task_id: id, assignee: "bob" }, "Unknown argument: assignee");
    await expectRefused(h, a, "update_task", { task_id: id, colour: "red", title: "x" }, "Unknown argument: colour");
    await expectRefused(h, a, "update_task", { task_id: 7, title: "x" }, "task_id must be string");
    await expectRefused(h, a, "update_task", { task_id: id, title: 7 }, "title must be string");
    await expectRefused(h, a, "update_task", { task_id: id, due_date: null }, "due_date must be string");
    await expectRefused(h, a, "update_task", { task_id: id, notes: ["a"] }, "notes must be string");
  });

  it("missing, foreign, other-profile and malformed ids answer identically: Task not found", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q] });
    const twin = await h.as({ principal: "alice", grants: [p], profile: "twin" });
    const foreign = await mk(b, { title: "bob's", project: q });
    const otherProfile = await mk(twin, { title: "twin's", project: p });
    const results = [];
    for (const task_id of [MISSING_ID, foreign, otherProfile, "nope", foreign.toUpperCase()]) {
      results.push(await expectUnchanged(h, () => a.call("update_task", { task_id, title: "hijack" })));
    }
    for (const r of results) {
      expect(r).toEqual(results[0]);
      expect(r.structuredContent).toEqual(NOT_FOUND);
      expect(r.isError).toBe(true);
    }
    expect((await mustRow(h, foreign)).title).toBe("bob's");
  });

  it("a parent must be visible; CLEAR detaches; cycles through visible tasks are refused", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q] });
    const root = await mk(a, { title: "root", project: p });
    const mid = await mk(a, { title: "mid", project: p, parent_id: root });
    const leaf = await mk(a, { title: "leaf", project: p, parent_id: mid });
    const foreign = await mk(b, { title: "foreign", project: q });
    // Foreign and missing parents answer the same not-found, and nothing changes.
    const rf = await expectUnchanged(h, () => a.call("update_task", { task_id: leaf, parent_id: foreign }));
    const rm = await expectUnchanged(h, () => a.call("update_task", { task_id: leaf, parent_id: MISSING_ID }));
    const rx = await expectUnchanged(h, () => a.call("update_task", { task_id: leaf, parent_id: "bogus" }));
    expect(rf).toEqual(rm);
    expect(rx).toEqual(rm);
    expect(rm.structuredContent).toEqual(NOT_FOUND);
    // Self and descendants would make a cycle.
    await expectRefused(h, a, "update_task", { task_id: root, parent_id: root }, "parent_id would make a cycle");
    await expectRefused(h, a, "update_task", { task_id: root, parent_id: leaf }, "parent_id would make a cycle");
    await expectRefused(h, a, "update_task", { task_id: mid, parent_id: leaf }, "parent_id would make a cycle");
    // Re-parenting to a visible non-descendant works; CLEAR detaches.
    const other = await mk(a, { title: "other", project: p });
    expect(await ok(a, "update_task", { task_id: leaf, parent_id: other })).toEqual({
      updated: leaf,
      fields: ["parent_id", "updated_at"],
    });
    await ok(a, "update_task", { task_id: leaf, parent_id: "CLEAR" });
    expect((await mustRow(h, leaf)).parent_id).toBeNull();
  });

  it("no existence oracle in the cycle check: a chain through tasks the caller cannot see answers like none", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const both = await h.as({ principal: "both", grants: [p, q] });
    // The same shape twice: alice's `top` sits under a task of q she cannot see. In the first,
    // that hidden task sits under alice's `root` (the move below would close a loop through it);
    // in the second it does not.
    const attempt = async (closesLoop: boolean) => {
      const root = await mk(a, { title: "root", project: p });
      const hidden = await mk(both, { title: "hidden", project: q, ...(closesLoop ? { parent_id: root } : {}) });
      const top = await mk(a, { title: "top", project: p });
      await ok(both, "update_task", { task_id: top, parent_id: hidden });
      const r = await a.call("update_task", { task_id: root, parent_id: top });
      return JSON.stringify(r).replaceAll(root, "ROOT");
    };
    const foreign = await attempt(true);
    expect(foreign).toBe(await attempt(false));
    expect(JSON.parse(foreign).structuredContent).toEqual({ updated: "ROOT", fields: ["parent_id", "updated_at"] });
  });

  it("project moves are grant-checked at the destination; CLEAR needs the untagged grant", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p, q] });
    const id = await mk(a, { title: "mover", project: p });
    await expectRefused(h, a, "update_task", { task_id: id, project: uniq() }, "Project not in scope", "scope");
    await expectRefused(h, a, "update_task", { task_id: id, project: "CLEAR" }, "Project not in scope", "scope");
    await expectRefused(h, a, "update_task", { task_id: id, project: "*" }, "'*' is a grant, not a project value");
    await ok(a, "update_task", { task_id: id, project: q });
    expect((await mustRow(h, id)).project).toBe(q);
    // With the untagged grant, CLEAR moves to the untagged enclave, and back.
    const u = await h.as({ principal: "alice-u", grants: [p, q, ""] });
    await ok(u, "update_task", { task_id: id, project: "CLEAR" });
    expect((await mustRow(h, id)).project).toBeNull();
    // alice (no untagged grant) has lost sight of it now.
    const r = await a.call("update_task", { task_id: id, title: "x" });
    expect(r.structuredContent).toEqual(NOT_FOUND);
    await ok(u, "update_task", { task_id: id, project: p });
    // Star reaches every named project, but CLEAR (untagged) still needs "".
    const star = await h.as({ principal: "star", grants: ["*"] });
    await ok(star, "update_task", { task_id: id, project: uniq("anywhere") });
    await expectRefused(h, star, "update_task", { task_id: id, project: "CLEAR" }, "Project not in scope", "scope");
  });

  it("records one update event with principal, role, time, old/new values, payload and chain", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const c = await h.as({ principal: "conny", grants: [p], role: "conductor" });
    const id = await mk(a, { title: "audited", project: p, priority: "low" });
    h.clock.advance(5_000);
    const args = { task_id: id, priority: "high", notes: "why", description: "" };
    await ok(c, "update_task", args);
    const events = await eventsOf(h, id);
    expect(events).toHaveLength(2);
    expectEvent(events[1], {
      agent: c,
      tool: "update_task",
      action: "update",
      at: h.clock.now(),
      parent: events[0]?.event_id ?? null,
      entityId: id,
    });
    expect(events[1]?.role).toBe("conductor");
    expect(events[1]?.clock).toBe((events[0]?.clock ?? 0) + 1);
    const old = JSON.parse(events[1]?.old_json ?? "{}");
    const next = JSON.parse(events[1]?.new_json ?? "{}");
    expect(old).toMatchObject({ priority: "low", notes: null });
    expect(next).toMatchObject({ priority: "high", notes: "why", updated_at: new Date(h.clock.now()).toISOString() });
    expect(JSON.parse(events[1]?.payload_json ?? "{}")).toEqual(args);
    expect((await mustRow(h, id)).last_event_id).toBe(events[1]?.event_id);
  });

  it("a failing write leaves the task and its history untouched", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "fragile", project: p });
    const remove = await injectFailure(h, "UPDATE", "id", id);
    try {
      const { out } = await quietly(() => expectUnchanged(h, () => a.call("update_task", { task_id: id, title: "x" })));
      expect(out.structuredContent).toEqual(INTERNAL);
    } finally {
      await remove();
    }
    expect(await eventsOf(h, id)).toHaveLength(1);
  });

  it("nothing is deleted: archived and cancelled tasks keep their rows", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const x = await mk(a, { title: "to archive", project: p });
    const y = await mk(a, { title: "to cancel", project: p });
    await ok(a, "update_task", { task_id: x, status: "archived" });
    await ok(a, "update_task", { task_id: y, status: "cancelled" });
    expect((await mustRow(h, x)).status).toBe("archived");
    expect((await mustRow(h, y)).status).toBe("cancelled");
    // Still reachable by id for later moves.
    await ok(a, "update_task", { task_id: x, status: "in_progress" });
  });

  it("concurrent updates of one task serialise: every event chains to the one before", async () => {
    const p = uniq();
    const agents = await Promise.all(Array.from({ length: 8 }, (_, i) => h.as({ principal: `w${i}`, grants: [p] })));
    const id = await mk(agents[0]!, { title: "contended", project: p });
    await Promise.all(agents.map((ag, i) => ok(ag, "update_task", { task_id: id, notes: `n${i}` })));
    const events = await eventsOf(h, id);
    expect(events).toHaveLength(9);
    for (let i = 1; i < events.length; i++) {
      expect(events[i]?.parent_event_id).toBe(events[i - 1]?.event_id);
      expect(JSON.parse(events[i]?.old_json ?? "{}").notes).toBe(JSON.parse(events[i - 1]?.new_json ?? "{}").notes);
    }
    expect((await mustRow(h, id)).last_event_id).toBe(events[8]?.event_id);
  });

  it("concurrent opposite re-parentings never make a cycle: one wins, the other is refused", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [p] });
    for (let i = 0; i < 10; i++) {
      const x = await mk(a, { title: `x${i}`, project: p });
      const y = await mk(a, { title: `y${i}`, project: p });
      const [rx, ry] = await Promise.all([
        a.call("update_task", { task_id: x, parent_id: y }),
        b.call("update_task", { task_id: y, parent_id: x }),
      ]);
      const outcomes = [rx, ry].map((r) => (r.isError ? (r.structuredContent as { error: string }).error : "ok"));
      expect(outcomes.sort()).toEqual(["ok", "parent_id would make a cycle"]);
      const parents = [(await mustRow(h, x)).parent_id, (await mustRow(h, y)).parent_id];
      expect(parents.filter((v) => v !== null)).toHaveLength(1);
    }
  });

  it("updates a note like a task", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "a note", project: p, type: "note" });
    await poke(h, id, { section: "someday" });
    expect(await ok(a, "update_task", { task_id: id, description: "grown" })).toEqual({
      updated: id,
      fields: ["description", "updated_at"],
    });
    expect(await mustRow(h, id)).toMatchObject({ type: "note", description: "grown", section: "someday" });
  });
});
