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
  quietly,
  SCOPE_DENIED,
  snapshot,
  UUID_RE,
  uniq,
} from "../support/tasks-write.ts";

/** What an enum refusal names as allowed (the catalog enums). */
const ALLOWED = { priority: PRIORITIES, section: SECTIONS, status: STATUSES, type: TYPES };

describe.each(DIALECTS)("create_task_or_note on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("creates with the documented result and defaults (task, not_started, medium, inbox)", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const r = await ok(a, "create_task_or_note", { title: "Draft Paul pack README", project: p });
    expect(Object.keys(r).sort()).toEqual(["status", "task_id", "title", "type"]);
    expect(r).toMatchObject({ title: "Draft Paul pack README", type: "task", status: "not_started" });
    expect(r.task_id).toMatch(UUID_RE);
    const row = await mustRow(h, r.task_id as string);
    expect(row).toMatchObject({
      profile: "default",
      project: p,
      title: "Draft Paul pack README",
      title_norm: "draft paul pack readme",
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
      created_by: "alice",
      created_at: "2026-11-30T12:00:00.000Z",
      updated_at: "2026-11-30T12:00:00.000Z",
    });
  });

  it("the catalog example", async () => {
    const a = await h.as({ principal: "ops", grants: ["shared-ops"] });
    const r = await ok(a, "create_task_or_note", {
      project: "shared-ops",
      section: "next",
      title: "Draft Paul pack README",
      type: "task",
    });
    expect(r).toEqual({ status: "not_started", task_id: r.task_id, title: "Draft Paul pack README", type: "task" });
  });

  it("stores every parameter, the assignee as assign_task would (shared_by the caller)", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const parent = await mk(a, { title: "Parent", project: p });
    const args = {
      title: "  Child note  ",
      assignee: "bob",
      description: "Main body",
      due_date: "2026-12-24",
      notes: '{"meta":1}',
      parent_id: parent,
      priority: "critical",
      project: p,
      recurring: '{"every":"week","day":"Monday"}',
      reminder_at: "2026-12-20T09:30:00",
      section: "today",
      type: "note",
    };
    const r = await ok(a, "create_task_or_note", args);
    expect(r).toMatchObject({ title: "Child note", type: "note", status: "not_started" });
    const row = await mustRow(h, r.task_id as string);
    expect(row).toMatchObject({
      title: "Child note",
      description: "Main body",
      due_date: "2026-12-24",
      notes: '{"meta":1}',
      parent_id: parent,
      priority: "critical",
      project: p,
      recurring: '{"every":"week","day":"monday"}',
      reminder_at: "2026-12-20T09:30:00",
      section: "today",
      type: "note",
      assignee: "bob",
      shared_by: "alice",
    });
    // The request itself is kept verbatim in the event payload (audit).
    const [e] = await eventsOf(h, r.task_id as string);
    expect(JSON.parse(e?.payload_json ?? "{}")).toEqual(args);
  });

  it("accepts every priority, section and type", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    for (const priority of ["low", "medium", "high", "critical"]) {
      const id = await mk(a, { title: `pri ${priority}`, project: p, priority });
      expect((await mustRow(h, id)).priority).toBe(priority);
    }
    for (const section of ["inbox", "today", "next", "someday", "waiting"]) {
      const id = await mk(a, { title: `sec ${section}`, project: p, section });
      expect((await mustRow(h, id)).section).toBe(section);
    }
    for (const type of ["task", "note"]) {
      const id = await mk(a, { title: `type ${type}`, project: p, type });
      expect((await mustRow(h, id)).type).toBe(type);
    }
  });

  it("empty optional strings are skipped", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p, ""] });
    const id = await mk(a, {
      title: "empties",
      description: "",
      due_date: "",
      notes: "",
      parent_id: "",
      recurring: "",
      reminder_at: "",
      assignee: "",
      project: "",
    });
    expect(await mustRow(h, id)).toMatchObject({
      project: null,
      description: null,
      due_date: null,
      notes: null,
      parent_id: null,
      recurring: null,
      reminder_at: null,
      assignee: null,
    });
  });

  it("validates due_date", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    for (const due of ["2026-12-01", "2028-02-29", "1999-01-31"]) {
      const id = await mk(a, { title: `due ${due}`, project: p, due_date: due });
      expect((await mustRow(h, id)).due_date).toBe(due);
    }
    for (const due of ["2027-02-29", "2026-13-01", "2026-04-31", "12/01/2026", "2026-1-1", "tomorrow", "CLEAR"]) {
      await expectRefused(
        h,
        a,
        "create_task_or_note",
        { title: "x", project: p, due_date: due },
        `due_date must be a date YYYY-MM-DD, got ${JSON.stringify(due)}`,
      );
    }
  });

  it("validates reminder_at", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    for (const at of [
      "2026-03-15T14:00:00",
      "2026-03-15T14:00",
      "2026-03-15T14:00:00Z",
      "2026-03-15T14:00:00.123+02:00",
      "2026-03-15T23:59:59-05:30",
    ]) {
      const id = await mk(a, { title: `rem ${at}`, project: p, reminder_at: at });
      expect((await mustRow(h, id)).reminder_at).toBe(at);
    }
    for (const at of [
      "2026-03-15",
      "2026-03-15 14:00:00",
      "2026-02-30T10:00:00",
      "tomorrow at noon",
      "2026-03-15T14:00:00+0200",
    ]) {
      await expectRefused(
        h,
        a,
        "create_task_or_note",
        { title: "x", project: p, reminder_at: at },
        `reminder_at must be an ISO date-time like 2026-03-15T14:00:00, got ${JSON.stringify(at)}`,
      );
    }
    for (const at of [
      "2026-03-15T24:00:00",
      "2026-03-15T14:60:00",
      "2026-03-15T14:00:61",
      "2026-03-15T14:00:00+24:00",
    ]) {
      await expectRefused(
        h,
        a,
        "create_task_or_note",
        { title: "x", project: p, reminder_at: at },
        `reminder_at has an impossible time, got ${JSON.stringify(at)}`,
      );
    }
  });

  it("validates recurring and stores it canonically", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const good: [string, string][] = [
      ['{"every":"week","day":"monday"}', '{"every":"week","day":"monday"}'],
      ['{ "day": "FRIDAY", "every": "week", "interval": 2 }', '{"every":"week","interval":2,"day":"friday"}'],
      ['{"every":"month","day_of_month":31}', '{"every":"month","day_of_month":31}'],
      ['{"every":"day","until":"2027-01-01"}', '{"every":"day","until":"2027-01-01"}'],
      ['{"every":"weekday"}', '{"every":"weekday"}'],
      ['{"every":"year","interval":365}', '{"every":"year","interval":365}'],
    ];
    for (const [given, stored] of good) {
      const id = await mk(a, { title: "rec", project: p, recurring: given });
      expect((await mustRow(h, id)).recurring).toBe(stored);
    }
    const bad: [string, string][] = [
      ["weekly", 'recurring must be a JSON object string, e.g. {"every":"week","day":"monday"}'],
      ['["week"]', "recurring must be a JSON object"],
      ["null", "recurring must be a JSON object"],
      ['"week"', "recurring must be a JSON object"],
      ["{}", "recurring.every must be one of day, weekday, week, month, year"],
      ['{"every":"fortnight"}', "recurring.every must be one of day, weekday, week, month, year"],
      ['{"every":"week","at":"noon"}', "recurring has an unknown key at"],
      ['{"every":"day","interval":0}', "recurring.interval must be an integer 1..365"],
      ['{"every":"day","interval":1.5}', "recurring.interval must be an integer 1..365"],
      ['{"every":"day","interval":366}', "recurring.interval must be an integer 1..365"],
      ['{"every":"month","day":"monday"}', "recurring.day is a weekday name and goes with every=week"],
      ['{"every":"week","day":"funday"}', "recurring.day is a weekday name and goes with every=week"],
      ['{"every":"month","day_of_month":32}', "recurring.day_of_month is 1..31 and goes with every=month"],
      ['{"every":"week","day_of_month":3}', "recurring.day_of_month is 1..31 and goes with every=month"],
      ['{"every":"day","until":"2027-02-30"}', 'recurring.until must be a date YYYY-MM-DD, got "2027-02-30"'],
    ];
    for (const [recurring, error] of bad) {
      await expectRefused(h, a, "create_task_or_note", { title: "x", project: p, recurring }, error);
    }
  });

  it("title is required, trimmed and never blank", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await expectRefused(h, a, "create_task_or_note", { project: p }, "Missing required argument: title");
    await expectRefused(h, a, "create_task_or_note", { title: "   ", project: p }, "title must not be blank");
    await expectRefused(h, a, "create_task_or_note", { title: "", project: p }, /^title must NOT have fewer than 1/);
  });

  it("rejects unknown arguments, wrong types and bad enums before anything runs", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await expectRefused(
      h,
      a,
      "create_task_or_note",
      { title: "x", project: p, owner: "me" },
      "Unknown argument: owner",
    );
    await expectRefused(h, a, "create_task_or_note", { title: 42, project: p }, "title must be string");
    await expectRefused(h, a, "create_task_or_note", { title: "x", project: ["a"] }, "project must be string");
    await expectRefused(
      h,
      a,
      "create_task_or_note",
      { title: "x", project: p, due_date: 20261201 },
      /due_date must be string/,
    );
    await expectRefused(
      h,
      a,
      "create_task_or_note",
      { title: "x", project: p, assignee: null },
      "assignee must be string",
    );
    await expectRefused(
      h,
      a,
      "create_task_or_note",
      { title: "x", project: p, recurring: { every: "week" } },
      "recurring must be string",
    );
    for (const [field, value] of [
      ["priority", "urgent"],
      ["section", "later"],
      ["type", "idea"],
      ["priority", "CLEAR"],
    ]) {
      await expectRefused(
        h,
        a,
        "create_task_or_note",
        { title: "x", project: p, [field as string]: value },
        `${field} must be one of: ${ALLOWED[field as keyof typeof ALLOWED].join(", ")}`,
      );
    }
  });

  it("parent must be visible: missing, foreign, other-profile and malformed parents answer alike", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q] });
    const other = await h.as({ principal: "carol", grants: [p], profile: "elsewhere" });
    const mine = await mk(a, { title: "mine", project: p });
    const foreign = await mk(b, { title: "theirs", project: q });
    const otherProfile = await mk(other, { title: "other profile", project: p });
    const child = await mk(a, { title: "child", project: p, parent_id: mine });
    expect((await mustRow(h, child)).parent_id).toBe(mine);
    const results = [];
    for (const parent_id of [MISSING_ID, foreign, otherProfile, "not-a-uuid"]) {
      results.push(
        await expectUnchanged(h, () => a.call("create_task_or_note", { title: "orphan", project: p, parent_id })),
      );
    }
    for (const r of results) {
      expect(r).toEqual(results[0]);
      expect(r.structuredContent).toEqual(NOT_FOUND);
      expect(r.isError).toBe(true);
    }
  });

  it("out-of-scope projects deny generically; untagged fails closed without the untagged grant", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await expectRefused(h, a, "create_task_or_note", { title: "x", project: uniq() }, "Project not in scope", "scope");
    await expectRefused(h, a, "create_task_or_note", { title: "x" }, "Project not in scope", "scope");
    await expectRefused(h, a, "create_task_or_note", { title: "x", project: "" }, "Project not in scope", "scope");
    // A real project that exists and one that does not answer the same.
    const b = await h.as({ principal: "bob", grants: [uniq("existing")] });
    const existing = [...b.caller.projects][0] as string;
    await mk(b, { title: "exists", project: existing });
    const r1 = await a.call("create_task_or_note", { title: "x", project: existing });
    const r2 = await a.call("create_task_or_note", { title: "x", project: uniq("never") });
    expect(r1).toEqual(r2);
    expect(r1.structuredContent).toEqual(SCOPE_DENIED);
    // Star covers every named project but never the untagged enclave.
    const star = await h.as({ principal: "star", grants: ["*"] });
    await mk(star, { title: "star ok", project: uniq() });
    await expectRefused(h, star, "create_task_or_note", { title: "x" }, "Project not in scope", "scope");
    // The untagged grant alone writes untagged content only.
    const u = await h.as({ principal: "untagged", grants: [""] });
    const id = await mk(u, { title: "untagged" });
    expect((await mustRow(h, id)).project).toBeNull();
    await expectRefused(h, u, "create_task_or_note", { title: "x", project: p }, "Project not in scope", "scope");
    // "*" is a grant, never a project value.
    await expectRefused(
      h,
      star,
      "create_task_or_note",
      { title: "x", project: "*" },
      "'*' is a grant, not a project value",
    );
  });

  it("records exactly one create event, in the caller's profile", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p], role: "conductor" });
    h.clock.advance(1000);
    const before = await snapshot(h);
    const id = await mk(a, { title: "evented", project: p, description: "d" });
    const events = await eventsOf(h, id);
    expect(events).toHaveLength(1);
    expectEvent(events[0], {
      agent: a,
      tool: "create_task_or_note",
      action: "create",
      at: h.clock.now(),
      parent: null,
      entityId: id,
    });
    expect(events[0]?.old_json).toBeNull();
    expect(JSON.parse(events[0]?.new_json ?? "{}")).toMatchObject({
      id,
      title: "evented",
      description: "d",
      status: "not_started",
      project: p,
    });
    expect((await mustRow(h, id)).last_event_id).toBe(events[0]?.event_id);
    const after = (await snapshot(h)) as { counts: { tasks: number; history: number } };
    expect(after.counts).toEqual({
      tasks: (before as typeof after).counts.tasks + 1,
      history: (before as typeof after).counts.history + 1,
    });
  });

  it("creation never crosses profiles", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const x = await h.as({ principal: "alice", grants: [p], profile: "team-x" });
    const id = await mk(x, { title: "in team-x", project: p });
    expect((await mustRow(h, id)).profile).toBe("team-x");
    const r = await a.call("update_task", { task_id: id, title: "reach" });
    const m = await a.call("update_task", { task_id: MISSING_ID, title: "reach" });
    expect(r).toEqual(m);
    expect((await eventsOf(h, id))[0]?.profile).toBe("team-x");
  });

  it("a failing insert leaves nothing behind: no row, no event, no clock tick", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await mk(a, { title: "warm the clock", project: p });
    const remove = await injectFailure(h, "INSERT", "title", "doomed");
    try {
      const { out, stderr } = await quietly(() =>
        expectUnchanged(h, () => a.call("create_task_or_note", { title: "doomed", project: p })),
      );
      expect(out.isError).toBe(true);
      expect(out.structuredContent).toEqual(INTERNAL);
      expect(stderr).toContain("injected failure");
    } finally {
      await remove();
    }
  });
});
