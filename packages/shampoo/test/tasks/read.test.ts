import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { freshProfile, seedAll, snapshot, titles } from "../support/tasks-read.ts";

/**
 * Cross-cutting rules of the four read tools (query_tasks, find_by_title, task_digest,
 * ready_context): published shapes, pure reads, and project-grant scoping (no existence
 * oracle, untagged enclave, star).
 */

const READ_TOOLS = ["find_by_title", "query_tasks", "ready_context", "task_digest"];

describe.each(DIALECTS)("task read tools on %s", (dialect) => {
  let h: Harness;
  let profile: string;
  let owner: Agent;

  beforeAll(async () => {
    h = await harness(dialect);
    profile = freshProfile("x");
    owner = await h.as({ principal: "owner", grants: ["alpha", "beta", ""], profile });
    await seedAll(h, owner, [
      { title: "Alpha secret plan", project: "alpha", section: "today", due_date: "2026-11-01", notes: "budget" },
      { title: "Alpha done work", project: "alpha", status: "done" },
      { title: "Beta roadmap", project: "beta", section: "next", priority: "high" },
      { title: "Untagged secret errand", section: "today", due_date: "2026-11-02" },
      { title: "Untagged memo", type: "note" },
    ]);
    // The same project name in another profile is another world.
    const other = await h.as({ principal: "owner", grants: ["alpha"], profile: freshProfile("x") });
    await seedAll(h, other, [{ title: "Other profile alpha secret", project: "alpha", section: "today" }]);
  });
  afterAll(async () => {
    await h.close();
  });

  it("publishes four read-only tools with strict input schemas and output schemas", async () => {
    const { tools } = await owner.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of READ_TOOLS) {
      const t = tools.find((x) => x.name === name);
      expect(t, name).toBeDefined();
      expect(t?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
      expect(t?.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
      expect(t?.outputSchema, name).toBeDefined();
    }
    // Catalog order: alphabetical within the category.
    const idx = READ_TOOLS.map((n) => names.indexOf(n));
    expect([...idx].sort((x, y) => x - y)).toEqual(idx);
    expect(names.indexOf("create_task_or_note")).toBeLessThan(names.indexOf("find_by_title"));
    expect(names.indexOf("task_digest")).toBeLessThan(names.indexOf("update_task"));
  });

  it("pure reads: every call, successful or refused, leaves tasks, history and clocks untouched", async () => {
    const before = await snapshot(h);
    const calls: [string, Record<string, unknown>][] = [
      ["query_tasks", {}],
      ["query_tasks", { search: "secret", include_completed: true, summary_only: true, sort_by: "title" }],
      ["query_tasks", { overdue_only: true, limit: 1, offset: 1 }],
      ["query_tasks", { sort_by: "nope" }],
      ["query_tasks", { bogus: true }],
      ["find_by_title", { title_fragment: "secret" }],
      ["find_by_title", { title_fragment: "ecre", limit: 100 }],
      ["find_by_title", { title_fragment: "  " }],
      ["task_digest", {}],
      ["task_digest", { include_overdue: false, limit: 1 }],
      ["ready_context", {}],
      ["ready_context", { mode: "suggested" }],
      ["ready_context", { mode: "prime", include_readings: true }],
      ["ready_context", { mode: "bogus" }],
    ];
    for (const [tool, args] of calls) await owner.call(tool, args);
    expect(await snapshot(h)).toEqual(before);
  });

  it("no existence oracle: an out-of-scope project filter reads exactly like a nonexistent one", async () => {
    const bob = await h.as({ principal: "bob", grants: ["beta"], profile });
    for (const extra of [
      {},
      { include_completed: true },
      { status: "done" },
      { overdue_only: true },
      { search: "secret" },
      { search: "secret", summary_only: true, limit: 5, offset: 0 },
      { sort_by: "title", sort_order: "desc" },
    ]) {
      const foreign = await bob.call("query_tasks", { project: "alpha", ...extra });
      const missing = await bob.call("query_tasks", { project: "no-such-project", ...extra });
      expect(foreign, JSON.stringify(extra)).toEqual(missing);
      expect(foreign.structuredContent).toMatchObject({ tasks: [], count: 0, total: 0, message: "No tasks match" });
      expect(foreign.isError).toBeFalsy();
    }
    // The other tools answer a foreign world like an empty one.
    const blank = await h.as({ principal: "bob", grants: ["beta"], profile: freshProfile("x") });
    await seedAll(h, blank, [{ title: "Beta roadmap", project: "beta", section: "next", priority: "high" }]);
    for (const [tool, args] of [
      ["find_by_title", { title_fragment: "Alpha secret plan" }],
      ["find_by_title", { title_fragment: "ecret" }],
      ["find_by_title", { title_fragment: "budget" }],
      ["query_tasks", { search: "secret" }],
    ] as [string, Record<string, unknown>][]) {
      expect(await bob.call(tool, args), tool).toEqual(await blank.call(tool, args));
    }
    // Digest and ready_context carry timestamps and ids of visible rows, so compare their shape.
    const dBob = await bob.sc("task_digest", {});
    const dBlank = await blank.sc("task_digest", {});
    expect(dBob).toEqual(dBlank);
    expect(titles((await bob.sc("ready_context", {})).items)).toEqual(["Beta roadmap"]);
  });

  it("untagged enclave: content without a project needs the explicit untagged grant", async () => {
    const named = await h.as({ principal: "nat", grants: ["alpha", "beta"], profile });
    const q = await named.sc("query_tasks", { include_completed: true });
    expect(titles(q.tasks).sort()).toEqual(["Alpha done work", "Alpha secret plan", "Beta roadmap"]);
    expect(await named.call("query_tasks", { project: "" })).toEqual(
      await named.call("query_tasks", { project: "no-such-project" }),
    );
    expect((await named.sc("find_by_title", { title_fragment: "Untagged secret errand" })).count).toBe(0);
    expect((await named.sc("find_by_title", { title_fragment: "memo" })).count).toBe(0);
    expect(await named.sc("task_digest", {})).toMatchObject({ active_count: 2, overdue_count: 1 });
    expect((await named.sc("task_digest", {})).digest).not.toContain("Untagged");
    expect(titles((await named.sc("ready_context", { include_readings: true })).items)).not.toContain(
      "Untagged secret errand",
    );

    const enclave = await h.as({ principal: "una", grants: [""], profile });
    expect(titles((await enclave.sc("query_tasks", {})).tasks)).toEqual(["Untagged secret errand", "Untagged memo"]);
    expect(titles((await enclave.sc("find_by_title", { title_fragment: "secret" })).matches)).toEqual([
      "Untagged secret errand",
    ]);
    expect(await enclave.sc("task_digest", {})).toMatchObject({ active_count: 1, overdue_count: 1 });
    expect(titles((await enclave.sc("ready_context", {})).items)).toEqual(["Untagged secret errand"]);
  });

  it("star sees every named project of its profile, never the untagged enclave", async () => {
    const star = await h.as({ principal: "sam", grants: ["*"], profile });
    expect(titles((await star.sc("query_tasks", { include_completed: true })).tasks).sort()).toEqual([
      "Alpha done work",
      "Alpha secret plan",
      "Beta roadmap",
    ]);
    expect(titles((await star.sc("find_by_title", { title_fragment: "secret" })).matches)).toEqual([
      "Alpha secret plan",
    ]);
    expect(await star.sc("task_digest", {})).toMatchObject({ active_count: 2, overdue_count: 1 });
    expect(titles((await star.sc("ready_context", {})).items).sort()).toEqual(["Alpha secret plan", "Beta roadmap"]);
    // Star plus the untagged grant: everything in the profile, still nothing from another profile.
    const all = await h.as({ principal: "sue", grants: ["*", ""], profile });
    const q = await all.sc("query_tasks", { include_completed: true, search: "secret" });
    expect(titles(q.tasks).sort()).toEqual(["Alpha secret plan", "Untagged secret errand"]);
  });
});
