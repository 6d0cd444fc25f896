import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { expectError, freshProfile, NOW, seedAll, type Task, titles } from "../support/tasks-read.ts";

const HEADER = "| # | Title | Status | Priority | Section | Due | Project | Created | Notes |";
const ALLOWLIST = "created_at, updated_at, due_date, priority, status, title, project, section, type";

describe.each(DIALECTS)("query_tasks on %s", (dialect) => {
  let h: Harness;
  let a: Agent;
  let ids: Record<string, string>;

  beforeAll(async () => {
    h = await harness(dialect);
    a = await h.as({ principal: "alice", grants: ["alpha", "beta", ""], profile: freshProfile("q") });
    const specs = [
      { title: "Draft Paul pack README", project: "alpha", section: "today", priority: "high", due_date: "2026-12-02" },
      {
        title: "Quarterly budget review",
        project: "alpha",
        section: "next",
        description: "numbers for finance",
        due_date: "2026-11-20",
      },
      { title: "Misc chores", project: "beta", section: "inbox", priority: "low", notes: "budget line items" },
      { title: "Ship release", project: "beta", section: "today", priority: "critical", due_date: "2026-11-29" },
      { title: "Old done thing", project: "alpha", status: "done", due_date: "2026-11-01" },
      { title: "Archived budget memo", project: "alpha", status: "archived" },
      { title: "Cancelled plan", project: "beta", status: "cancelled" },
      { title: "Research note", project: "alpha", type: "note", section: "someday", notes: "a | pipe\nand newline" },
      { title: "Untagged errand", section: "waiting", due_date: "2026-11-30" },
      { title: "In flight", project: "alpha", section: "next", status: "in_progress", priority: "medium" },
    ];
    const created = await seedAll(h, a, specs);
    ids = Object.fromEntries(specs.map((s, i) => [s.title, created[i] as string]));
  });
  afterAll(async () => {
    await h.close();
  });

  it("defaults: live content only, priority then due date then oldest, limit 50 offset 0, markdown table", async () => {
    const r = await a.sc("query_tasks", {});
    expect(titles(r.tasks)).toEqual([
      "Ship release",
      "Draft Paul pack README",
      "Quarterly budget review",
      "Untagged errand",
      "Research note",
      "In flight",
      "Misc chores",
    ]);
    expect(r).toMatchObject({ count: 7, total: 7, offset: 0, limit: 50 });
    expect(r).not.toHaveProperty("has_more");
    expect(r).not.toHaveProperty("next_offset");
    expect(r).not.toHaveProperty("message");
    const md = (r.markdown as string).split("\n");
    expect(md[0]).toBe(HEADER);
    expect(md[1]).toBe("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    expect(md[2]).toBe(
      "| 1 | Ship release | not_started | critical | today | 2026-11-29 | beta | 2026-11-30 12:04 | — |",
    );
    expect(md).toHaveLength(2 + 7);
    // Full entries carry the whole public task shape.
    const first = (r.tasks as Task[])[0] as Task;
    expect(Object.keys(first).sort()).toEqual(
      [
        "id",
        "title",
        "type",
        "status",
        "priority",
        "section",
        "project",
        "description",
        "notes",
        "due_date",
        "parent_id",
        "recurring",
        "reminder_at",
        "assignee",
        "shared_by",
        "created_at",
        "updated_at",
      ].sort(),
    );
  });

  it("markdown cells stay on one line, escape pipes and shorten long notes", async () => {
    const r = await a.sc("query_tasks", { type: "note" });
    expect((r.markdown as string).split("\n")[2]).toBe(
      "| 1 | Research note | not_started | medium | someday | — | alpha | 2026-11-30 12:08 | a \\| pipe and newline |",
    );
    const b = await h.as({ principal: "bob", grants: ["gamma"], profile: freshProfile("q") });
    await seedAll(h, b, [{ title: "Long | title\nsplit", project: "gamma", notes: "x".repeat(200) }]);
    const row = ((await b.sc("query_tasks", {})).markdown as string).split("\n")[2] as string;
    expect(row).toContain("| Long \\| title split |");
    expect(row).toContain(`| ${"x".repeat(79)}… |`);
  });

  it("an explicit status or include_completed opts back in to finished content", async () => {
    expect(titles((await a.sc("query_tasks", { status: "done" })).tasks)).toEqual(["Old done thing"]);
    expect(titles((await a.sc("query_tasks", { status: "archived" })).tasks)).toEqual(["Archived budget memo"]);
    expect(titles((await a.sc("query_tasks", { status: "in_progress" })).tasks)).toEqual(["In flight"]);
    const all = await a.sc("query_tasks", { include_completed: true });
    expect(all.total).toBe(10);
    expect(titles(all.tasks)).toEqual(
      expect.arrayContaining(["Old done thing", "Archived budget memo", "Cancelled plan"]),
    );
    expect((await a.sc("query_tasks", { include_completed: false })).total).toBe(7);
  });

  it("overdue_only: due before today (UTC, injected clock), never finished content", async () => {
    const r = await a.sc("query_tasks", { overdue_only: true });
    expect(titles(r.tasks)).toEqual(["Ship release", "Quarterly budget review"]); // due today is not overdue
    const withDone = await a.sc("query_tasks", { overdue_only: true, include_completed: true });
    expect(titles(withDone.tasks)).toEqual(["Ship release", "Quarterly budget review"]);
    expect((await a.sc("query_tasks", { overdue_only: true, status: "done" })).tasks).toEqual([]);
    h.clock.set("2026-12-01T00:00:00.000Z"); // a day later, the untagged errand is past due too
    try {
      expect(titles((await a.sc("query_tasks", { overdue_only: true })).tasks)).toContain("Untagged errand");
    } finally {
      h.clock.set(NOW);
    }
  });

  it("filters combine with AND: priority, section, type, project, parent_id", async () => {
    expect(titles((await a.sc("query_tasks", { priority: "high" })).tasks)).toEqual(["Draft Paul pack README"]);
    expect(titles((await a.sc("query_tasks", { section: "today" })).tasks)).toEqual([
      "Ship release",
      "Draft Paul pack README",
    ]);
    expect(titles((await a.sc("query_tasks", { section: "today", project: "alpha" })).tasks)).toEqual([
      "Draft Paul pack README",
    ]);
    expect(titles((await a.sc("query_tasks", { type: "note" })).tasks)).toEqual(["Research note"]);
    expect(titles((await a.sc("query_tasks", { project: "beta" })).tasks)).toEqual(["Ship release", "Misc chores"]);
    // "" is the untagged enclave.
    expect(titles((await a.sc("query_tasks", { project: "" })).tasks)).toEqual(["Untagged errand"]);
    const parent = ids["Draft Paul pack README"] as string;
    const [child] = await seedAll(h, a, [{ title: "Child step", project: "alpha", parent_id: parent }]);
    const kids = await a.sc("query_tasks", { parent_id: parent });
    expect((kids.tasks as Task[]).map((t) => t.id)).toEqual([child]);
    expect(await a.sc("query_tasks", { parent_id: "not-a-uuid" })).toMatchObject({ count: 0, total: 0 });
    await a.call("update_task", { task_id: child, status: "cancelled" });
  });

  it("assignee filters on the stored value exactly, combined with the other filters", async () => {
    const ship = ids["Ship release"] as string;
    const draft = ids["Draft Paul pack README"] as string;
    await a.sc("assign_task", { task_id: ship, assignee: "agent-7" });
    await a.sc("assign_task", { task_id: draft, assignee: "agent-7" });
    await a.sc("assign_task", { task_id: ids["Misc chores"] as string, assignee: "Agent-7" });
    try {
      const mine = await a.sc("query_tasks", { assignee: "agent-7" });
      expect(titles(mine.tasks)).toEqual(["Ship release", "Draft Paul pack README"]);
      expect(mine).toMatchObject({ count: 2, total: 2 });
      expect((mine.tasks as Task[]).every((t) => t.assignee === "agent-7")).toBe(true);
      expect(titles((await a.sc("query_tasks", { assignee: "agent-7", project: "beta" })).tasks)).toEqual([
        "Ship release",
      ]);
      expect(titles((await a.sc("query_tasks", { assignee: "Agent-7" })).tasks)).toEqual(["Misc chores"]);
      expect(await a.sc("query_tasks", { assignee: "agent-" })).toMatchObject({ count: 0, total: 0 });
      expect(titles((await a.sc("query_tasks", { assignee: "agent-7", search: "release" })).tasks)).toEqual([
        "Ship release",
      ]);
      // Someone without the grants sees none of them.
      const other = await h.as({ principal: "eve", grants: ["gamma"], profile: a.caller.profile });
      expect(await other.sc("query_tasks", { assignee: "agent-7" })).toMatchObject({ count: 0, total: 0 });
    } finally {
      for (const t of [ship, draft, ids["Misc chores"] as string])
        await a.sc("assign_task", { task_id: t, assignee: "" });
    }
  });

  it("'*' is a grant, never a project value", async () => {
    await expectError(a, "query_tasks", { project: "*" }, "'*' is a grant, not a project value");
  });

  it("search ranks by relevance: a title hit above a description hit above a notes hit", async () => {
    const r = await a.sc("query_tasks", { search: "budget", include_completed: true });
    // The two title hits first (their mutual order is bm25/ts_rank's business), the notes hit last.
    expect(titles(r.tasks).slice(0, 2).sort()).toEqual(["Archived budget memo", "Quarterly budget review"]);
    const tasks = r.tasks as (Task & { rank: number })[];
    expect(tasks.at(-1)?.title).toBe("Misc chores");
    for (const t of tasks) expect(typeof t.rank).toBe("number");
    expect((tasks[0] as { rank: number }).rank).toBeGreaterThan((tasks[2] as { rank: number }).rank);
    // Without search there is no rank.
    expect((await a.sc("query_tasks", { limit: 1 })).tasks).toEqual([
      expect.not.objectContaining({ rank: expect.anything() }),
    ]);
  });

  it("search: title vs notes relevance on otherwise equal rows", async () => {
    const b = await h.as({ principal: "bob", grants: ["p"], profile: freshProfile("q") });
    await seedAll(h, b, [
      { title: "misc", project: "p", notes: "zebra" },
      { title: "zebra", project: "p", notes: "misc" },
      { title: "other", project: "p", description: "zebra" },
    ]);
    const r = await b.sc("query_tasks", { search: "zebra" });
    expect(titles(r.tasks)).toEqual(["zebra", "other", "misc"]);
    // sort_by only breaks relevance ties: the title hit still leads.
    expect(titles((await b.sc("query_tasks", { search: "zebra", sort_by: "title" })).tasks)[0]).toBe("zebra");
  });

  it("search: every word must match, the last as a prefix; description and project are searched", async () => {
    expect(titles((await a.sc("query_tasks", { search: "paul READ" })).tasks)).toEqual(["Draft Paul pack README"]);
    expect(titles((await a.sc("query_tasks", { search: "paul budget" })).tasks)).toEqual([]);
    expect(titles((await a.sc("query_tasks", { search: "finance" })).tasks)).toEqual(["Quarterly budget review"]);
    expect((await a.sc("query_tasks", { search: "beta" })).total).toBe(2); // the project tag
    // Search composes with filters and the finished-content rule.
    expect(titles((await a.sc("query_tasks", { search: "budget", project: "beta" })).tasks)).toEqual(["Misc chores"]);
    expect(titles((await a.sc("query_tasks", { search: "budget" })).tasks)).not.toContain("Archived budget memo");
    // Blank search is no search.
    expect((await a.sc("query_tasks", { search: "   " })).total).toBe(7);
  });

  it("search input is never query syntax", async () => {
    for (const s of [
      'budget" OR "x',
      "budget*",
      "NEAR(budget review)",
      "title:budget",
      "-budget",
      "budget AND",
      "(budget",
      "budget & !review",
      "budget | x",
      "budget <-> review",
      "'budget'",
      "^budget",
      "budget\\",
    ]) {
      const r = await a.call("query_tasks", { search: s });
      expect(r.isError, s).toBeFalsy();
    }
    expect(titles((await a.sc("query_tasks", { search: 'budget" OR "zzz' })).tasks)).toEqual([]); // OR is a word here
    expect(titles((await a.sc("query_tasks", { search: "(quarterly)" })).tasks)).toEqual(["Quarterly budget review"]);
    expect(await a.sc("query_tasks", { search: "!!! ???" })).toEqual({
      tasks: [],
      count: 0,
      total: 0,
      offset: 0,
      limit: 50,
      message: "No tasks match",
    });
  });

  it("search never fails on odd text (fuzz: symbols, marks, scripts, emoji, operators)", async () => {
    const alphabet = [
      ..."abcXYZ019 _-.:*^\"'()[]{}<>|&!~@#$%+=,;/?\\",
      "\u0301",
      "\u0308",
      "é",
      "ß",
      "ー",
      "中文",
      "עברית",
      "🙂",
      "\u200b",
      "\u00a0",
      "\t",
      "\n",
      " NEAR ",
      " OR ",
      " AND ",
      " NOT ",
      "<->",
      ":*",
    ];
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 60; i++) {
      let text = "";
      for (let j = 0, len = 1 + rnd(12); j < len; j++) text += alphabet[rnd(alphabet.length)];
      for (const args of [{ search: text }, { search: text, offset: 5 }]) {
        const r = await a.call("query_tasks", args);
        expect(r.isError, JSON.stringify(text)).toBeFalsy();
      }
      const f = await a.call("find_by_title", { title_fragment: text });
      expect(f.isError, JSON.stringify(text)).toBeFalsy();
    }
    for (const odd of ["\u0301", "\u0301\u0308", "ー", "́a", "a\u0301"]) {
      expect((await a.call("query_tasks", { search: odd })).isError, JSON.stringify(odd)).toBeFalsy();
    }
    // Past the last page with a search: the total still counts every match.
    expect(await a.sc("query_tasks", { search: "budget", offset: 10 })).toEqual({
      tasks: [],
      count: 0,
      total: 2,
      offset: 10,
      limit: 50,
      message: "No tasks match",
    });
  });

  it("sort_by: every allowlisted field with its default direction; sort_order overrides", async () => {
    const order = async (args: Record<string, unknown>) => titles((await a.sc("query_tasks", args)).tasks);
    const live = [
      "Draft Paul pack README",
      "Quarterly budget review",
      "Misc chores",
      "Ship release",
      "Research note",
      "Untagged errand",
      "In flight",
    ]; // creation order
    expect(await order({ sort_by: "created_at" })).toEqual([...live].reverse());
    expect(await order({ sort_by: "created_at", sort_order: "asc" })).toEqual(live);
    expect(await order({ sort_by: "created_at", sort_order: "ASC" })).toEqual(live);
    // In flight was updated last (its status move).
    expect((await order({ sort_by: "updated_at" }))[0]).toBe("In flight");
    expect(await order({ sort_by: "due_date" })).toEqual([
      "Quarterly budget review",
      "Ship release",
      "Untagged errand",
      "Draft Paul pack README",
      "Research note",
      "In flight",
      "Misc chores",
    ]);
    // Empty due dates stay last in either direction.
    expect((await order({ sort_by: "due_date", sort_order: "desc" })).slice(0, 4)).toEqual([
      "Draft Paul pack README",
      "Untagged errand",
      "Ship release",
      "Quarterly budget review",
    ]);
    expect((await order({ sort_by: "priority" })).slice(0, 2)).toEqual(["Ship release", "Draft Paul pack README"]);
    expect((await order({ sort_by: "priority", sort_order: "asc" }))[0]).toBe("Misc chores");
    expect((await order({ sort_by: "status" }))[0]).toBe("In flight");
    expect(await order({ sort_by: "title" })).toEqual(
      [...live].sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1)),
    );
    expect(await order({ sort_by: "title", sort_order: "desc" })).toEqual(
      [...live].sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? 1 : -1)),
    );
    expect((await order({ sort_by: "project" })).at(-1)).toBe("Untagged errand");
    expect((await order({ sort_by: "project", sort_order: "desc" })).at(-1)).toBe("Untagged errand");
    expect((await order({ sort_by: "project", sort_order: "desc" })).slice(0, 2)).toEqual([
      "Ship release",
      "Misc chores",
    ]);
    expect(await order({ sort_by: "section" })).toEqual([
      "Ship release",
      "Draft Paul pack README",
      "Misc chores",
      "Quarterly budget review",
      "In flight",
      "Untagged errand",
      "Research note",
    ]);
    expect((await order({ sort_by: "type" })).at(-1)).toBe("Research note");
    expect((await order({ sort_by: "type", sort_order: "desc" }))[0]).toBe("Research note");
    // "" means not given; a bare sort_order applies to the default key (priority).
    expect(await order({ sort_by: "", sort_order: "" })).toEqual(await order({}));
    expect((await order({ sort_order: "asc" }))[0]).toBe("Misc chores");
  });

  it("unknown sort_by or sort_order → invalid_sort naming the allowlist", async () => {
    const e = await expectError(
      a,
      "query_tasks",
      { sort_by: "id" },
      /^sort_by "id" is not allowed; sort_by must be one of /,
      "invalid_sort",
    );
    expect(e.error).toContain(ALLOWLIST);
    expect(e.allowed_sort_by).toEqual(ALLOWLIST.split(", "));
    expect(e.allowed_sort_order).toEqual(["asc", "desc"]);
    const o = await expectError(
      a,
      "query_tasks",
      { sort_order: "sideways" },
      /^sort_order "sideways" is not allowed; /,
      "invalid_sort",
    );
    expect(o.error).toContain(ALLOWLIST);
    await expectError(
      a,
      "query_tasks",
      { sort_by: "title; DROP TABLE x" },
      / is not allowed; sort_by must be one of /,
      "invalid_sort",
    );
    await expectError(
      a,
      "query_tasks",
      { sort_by: "description" },
      / is not allowed; sort_by must be one of /,
      "invalid_sort",
    );
  });

  it("paging: limit clamps to 1..200 (default 50), offset ≥ 0, has_more/next_offset while content remains", async () => {
    const b = await h.as({ principal: "bob", grants: ["bulk"], profile: freshProfile("q") });
    await seedAll(
      h,
      b,
      Array.from({ length: 53 }, (_, i) => ({ title: `bulk ${String(i).padStart(2, "0")}`, project: "bulk" })),
    );
    const first = await b.sc("query_tasks", {});
    expect(first).toMatchObject({ count: 50, total: 53, offset: 0, limit: 50, has_more: true, next_offset: 50 });
    const last = await b.sc("query_tasks", { offset: 50 });
    expect(last).toMatchObject({ count: 3, total: 53, offset: 50, limit: 50 });
    expect(last).not.toHaveProperty("has_more");
    expect(((last.markdown as string).split("\n")[2] as string).startsWith("| 51 | bulk 50 |")).toBe(true);
    expect(await b.sc("query_tasks", { limit: 0 })).toMatchObject({
      count: 1,
      limit: 1,
      has_more: true,
      next_offset: 1,
    });
    expect(await b.sc("query_tasks", { limit: -5 })).toMatchObject({ count: 1, limit: 1 });
    expect(await b.sc("query_tasks", { limit: 10_000 })).toMatchObject({ count: 53, limit: 200 });
    expect(await b.sc("query_tasks", { offset: -3, limit: 2 })).toMatchObject({ offset: 0, count: 2, next_offset: 2 });
    // Pages are disjoint and cover everything, in order.
    const seen: string[] = [];
    for (let off = 0; off < 53; off += 20)
      seen.push(...titles((await b.sc("query_tasks", { offset: off, limit: 20 })).tasks));
    expect(seen).toEqual(titles((await b.sc("query_tasks", { limit: 200 })).tasks));
    expect(new Set(seen).size).toBe(53);
    // Past the end: the empty shape, still with the true total.
    expect(await b.sc("query_tasks", { offset: 60 })).toEqual({
      tasks: [],
      count: 0,
      total: 53,
      offset: 60,
      limit: 50,
      message: "No tasks match",
    });
  });

  it("summary_only drops the long bodies", async () => {
    const r = await a.sc("query_tasks", { summary_only: true, search: "budget" });
    const t = (r.tasks as Task[])[0] as Task;
    expect(Object.keys(t).sort()).toEqual(
      [
        "id",
        "title",
        "type",
        "status",
        "priority",
        "section",
        "project",
        "due_date",
        "parent_id",
        "assignee",
        "created_at",
        "updated_at",
        "rank",
      ].sort(),
    );
    expect(r.markdown).toContain(HEADER);
  });

  it("empty result: tasks [], count 0, total, message No tasks match, no markdown", async () => {
    const r = await a.sc("query_tasks", { project: "nowhere" });
    expect(r).toEqual({ tasks: [], count: 0, total: 0, offset: 0, limit: 50, message: "No tasks match" });
  });

  it("strict validator: unknown arguments and bad types are rejected", async () => {
    await expectError(a, "query_tasks", { bogus: 1 }, "Unknown argument: bogus");
    await expectError(a, "query_tasks", { limit: "5" }, /limit must be integer/);
    await expectError(a, "query_tasks", { limit: 2.5 }, /limit must be integer/);
    await expectError(
      a,
      "query_tasks",
      { status: "open" },
      /^status must be one of: not_started, in_progress, done, archived, cancelled$/,
    );
    await expectError(a, "query_tasks", { priority: "urgent" }, /priority/);
    await expectError(a, "query_tasks", { section: "later" }, /section/);
    await expectError(a, "query_tasks", { type: "memo" }, /type/);
    await expectError(a, "query_tasks", { overdue_only: "yes" }, /overdue_only must be boolean/);
    await expectError(a, "query_tasks", { include_completed: 1 }, /include_completed must be boolean/);
    await expectError(a, "query_tasks", { summary_only: null }, /summary_only must be boolean/);
    await expectError(a, "query_tasks", { search: 5 }, /search must be string/);
    await expectError(a, "query_tasks", { sort_by: ["title"] }, /sort_by must be string/);
    await expectError(a, "query_tasks", { offset: "0" }, /offset must be integer/);
  });
});
