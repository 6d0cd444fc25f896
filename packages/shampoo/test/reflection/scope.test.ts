import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATEGORIES } from "../../src/domains/reflection/rules/vocabulary.ts";
import { ADMIN, type Memory, seedMemory } from "../support/reflection.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { ok } from "../support/tasks-write.ts";

/**
 * Reflection reads only the scope it is asked for: a one-project audit or run sees that
 * project's rows and no other, filtered before each category's limit (a limit taken first
 * would return another project's older rows and miss this one's), for a star caller and for an
 * agent granted several projects alike; an unfiltered star pass sees every project.
 */
describe.each(DIALECTS)("reflection scope (%s)", (dialect) => {
  let h: Harness;
  let admin: Agent;
  let older: Memory;
  let newer: Memory;
  beforeAll(async () => {
    h = await harness(dialect);
    admin = await h.as(ADMIN);
    // The older memory's rows sort first in every category's order.
    older = await seedMemory(h, admin);
    h.clock.advance(86_400_000);
    newer = await seedMemory(h, admin);
  });
  afterAll(async () => h?.close());

  type Found = Record<string, Array<{ target_ref: string; evidence: { project: string | null } }>>;
  const refs = (found: Found) => Object.fromEntries(CATEGORIES.map((c) => [c, found[c]?.map((x) => x.target_ref)]));
  /** A memory's one finding per category, as `who` sees it (star sees the child's parent). */
  const expected = (m: Memory, star: boolean) => ({
    exact_duplicate_titles: [m.ids.copy],
    stale_overdue_tasks: [m.ids.stale],
    empty_description_notes: [m.ids.empty],
    orphan_parent_tasks: star ? [] : [m.ids.child],
    abandoned_inbox_items: [m.ids.abandoned],
    entities_no_observations: [m.ids.entity],
  });

  it("a one-project audit and run see that project only, before the per-category limit", async () => {
    const agent = await h.as({ principal: "agent", grants: [older.p, newer.p] });
    for (const [who, star] of [
      [admin, true],
      [agent, false],
    ] as const) {
      for (const m of [older, newer]) {
        const audit = await ok(who, "reflect_audit", { project: m.p, limit_per_category: 1 });
        expect(refs(audit.candidates as Found)).toEqual(expected(m, star));
        const run = await ok(who, "reflect_start", { project: m.p, limit_per_category: 1 });
        expect(run).toMatchObject({ status: "completed", candidates_persisted: star ? 5 : 6 });
        const review = await ok(who, "reflect_review", { run_id: run.run_id, limit: 100 });
        const projects = (review.candidates as Array<{ evidence: { project: string | null } }>).map(
          (c) => c.evidence.project,
        );
        expect(new Set(projects)).toEqual(new Set([m.p]));
      }
    }
  });

  it("an unfiltered star pass sees every project; the agent may not ask for one", async () => {
    const all = refs((await ok(admin, "reflect_audit", { limit_per_category: 1000 })).candidates as Found);
    for (const m of [older, newer]) {
      for (const [c, ids] of Object.entries(expected(m, true))) expect(all[c]).toEqual(expect.arrayContaining(ids));
    }
    const agent = await h.as({ principal: "agent", grants: [older.p, newer.p] });
    const r = await agent.call("reflect_audit", {});
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { error_type: string }).error_type).toBe("invalid_argument");
  });
});
