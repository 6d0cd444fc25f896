import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../support/shampoo.ts";
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
  poke,
  quietly,
  uniq,
} from "../support/tasks-write.ts";

const DAY = 86_400_000;
const ARCHIVE = "archive_done_tasks";
const BUMP = "bump_overdue_priority";

describe.each(DIALECTS)("archive_done_tasks on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  /** A done task whose last update was `ageMs` ago (by the injected clock). */
  async function doneTask(a: Agent, project: string | undefined, ageMs: number, extra: Record<string, unknown> = {}) {
    const id = await mk(a, { title: `done ${ageMs}`, ...(project === undefined ? {} : { project }), ...extra });
    await ok(a, "update_task", { task_id: id, status: "done" });
    await poke(h, id, { updated_at: new Date(h.clock.now() - ageMs).toISOString() });
    return id;
  }

  it("default threshold 7 days: strictly older done tasks move, the rest stay", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const old = await doneTask(a, p, 8 * DAY);
    const justOver = await doneTask(a, p, 7 * DAY + 1);
    const exactly = await doneTask(a, p, 7 * DAY);
    const recent = await doneTask(a, p, 6 * DAY);
    expect(await ok(a, ARCHIVE, {})).toEqual({ archived: 2, threshold_days: 7 });
    expect((await mustRow(h, old)).status).toBe("archived");
    expect((await mustRow(h, justOver)).status).toBe("archived");
    expect((await mustRow(h, exactly)).status).toBe("done");
    expect((await mustRow(h, recent)).status).toBe("done");
    expect((await mustRow(h, old)).updated_at).toBe(new Date(h.clock.now()).toISOString());
    // A second sweep finds nothing more: archived tasks are no longer done.
    expect(await expectUnchanged(h, () => ok(a, ARCHIVE, {}))).toEqual({ archived: 0, threshold_days: 7 });
  });

  it("older_than_days picks the threshold; 0 takes every done task last updated before now", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const twoDays = await doneTask(a, p, 2 * DAY + 5);
    const oneMs = await doneTask(a, p, 1);
    const now = await doneTask(a, p, 0);
    expect(await ok(a, ARCHIVE, { older_than_days: 3 })).toEqual({ archived: 0, threshold_days: 3 });
    expect(await ok(a, ARCHIVE, { older_than_days: 2 })).toEqual({ archived: 1, threshold_days: 2 });
    expect((await mustRow(h, twoDays)).status).toBe("archived");
    expect(await ok(a, ARCHIVE, { older_than_days: 0 })).toEqual({ archived: 1, threshold_days: 0 });
    expect((await mustRow(h, oneMs)).status).toBe("archived");
    expect((await mustRow(h, now)).status).toBe("done");
    // Huge thresholds reach back before any timestamp: nothing to do, no failure.
    expect(await ok(a, ARCHIVE, { older_than_days: 10_000_000 })).toEqual({ archived: 0, threshold_days: 10_000_000 });
    expect(await ok(a, ARCHIVE, { older_than_days: 1e300 })).toEqual({ archived: 0, threshold_days: 1e300 });
  });

  it("moves only done tasks of type task: notes, live, cancelled and archived stay", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const note = await doneTask(a, p, 30 * DAY, { type: "note" });
    const statuses: Record<string, string> = {};
    for (const status of ["not_started", "in_progress", "cancelled", "archived"]) {
      const id = await mk(a, { title: status, project: p });
      if (status !== "not_started") await ok(a, "update_task", { task_id: id, status });
      await poke(h, id, { updated_at: new Date(h.clock.now() - 30 * DAY).toISOString() });
      statuses[id] = status;
    }
    const task = await doneTask(a, p, 30 * DAY);
    expect(await ok(a, ARCHIVE, {})).toEqual({ archived: 1, threshold_days: 7 });
    expect((await mustRow(h, task)).status).toBe("archived");
    expect((await mustRow(h, note)).status).toBe("done");
    for (const [id, status] of Object.entries(statuses)) expect((await mustRow(h, id)).status).toBe(status);
  });

  it("only visible scope: foreign projects, other profiles and the untagged enclave (without its grant) stay", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q, ""] });
    const twin = await h.as({ principal: "alice", grants: [p], profile: "twin" });
    const star = await h.as({ principal: "star", grants: ["*"] });
    const mine = await doneTask(a, p, 10 * DAY);
    const foreign = await doneTask(b, q, 10 * DAY);
    const untagged = await doneTask(b, undefined, 10 * DAY);
    const otherProfile = await doneTask(twin, p, 10 * DAY);
    expect(await ok(a, ARCHIVE, {})).toEqual({ archived: 1, threshold_days: 7 });
    expect((await mustRow(h, mine)).status).toBe("archived");
    expect((await mustRow(h, foreign)).status).toBe("done");
    expect((await mustRow(h, untagged)).status).toBe("done");
    expect((await mustRow(h, otherProfile)).status).toBe("done");
    // Star sweeps every named project of its profile, never the untagged enclave.
    const starResult = await ok(star, ARCHIVE, {});
    expect(starResult.archived).toBeGreaterThanOrEqual(1);
    expect((await mustRow(h, foreign)).status).toBe("archived");
    expect((await mustRow(h, untagged)).status).toBe("done");
    expect((await mustRow(h, otherProfile)).status).toBe("done");
    // The untagged grant reaches it.
    const u = await h.as({ principal: "u", grants: [""] });
    expect(await ok(u, ARCHIVE, {})).toEqual({ archived: 1, threshold_days: 7 });
    expect((await mustRow(h, untagged)).status).toBe("archived");
    expect(await ok(twin, ARCHIVE, {})).toEqual({ archived: 1, threshold_days: 7 });
  });

  it("with no visible scope the sweep succeeds with archived 0", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await doneTask(a, p, 10 * DAY);
    const none = await h.as({ principal: "nobody", grants: [] });
    expect(await expectUnchanged(h, () => ok(none, ARCHIVE, {}))).toEqual({ archived: 0, threshold_days: 7 });
    const elsewhere = await h.as({ principal: "elsewhere", grants: [uniq()] });
    expect(await expectUnchanged(h, () => ok(elsewhere, ARCHIVE, { older_than_days: 0 }))).toEqual({
      archived: 0,
      threshold_days: 0,
    });
  });

  it("rejects negative, fractional and mistyped thresholds and unknown arguments, changing nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await doneTask(a, p, 10 * DAY);
    await expectRefused(h, a, ARCHIVE, { older_than_days: -1 }, "older_than_days must be >= 0");
    await expectRefused(h, a, ARCHIVE, { older_than_days: 1.5 }, "older_than_days must be integer");
    await expectRefused(h, a, ARCHIVE, { older_than_days: "7" }, "older_than_days must be integer");
    await expectRefused(h, a, ARCHIVE, { older_than_days: null }, "older_than_days must be integer");
    await expectRefused(h, a, ARCHIVE, { older_than_days: 7, project: p }, "Unknown argument: project");
  });

  it("records one archive event per moved task, in clock order, chained to the task's history", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p], role: "conductor" });
    const ids = [await doneTask(a, p, 9 * DAY), await doneTask(a, p, 9 * DAY), await doneTask(a, p, 9 * DAY)];
    const before = await Promise.all(ids.map((id) => eventsOf(h, id)));
    h.clock.advance(1);
    expect(await ok(a, ARCHIVE, { older_than_days: 8 })).toEqual({ archived: 3, threshold_days: 8 });
    const clocks: number[] = [];
    for (const [i, id] of ids.entries()) {
      const events = await eventsOf(h, id);
      expect(events).toHaveLength((before[i]?.length ?? 0) + 1);
      const e = events.at(-1);
      expectEvent(e, {
        agent: a,
        tool: ARCHIVE,
        action: "archive",
        at: h.clock.now(),
        parent: before[i]?.at(-1)?.event_id ?? null,
        entityId: id,
      });
      expect(JSON.parse(e?.old_json ?? "{}").status).toBe("done");
      expect(JSON.parse(e?.new_json ?? "{}").status).toBe("archived");
      expect(JSON.parse(e?.payload_json ?? "{}")).toEqual({
        older_than_days: 8,
        cutoff: new Date(h.clock.now() - 8 * DAY).toISOString(),
      });
      expect((await mustRow(h, id)).last_event_id).toBe(e?.event_id);
      clocks.push(e?.clock ?? 0);
    }
    expect(new Set(clocks).size).toBe(3);
    expect(Math.max(...clocks) - Math.min(...clocks)).toBe(2); // one transaction, consecutive ticks
  });

  it("all or nothing: a failure on one task moves none and records nothing", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const first = await doneTask(a, p, 10 * DAY);
    h.clock.advance(1);
    const second = await doneTask(a, p, 10 * DAY);
    h.clock.advance(1);
    const last = await doneTask(a, p, 10 * DAY); // created last: processed last
    const remove = await injectFailure(h, "UPDATE", "id", last);
    try {
      const { out, stderr } = await quietly(() => expectUnchanged(h, () => a.call(ARCHIVE, {})));
      expect(out.isError).toBe(true);
      expect(out.structuredContent).toEqual(INTERNAL);
      expect(stderr).toContain("injected failure");
    } finally {
      await remove();
    }
    for (const id of [first, second, last]) expect((await mustRow(h, id)).status).toBe("done");
    expect(await ok(a, ARCHIVE, {})).toEqual({ archived: 3, threshold_days: 7 });
  });

  it("concurrent sweeps archive each task exactly once", async () => {
    const p = uniq();
    const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => h.as({ principal: `s${i}`, grants: [p] })));
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await doneTask(agents[0]!, p, 10 * DAY));
    const results = await Promise.all(agents.map((ag) => ok(ag, ARCHIVE, {})));
    expect(results.reduce((s, r) => s + (r.archived as number), 0)).toBe(10);
    for (const id of ids) {
      expect((await mustRow(h, id)).status).toBe("archived");
      expect((await eventsOf(h, id)).filter((e) => e.action === "archive")).toHaveLength(1);
    }
  });

  it("archived tasks keep their rows and their trail", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await doneTask(a, p, 10 * DAY);
    const count = async () =>
      Number(
        (
          await h.db.db
            .selectFrom("shampoo_tasks")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const n = await count();
    await ok(a, ARCHIVE, {});
    expect(await count()).toBe(n);
    expect((await eventsOf(h, id)).map((e) => e.action)).toEqual(["create", "update", "archive"]);
  });
});

describe.each(DIALECTS)("bump_overdue_priority on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  // The harness clock starts at 2026-11-30T12:00:00Z: today is 2026-11-30.
  const YESTERDAY = "2026-11-29";

  async function pri(id: string) {
    return (await mustRow(h, id)).priority;
  }

  it("default target high: overdue live tasks below it rise; the rest stay", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const low = await mk(a, { title: "low", project: p, priority: "low", due_date: YESTERDAY });
    const medium = await mk(a, { title: "medium", project: p, priority: "medium", due_date: "2026-01-01" });
    const high = await mk(a, { title: "high", project: p, priority: "high", due_date: YESTERDAY });
    const critical = await mk(a, { title: "critical", project: p, priority: "critical", due_date: YESTERDAY });
    const dueToday = await mk(a, { title: "today", project: p, priority: "low", due_date: "2026-11-30" });
    const future = await mk(a, { title: "future", project: p, priority: "low", due_date: "2026-12-01" });
    const noDue = await mk(a, { title: "none", project: p, priority: "low" });
    const inProgress = await mk(a, { title: "wip", project: p, priority: "low", due_date: YESTERDAY });
    await ok(a, "update_task", { task_id: inProgress, status: "in_progress" });
    expect(await ok(a, BUMP, {})).toEqual({ bumped: 3, target_priority: "high" });
    expect(await pri(low)).toBe("high");
    expect(await pri(medium)).toBe("high");
    expect(await pri(inProgress)).toBe("high");
    expect(await pri(high)).toBe("high");
    expect(await pri(critical)).toBe("critical"); // never lowered
    expect(await pri(dueToday)).toBe("low");
    expect(await pri(future)).toBe("low");
    expect(await pri(noDue)).toBe("low");
    // Idempotent: nothing is left below the target.
    expect(await expectUnchanged(h, () => ok(a, BUMP, {}))).toEqual({ bumped: 0, target_priority: "high" });
  });

  it("each target raises strictly lower priorities only", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const mkAll = async () => {
      const ids: Record<string, string> = {};
      for (const priority of ["low", "medium", "high", "critical"]) {
        ids[priority] = await mk(a, { title: `${priority} ${uniq()}`, project: p, priority, due_date: YESTERDAY });
      }
      return ids;
    };
    let ids = await mkAll();
    expect(await ok(a, BUMP, { target_priority: "medium" })).toEqual({ bumped: 1, target_priority: "medium" });
    expect([await pri(ids.low!), await pri(ids.medium!), await pri(ids.high!), await pri(ids.critical!)]).toEqual([
      "medium",
      "medium",
      "high",
      "critical",
    ]);
    expect(await ok(a, BUMP, { target_priority: "critical" })).toEqual({ bumped: 3, target_priority: "critical" });
    for (const id of Object.values(ids)) expect(await pri(id)).toBe("critical");
    ids = await mkAll();
    expect(await ok(a, BUMP, { target_priority: "high" })).toEqual({ bumped: 2, target_priority: "high" });
  });

  it("targeting low is a no-op: bumped 0 with an explanatory message", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await mk(a, { title: "low", project: p, priority: "low", due_date: YESTERDAY });
    const r = await expectUnchanged(h, () => ok(a, BUMP, { target_priority: "low" }));
    expect(r).toEqual({
      bumped: 0,
      target_priority: "low",
      message: "No lower priorities to bump: low is the bottom rung, so nothing can be raised to it",
    });
  });

  it("past-due is before today in UTC by the injected clock", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const id = await mk(a, { title: "edge", project: p, priority: "low", due_date: "2026-11-30" });
    h.clock.set("2026-11-30T23:59:59.999Z");
    expect(await ok(a, BUMP, {})).toMatchObject({ bumped: 0 });
    h.clock.set("2026-12-01T00:00:00.000Z");
    expect(await ok(a, BUMP, {})).toEqual({ bumped: 1, target_priority: "high" });
    expect(await pri(id)).toBe("high");
    h.clock.set("2026-11-30T12:00:00.000Z");
  });

  it("finished content, notes, foreign projects, other profiles and the untagged enclave are never touched", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q, ""] });
    const twin = await h.as({ principal: "alice", grants: [p], profile: "twin" });
    const finished: string[] = [];
    for (const status of ["done", "archived", "cancelled"]) {
      const id = await mk(a, { title: status, project: p, priority: "low", due_date: YESTERDAY });
      await ok(a, "update_task", { task_id: id, status });
      finished.push(id);
    }
    const note = await mk(a, { title: "note", project: p, priority: "low", due_date: YESTERDAY, type: "note" });
    const foreign = await mk(b, { title: "f", project: q, priority: "low", due_date: YESTERDAY });
    const untagged = await mk(b, { title: "u", priority: "low", due_date: YESTERDAY });
    const otherProfile = await mk(twin, { title: "o", project: p, priority: "low", due_date: YESTERDAY });
    const mine = await mk(a, { title: "mine", project: p, priority: "low", due_date: YESTERDAY });
    expect(await ok(a, BUMP, {})).toEqual({ bumped: 1, target_priority: "high" });
    expect(await pri(mine)).toBe("high");
    for (const id of [...finished, note, foreign, untagged, otherProfile]) expect(await pri(id)).toBe("low");
    // Star: named projects of its profile, not untagged.
    const star = await h.as({ principal: "star", grants: ["*"] });
    await ok(star, BUMP, {});
    expect(await pri(foreign)).toBe("high");
    expect(await pri(untagged)).toBe("low");
    expect(await pri(otherProfile)).toBe("low");
    expect(await ok(b, BUMP, {})).toEqual({ bumped: 1, target_priority: "high" });
    expect(await pri(untagged)).toBe("high");
  });

  it("with no visible scope the sweep succeeds with bumped 0", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await mk(a, { title: "low", project: p, priority: "low", due_date: YESTERDAY });
    const none = await h.as({ principal: "nobody", grants: [] });
    expect(await expectUnchanged(h, () => ok(none, BUMP, { target_priority: "critical" }))).toEqual({
      bumped: 0,
      target_priority: "critical",
    });
  });

  it("unknown priority names answer Invalid priority; bad types and unknown arguments are rejected", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    await mk(a, { title: "low", project: p, priority: "low", due_date: YESTERDAY });
    for (const name of ["urgent", "HIGH", "", " high", "CLEAR"]) {
      await expectRefused(
        h,
        a,
        BUMP,
        { target_priority: name },
        `Invalid priority: ${JSON.stringify(name)} (use low, medium, high, critical)`,
      );
    }
    await expectRefused(h, a, BUMP, { target_priority: 2 }, "target_priority must be string");
    await expectRefused(h, a, BUMP, { target_priority: null }, "target_priority must be string");
    await expectRefused(h, a, BUMP, { target_priority: "high", project: p }, "Unknown argument: project");
  });

  it("records one bump event per raised task, chained and attributed", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const c = await h.as({ principal: "conny", grants: [p], role: "conductor" });
    const ids = [
      await mk(a, { title: "one", project: p, priority: "low", due_date: "2026-11-01" }),
      await mk(a, { title: "two", project: p, priority: "medium", due_date: "2026-11-02" }),
    ];
    h.clock.advance(1000);
    expect(await ok(c, BUMP, { target_priority: "critical" })).toEqual({ bumped: 2, target_priority: "critical" });
    const clocks: number[] = [];
    for (const [i, id] of ids.entries()) {
      const events = await eventsOf(h, id);
      expect(events.map((e) => e.action)).toEqual(["create", "bump_priority"]);
      expectEvent(events[1], {
        agent: c,
        tool: BUMP,
        action: "bump_priority",
        at: h.clock.now(),
        parent: events[0]?.event_id ?? null,
        entityId: id,
      });
      expect(events[1]?.role).toBe("conductor");
      expect(JSON.parse(events[1]?.old_json ?? "{}").priority).toBe(i === 0 ? "low" : "medium");
      expect(JSON.parse(events[1]?.new_json ?? "{}").priority).toBe("critical");
      expect(JSON.parse(events[1]?.payload_json ?? "{}")).toEqual({ target_priority: "critical", today: "2026-11-30" });
      clocks.push(events[1]?.clock ?? 0);
    }
    // Processed by due date: the older due date first, on consecutive ticks.
    expect(clocks[1]).toBe((clocks[0] ?? 0) + 1);
  });

  it("all or nothing: a failure on one task raises none", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const first = await mk(a, { title: "a", project: p, priority: "low", due_date: "2026-11-01" });
    const last = await mk(a, { title: "b", project: p, priority: "low", due_date: "2026-11-20" }); // processed last
    const remove = await injectFailure(h, "UPDATE", "id", last);
    try {
      const { out } = await quietly(() => expectUnchanged(h, () => a.call(BUMP, {})));
      expect(out.structuredContent).toEqual(INTERNAL);
    } finally {
      await remove();
    }
    expect([await pri(first), await pri(last)]).toEqual(["low", "low"]);
    expect(await ok(a, BUMP, {})).toEqual({ bumped: 2, target_priority: "high" });
  });

  it("concurrent sweeps raise each task exactly once", async () => {
    const p = uniq();
    const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => h.as({ principal: `b${i}`, grants: [p] })));
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(await mk(agents[0]!, { title: `t${i}`, project: p, priority: "low", due_date: YESTERDAY }));
    }
    const results = await Promise.all(agents.map((ag) => ok(ag, BUMP, {})));
    expect(results.reduce((s, r) => s + (r.bumped as number), 0)).toBe(10);
    for (const id of ids) expect((await eventsOf(h, id)).filter((e) => e.action === "bump_priority")).toHaveLength(1);
  });
});
