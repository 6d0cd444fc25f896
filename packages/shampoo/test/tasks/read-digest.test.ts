import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, expectError, freshProfile, seedAll } from "../support/tasks-read.ts";

const ZERO = { not_started: 0, in_progress: 0, done: 0, archived: 0, cancelled: 0 };
const EMPTY = { digest: "## Task Digest", active_count: 0, overdue_count: 0, status_counts: ZERO };

describe.each(DIALECTS)("task_digest on %s", (dialect) => {
  let h: Harness;
  let a: Agent;

  beforeAll(async () => {
    h = await harness(dialect);
    a = await h.as({ principal: "alice", grants: ["alpha", ""], profile: freshProfile("d") });
    await seedAll(h, a, [
      { title: "Ship release", project: "alpha", section: "today", priority: "critical", due_date: "2026-11-29" },
      { title: "Fix login", section: "today", priority: "high" },
      { title: "Write docs", section: "today", status: "in_progress" },
      { title: "Triage mail", section: "inbox", priority: "low" },
      { title: "Plan Q1", section: "next", due_date: "2026-12-05" },
      { title: "Waiting on vendor", section: "waiting", due_date: "2026-11-25" },
      { title: "Someday idea", section: "someday" },
      { title: "A note for today", section: "today", type: "note" },
      { title: "Overdue note", section: "today", type: "note", due_date: "2026-11-01" },
      { title: "Done thing", section: "today", status: "done", due_date: "2026-11-02" },
      { title: "Archived thing", status: "archived" },
      { title: "Cancelled thing", status: "cancelled" },
    ]);
  });
  afterAll(async () => {
    await h.close();
  });

  it("status counts, past-due items first, then today, inbox and next; notes never count", async () => {
    const r = await a.sc("task_digest", {});
    expect(r).toEqual({
      digest: [
        "## Task Digest",
        "**Open:** 7 (not started 6, in progress 1) · **Done:** 1 · **Archived:** 1 · **Cancelled:** 1",
        "",
        "### Past due (2)",
        "- [MEDIUM] Waiting on vendor — due 2026-11-25 (5 days late)",
        "- [CRITICAL] Ship release — due 2026-11-29 (1 day late) · alpha",
        "",
        "### Today (3)",
        "- [CRITICAL] Ship release — due 2026-11-29 · alpha",
        "- [HIGH] Fix login",
        "- [MEDIUM] Write docs — in progress",
        "",
        "### Inbox (1)",
        "- [LOW] Triage mail",
        "",
        "### Next (1)",
        "- [MEDIUM] Plan Q1 — due 2026-12-05",
      ].join("\n"),
      active_count: 5,
      overdue_count: 2,
      status_counts: { not_started: 6, in_progress: 1, done: 1, archived: 1, cancelled: 1 },
    });
  });

  it("include_overdue false drops the past-due block (overdue_count 0); true is the default", async () => {
    const off = await a.sc("task_digest", { include_overdue: false });
    expect(off.digest).not.toContain("Past due");
    expect(off).toMatchObject({ active_count: 5, overdue_count: 0 });
    expect(await a.sc("task_digest", { include_overdue: true })).toEqual(await a.sc("task_digest", {}));
  });

  it("limit caps the active listing (clamped 1..100, default 20); counts stay whole", async () => {
    const two = await a.sc("task_digest", { limit: 2 });
    expect(two.digest).toContain(
      [
        "### Today (3)",
        "- [CRITICAL] Ship release — due 2026-11-29 · alpha",
        "- [HIGH] Fix login",
        "- … 1 more",
        "",
        "### Inbox (1)",
        "- … 1 more",
        "",
        "### Next (1)",
        "- … 1 more",
      ].join("\n"),
    );
    expect(two).toMatchObject({ active_count: 5, overdue_count: 2 });
    const one = (await a.sc("task_digest", { limit: 0 })).digest as string;
    expect(one).toContain("### Today (3)\n- [CRITICAL] Ship release — due 2026-11-29 · alpha\n- … 2 more");

    const profile = freshProfile("d");
    const b = await h.as({ principal: "bob", grants: ["bulk"], profile });
    await bulkInsert(
      h,
      profile,
      Array.from({ length: 105 }, (_, i) => ({ title: `t${i}`, project: "bulk", section: "today" })),
    );
    const listed = (d: unknown) => (d as string).split("\n").filter((l) => /^- \[/.test(l)).length;
    const def = await b.sc("task_digest", {});
    expect(listed(def.digest)).toBe(20);
    expect(def.digest).toContain("- … 85 more");
    expect(def.active_count).toBe(105);
    const max = await b.sc("task_digest", { limit: 5000 });
    expect(listed(max.digest)).toBe(100);
    expect(max.digest).toContain("- … 5 more");
  });

  it("at most 10 past-due items lead the digest; overdue_count counts them all", async () => {
    const profile = freshProfile("d");
    const b = await h.as({ principal: "bob", grants: ["late"], profile });
    await bulkInsert(
      h,
      profile,
      Array.from({ length: 12 }, (_, i) => ({
        title: `late ${i}`,
        project: "late",
        section: "someday",
        due_date: `2026-11-${String(10 + i).padStart(2, "0")}`,
      })),
    );
    const r = await b.sc("task_digest", {});
    const lines = (r.digest as string).split("\n");
    expect(lines.slice(2, 4)).toEqual(["", "### Past due (12)"]);
    expect(lines.filter((l) => l.includes("days late")).length).toBe(10);
    expect(lines[4]).toBe("- [MEDIUM] late 0 — due 2026-11-10 (20 days late) · late");
    expect(lines).toContain("- … 2 more past due");
    expect(r).toMatchObject({ overdue_count: 12, active_count: 0 });
  });

  it("an empty or out-of-scope view is the bare header with both counts zero", async () => {
    const none = await h.as({ principal: "nobody", grants: [], profile: a.caller.profile });
    const foreign = await h.as({ principal: "eve", grants: ["gamma"], profile: a.caller.profile });
    const fresh = await h.as({ principal: "fred", grants: ["alpha", ""], profile: freshProfile("d") });
    const notesOnly = await h.as({ principal: "nora", grants: ["n"], profile: freshProfile("d") });
    await seedAll(h, notesOnly, [{ title: "just a note", project: "n", type: "note", section: "today" }]);
    const expected = await fresh.call("task_digest", {});
    expect(expected.structuredContent).toEqual(EMPTY);
    for (const who of [none, foreign, notesOnly]) expect(await who.call("task_digest", {})).toEqual(expected);
  });

  it("strict validator: unknown arguments and bad types are rejected", async () => {
    await expectError(a, "task_digest", { project: "alpha" }, "Unknown argument: project");
    await expectError(a, "task_digest", { include_overdue: "yes" }, "include_overdue must be boolean");
    await expectError(a, "task_digest", { limit: "3" }, "limit must be integer");
  });
});
