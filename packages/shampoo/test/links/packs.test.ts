import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { candidates } from "../../src/domains/governance/service/packs.ts";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import { write } from "../../src/platform/write.ts";
import { entities, task, uniq } from "../support/links.ts";
import { type Harness, harness } from "../support/shampoo.ts";

/**
 * A context pack's target task counts its live links only: an item naming an entity linked to the
 * target is relevant (1) while the link is live, not once it is unlinked (void), and again once
 * a re-link revives it.
 */
describe.each(DIALECTS)("context pack relevance through task links on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("an entity linked to the target makes items naming it relevant while the link is live", async () => {
    const p = uniq("proj");
    const a = await h.as({ principal: uniq("alice"), grants: [p] });
    const name = `Zephyr ${uniq("Relay")}`;
    await entities(h, a, [{ name, entityType: "service", project: p }]);
    const target = await task(a, { title: "Rotate the certificates", project: p });
    const other = await task(a, { title: `Check the ${name} logs`, project: p });
    const relevance = async () => {
      const row = (await h.db.db
        .selectFrom("shampoo_tasks")
        .selectAll()
        .where("id", "=", target)
        .executeTakeFirstOrThrow()) as TaskRow;
      const ctx = { caller: a.caller, source: { tool: "test" }, clock: h.clock, database: h.db };
      const all = await write(ctx, (w) => candidates(w, row, null));
      return all.find((c) => c.kind === "task" && c.ref === other)?.relevance;
    };

    expect(await relevance()).toBe(0.5);
    await a.sc("link_task_entity", { task_id: target, entity_name: name });
    expect(await relevance()).toBe(1);
    expect(await a.sc("unlink_task_entity", { task_id: target, entity_name: name })).toEqual({ removed: true });
    expect(await relevance()).toBe(0.5);
    await a.sc("link_task_entity", { task_id: target, entity_name: name });
    expect(await relevance()).toBe(1);
  });
});
