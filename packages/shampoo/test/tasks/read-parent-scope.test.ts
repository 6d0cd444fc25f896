import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { freshProfile, seed, type Task } from "../support/tasks-read.ts";
import { MISSING_ID } from "../support/tasks-write.ts";

/**
 * No existence oracle through parent links: a visible task under a parent the caller cannot see
 * reads exactly like a task without a parent, and the parent_id filter answers for that
 * invisible parent exactly as for a missing one.
 */
describe.each(DIALECTS)("parents outside the caller's grants on %s", (dialect) => {
  let h: Harness;
  let alice: Agent;
  let both: Agent;
  let parent: string;
  let child: string;

  beforeAll(async () => {
    h = await harness(dialect);
    const profile = freshProfile("ps");
    alice = await h.as({ principal: "alice", grants: ["p"], profile });
    both = await h.as({ principal: "both", grants: ["p", "q"], profile });
    parent = await seed(both, { title: "Hidden epic", project: "q", section: "today" });
    child = await seed(both, { title: "Visible step", project: "p", section: "today", parent_id: parent });
  });
  afterAll(async () => {
    await h.close();
  });

  it("query_tasks shows parent_id null, the same bytes as a task without a parent; the filter answers like a missing parent", async () => {
    const listed = JSON.stringify(await alice.call("query_tasks", {}));
    const byParent = JSON.stringify(await alice.call("query_tasks", { parent_id: parent }));
    const byMissing = JSON.stringify(await alice.call("query_tasks", { parent_id: MISSING_ID }));
    const summary = JSON.stringify(await alice.call("query_tasks", { summary_only: true }));
    const searched = JSON.stringify(await alice.call("query_tasks", { search: "visible" }));
    expect(byParent).toBe(byMissing);
    expect(JSON.parse(byParent).structuredContent).toMatchObject({ count: 0, total: 0 });
    // Someone who sees both still gets the link and the filter.
    const kids = (await both.sc("query_tasks", { parent_id: parent })).tasks as Task[];
    expect(kids.map((t) => [t.id, t.parent_id])).toEqual([[child, parent]]);

    // Detach the parent (the clock does not move: updated_at stays): alice's bytes do not change.
    await both.sc("update_task", { task_id: child, parent_id: "CLEAR" });
    try {
      expect(JSON.stringify(await alice.call("query_tasks", {}))).toBe(listed);
      expect(JSON.stringify(await alice.call("query_tasks", { summary_only: true }))).toBe(summary);
      expect(JSON.stringify(await alice.call("query_tasks", { search: "visible" }))).toBe(searched);
    } finally {
      await both.sc("update_task", { task_id: child, parent_id: parent });
    }
  });

  it("ready_context shows parent_id null in every mode", async () => {
    for (const mode of ["ready", "suggested", "prime"]) {
      const r = await alice.sc("ready_context", { mode, limit: 5 });
      const text = JSON.stringify(r);
      expect(text).toContain(child);
      expect(text).not.toContain(parent);
    }
    // A caller who sees the parent gets its id.
    expect(JSON.stringify(await both.sc("ready_context", {}))).toContain(parent);
  });
});
