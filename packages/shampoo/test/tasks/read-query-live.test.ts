import { type Kysely, sql } from "kernel";
import { DIALECTS, openTestDatabase } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import { MAX_LIVE_RANGES } from "../../src/domains/tasks/store/live-search.ts";
import { MODULES } from "../../src/modules.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import type { ShampooDB } from "../../src/store/schema.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, expectLiveIndex, freshProfile, seedAll, type Task } from "../support/tasks-read.ts";

/**
 * query_tasks full text over live content (no status, no include_completed, no filter but the
 * project): on SQLite it reads the live index (live-search.ts, migration 010), whose rowids carry
 * the scope; on PostgreSQL the same calls take the general path. The answers are the spec's on
 * both: only live content inside the caller's grants is searched, ranked and counted; relevance
 * first, then the default order, page after page.
 */

const ids = (r: Record<string, unknown>) => (r.tasks as Task[]).map((t) => t.id);
const sorted = (r: Record<string, unknown>) => ids(r).sort();

describe.each(DIALECTS)("query_tasks live full text on %s", (dialect) => {
  let h: Harness;
  let profile: string;
  let owner: Agent;
  let t: Record<string, string>;

  beforeAll(async () => {
    h = await harness(dialect);
    profile = freshProfile("live");
    owner = await h.as({ principal: "owner", grants: ["*", ""], profile });
    const specs = [
      { title: "quaffle one", project: "p1" },
      { title: "quaffle two", project: "p2" },
      { title: "quaffle three", project: "p3" },
      { title: "quaffle loose" },
      { title: "quaffle finished", project: "p1", status: "done" },
      { title: "quaffle started", project: "p3", status: "in_progress" },
    ];
    const made = await seedAll(h, owner, specs);
    t = Object.fromEntries(specs.map((s, i) => [s.title, made[i] as string]));
    const other = await h.as({ principal: "owner", grants: ["*", ""], profile: freshProfile("elsewhere") });
    await seedAll(h, other, [{ title: "quaffle in another profile", project: "p1" }]);
  });
  afterAll(async () => {
    await h.close();
  });

  const as = (grants: string[]) => h.as({ principal: `g${grants.join("+") || "none"}`, grants, profile });
  const want = (...titles: string[]) => titles.map((x) => t[x] as string).sort();

  it("searches, ranks and counts only live content inside the caller's grants", async () => {
    const cases: Array<[string[], string[]]> = [
      [
        ["*", ""],
        ["quaffle one", "quaffle two", "quaffle three", "quaffle loose", "quaffle started"],
      ],
      [["*"], ["quaffle one", "quaffle two", "quaffle three", "quaffle started"]],
      [
        ["p1", "p3"],
        ["quaffle one", "quaffle three", "quaffle started"],
      ],
      [
        ["p2", ""],
        ["quaffle two", "quaffle loose"],
      ],
      [[""], ["quaffle loose"]],
    ];
    for (const [grants, titles] of cases) {
      const r = await (await as(grants)).sc("query_tasks", { search: "quaffle" });
      expect(sorted(r), grants.join(",")).toEqual(want(...titles));
      expect(r.total, grants.join(",")).toBe(titles.length);
      expect(r.count).toBe(titles.length);
      for (const task of r.tasks as Task[]) expect(typeof task.rank).toBe("number");
    }
    // Finished content only when asked for.
    const all = await owner.sc("query_tasks", { search: "quaffle", include_completed: true });
    expect(all.total).toBe(6);
    expect(ids(all)).toContain(t["quaffle finished"]);
  });

  it("nothing visible reads exactly like nothing matching: no grants, a grant without content, a foreign project filter", async () => {
    const none = await as([]);
    const noMatch = await none.sc("query_tasks", { search: "nonexistentword" });
    expect(noMatch).toEqual({ tasks: [], count: 0, total: 0, offset: 0, limit: 50, message: "No tasks match" });
    expect(await none.sc("query_tasks", { search: "quaffle" })).toEqual(noMatch);
    expect(await (await as(["p9"])).sc("query_tasks", { search: "quaffle" })).toEqual(noMatch);
    const p1 = await as(["p1"]);
    expect(await p1.sc("query_tasks", { search: "quaffle", project: "p2" })).toEqual(noMatch);
    expect(await p1.sc("query_tasks", { search: "quaffle", project: "" })).toEqual(noMatch);
    expect(await p1.sc("query_tasks", { search: "quaffle", project: "p9" })).toEqual(noMatch);
  });

  it('a project filter narrows the search to that project ("" = the untagged enclave)', async () => {
    expect(ids(await owner.sc("query_tasks", { search: "quaffle", project: "p2" }))).toEqual([t["quaffle two"]]);
    expect(ids(await owner.sc("query_tasks", { search: "quaffle", project: "" }))).toEqual([t["quaffle loose"]]);
    const p3 = await owner.sc("query_tasks", { search: "quaffle", project: "p3" });
    expect(sorted(p3)).toEqual(want("quaffle three", "quaffle started"));
  });

  it("an offset past the end answers the empty page with the total", async () => {
    const r = await owner.sc("query_tasks", { search: "quaffle", offset: 9 });
    expect(r).toEqual({ tasks: [], count: 0, total: 5, offset: 9, limit: 50, message: "No tasks match" });
  });

  it("relevance first, then priority, due date, age — the same order page after page, ties across the cut", async () => {
    const p = freshProfile("ties");
    const w = await h.as({ principal: "w", grants: ["*", ""], profile: p });
    const specs = [
      { title: "bludger drill", project: "q", priority: "low" },
      { title: "bludger drill", project: "q", priority: "critical", due_date: "2026-12-05" },
      { title: "bludger drill", project: "q", priority: "high" },
      { title: "bludger drill", project: "q", priority: "critical", due_date: "2026-12-01" },
      { title: "bludger drill", project: "q", priority: "high", due_date: "2026-12-10" },
      { title: "bludger drill", project: "q", priority: "medium" },
      { title: "bludger bludger bludger", project: "q", priority: "low" },
      { title: "unrelated chore", project: "q", priority: "critical", notes: "bludger" },
    ];
    const [low, crit5, high, crit1, high10, medium, strong, weak] = await seedAll(h, w, specs);
    const order = [strong, crit1, crit5, high10, high, medium, low, weak];
    const whole = await w.sc("query_tasks", { search: "bludger" });
    expect(ids(whole)).toEqual(order);
    const ranks = (whole.tasks as Array<{ rank: number }>).map((x) => x.rank);
    expect(ranks[0]).toBeGreaterThan(ranks[1] as number);
    expect(new Set(ranks.slice(1, 7)).size).toBe(1);
    expect(ranks[7]).toBeLessThan(ranks[6] as number);
    for (const [limit, offset] of [
      [2, 0],
      [2, 2],
      [2, 4],
      [2, 6],
      [3, 1],
      [1, 6],
      [5, 7],
    ] as const) {
      const page = await w.sc("query_tasks", { search: "bludger", limit, offset });
      expect(ids(page), `limit ${limit} offset ${offset}`).toEqual(order.slice(offset, offset + limit));
      expect(page.total).toBe(8);
      expect(page.has_more ?? false).toBe(offset + limit < 8);
    }
    // A sort key orders within equal relevance.
    const byDue = await w.sc("query_tasks", { search: "bludger", sort_by: "due_date" });
    expect(ids(byDue)).toEqual([strong, crit1, crit5, high10, high, medium, low, weak]);
  });

  it("a task enters and leaves the search as its status, project and words change", async () => {
    const p = freshProfile("moves");
    const w = await h.as({ principal: "w", grants: ["*", ""], profile: p });
    const inP1 = await h.as({ principal: "a", grants: ["p1"], profile: p });
    const inP2 = await h.as({ principal: "b", grants: ["p2"], profile: p });
    const [id] = await seedAll(h, w, [{ title: "snitch chase", project: "p1" }]);
    const found = async (agent: Agent, word: string) => ids(await agent.sc("query_tasks", { search: word }));
    expect(await found(inP1, "snitch")).toEqual([id]);
    await expectLiveIndex(h);

    await w.sc("update_task", { task_id: id, status: "done" });
    expect(await found(w, "snitch")).toEqual([]);
    expect(ids(await w.sc("query_tasks", { search: "snitch", include_completed: true }))).toEqual([id]);
    await expectLiveIndex(h);

    await w.sc("update_task", { task_id: id, status: "in_progress" });
    expect(await found(inP1, "snitch")).toEqual([id]);
    await w.sc("update_task", { task_id: id, status: "not_started", priority: "high" });
    expect((await inP1.sc("query_tasks", { search: "snitch" })).tasks).toMatchObject([{ id, priority: "high" }]);

    await w.sc("update_task", { task_id: id, project: "p2" });
    expect(await found(inP1, "snitch")).toEqual([]);
    expect(await found(inP2, "snitch")).toEqual([id]);
    await w.sc("update_task", { task_id: id, project: "CLEAR" });
    expect(await found(inP2, "snitch")).toEqual([]);
    expect(ids(await w.sc("query_tasks", { search: "snitch", project: "" }))).toEqual([id]);
    await expectLiveIndex(h);

    await w.sc("update_task", { task_id: id, title: "seeker dive", notes: "golden" });
    expect(await found(w, "snitch")).toEqual([]);
    expect(await found(w, "seeker")).toEqual([id]);
    expect(await found(w, "golden")).toEqual([id]);
    await w.sc("update_task", { task_id: id, status: "cancelled" });
    expect(await found(w, "seeker")).toEqual([]);
    await expectLiveIndex(h);
  });

  it(`grants scattered over more than ${MAX_LIVE_RANGES} project runs get the same answers`, async () => {
    const p = freshProfile("many");
    const w = await h.as({ principal: "w", grants: ["*", ""], profile: p });
    const projects = Array.from({ length: 20 }, (_, i) => `g${String(i).padStart(2, "0")}`);
    const made = await seedAll(
      h,
      w,
      projects.map((project) => ({ title: `wrackspurt ${project}`, project })),
    );
    const byProject = new Map(projects.map((x, i) => [x, made[i] as string]));
    for (const grants of [
      projects.filter((_, i) => i % 2 === 0), // ten separate runs
      projects.slice(3, 13), // one run
      [...projects.slice(0, 2), ...projects.slice(5, 7), "g19", ""], // three runs and untagged
    ]) {
      const r = await (await h.as({ principal: "r", grants, profile: p })).sc("query_tasks", {
        search: "wrackspurt",
        limit: 200,
      });
      const expected = grants
        .filter((g) => g !== "")
        .map((g) => byProject.get(g) as string)
        .sort();
      expect(sorted(r), grants.join(",")).toEqual(expected);
      expect(r.total).toBe(expected.length);
    }
  });
});

describe("migration 010_task_live_search on sqlite", () => {
  it("indexes the live content already there under scope keys, and the store goes on from there", async () => {
    // Donor: tasks in two profiles, named projects and the untagged enclave, live and finished.
    const donor = await harness("sqlite");
    const a = await donor.as({ principal: "a", grants: ["*", ""], profile: "mig-a" });
    const b = await donor.as({ principal: "b", grants: ["*", ""], profile: "mig-b" });
    await seedAll(donor, a, [
      { title: "nimbus broom", project: "zeta" },
      { title: "nimbus repair", project: "alpha", status: "in_progress" },
      { title: "nimbus retired", project: "alpha", status: "archived" },
      { title: "nimbus untagged" },
    ]);
    await seedAll(donor, b, [
      { title: "nimbus elsewhere", project: "alpha" },
      { title: "nimbus done", project: "beta", status: "done" },
    ]);
    const rows = (await donor.db.db.selectFrom("shampoo_tasks").selectAll().orderBy("created_at").execute()) as Array<
      TaskRow & Record<string, unknown>
    >;
    await donor.close();

    // The store as migration 009 left it, holding the same rows.
    const db = await openTestDatabase<ShampooDB>("sqlite");
    const later = ["tasks/0006_live_search", "tasks/0007_lookup_scan_index"];
    expect(await migrateModules(db, MODULES, { only: (m) => !later.includes(m.id) })).not.toContain(later[0]);
    const legacy = db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const row of rows) await legacy.insertInto("shampoo_tasks").values(row).execute();

    const h = await harness("sqlite", { db });
    try {
      const scopes = await sql<{ profile: string; project: string; pno: number; jno: number }>`
        SELECT profile, project, pno, jno FROM shampoo_task_scopes ORDER BY pno, jno`.execute(h.db.db);
      // Profiles and projects with live content, numbered in name order.
      expect(scopes.rows).toEqual([
        { profile: "mig-a", project: "", pno: 0, jno: 0 },
        { profile: "mig-a", project: "alpha", pno: 0, jno: 1 },
        { profile: "mig-a", project: "zeta", pno: 0, jno: 2 },
        { profile: "mig-b", project: "", pno: 1, jno: 0 },
        { profile: "mig-b", project: "alpha", pno: 1, jno: 1 },
      ]);
      await expectLiveIndex(h);
      const a2 = await h.as({ principal: "a", grants: ["alpha", ""], profile: "mig-a" });
      expect((await a2.sc("query_tasks", { search: "nimbus" })).tasks).toMatchObject([
        { title: expect.stringMatching(/^nimbus (repair|untagged)$/) },
        { title: expect.stringMatching(/^nimbus (repair|untagged)$/) },
      ]);
      // New content after the migration: a new project gets the next number of its profile.
      await a2.sc("create_task_or_note", { title: "nimbus spare", project: "alpha" });
      const star = await h.as({ principal: "s", grants: ["*"], profile: "mig-b" });
      await star.sc("create_task_or_note", { title: "nimbus gamma", project: "gamma" });
      const gamma = await sql<{ pno: number; jno: number }>`
        SELECT pno, jno FROM shampoo_task_scopes WHERE profile = 'mig-b' AND project = 'gamma'`.execute(h.db.db);
      expect(gamma.rows).toEqual([{ pno: 1, jno: 2 }]);
      expect((await star.sc("query_tasks", { search: "nimbus" })).total).toBe(2);
      await expectLiveIndex(h);
    } finally {
      await h.close();
    }
  });

  it("a write past the key's limits fails with the limit's name and changes nothing", async () => {
    const h = await harness("sqlite");
    try {
      const w = await h.as({ principal: "w", grants: ["*", ""], profile: "limits" });
      await w.sc("create_task_or_note", { title: "first profile" });
      // The last profile number is taken: a new profile cannot be numbered.
      await sql`INSERT INTO shampoo_task_scopes (profile, project, pno, jno) VALUES ('taken', '', 2047, 0)`.execute(
        h.db.db,
      );
      const before = await h.db.db.selectFrom("shampoo_tasks").select("id").execute();
      const late = await h.as({ principal: "w", grants: ["*", ""], profile: "one-too-many" });
      // A tool reports a store failure as an internal error (details go to the server's stderr).
      const r = await late.call("create_task_or_note", { title: "does not fit" });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ error_type: "internal_error" });
      // The store's own error names the limit.
      await expect(bulkInsert(h, "one-too-many", [{ title: "does not fit either" }])).rejects.toThrow(
        /shampoo_task_scopes_profile_limit/,
      );
      expect(await h.db.db.selectFrom("shampoo_tasks").select("id").execute()).toEqual(before);
      await expectLiveIndex(h);
    } finally {
      await h.close();
    }
  });
});
