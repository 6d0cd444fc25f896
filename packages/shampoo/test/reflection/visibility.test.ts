import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, refused } from "../support/reflection.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { ok, uniq } from "../support/tasks-write.ts";

/**
 * Issue 23: a run's summary counts only what its reader may see (reflect_review's rule), and
 * paging arguments are bounded (an offset past the bound is a validation error, not a crash).
 */
describe.each(DIALECTS)("reflection visibility and bounds (%s)", (dialect) => {
  let h: Harness;
  let admin: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    admin = await h.as(ADMIN);
  });
  afterAll(async () => h?.close());

  it("reflect_history counts the candidates its reader can see, as reflect_review does", async () => {
    const p = uniq("refl");
    await ok(admin, "create_entities", {
      entities: [{ name: `Private ${p}`, entityType: "thing", project: p, visibility: "private" }],
    });
    const run = await ok(admin, "reflect_start", { project: p });
    const agent = await h.as({ principal: uniq("agent"), grants: [p] });
    const review = await ok(agent, "reflect_review", { run_id: run.run_id, limit: 100 });
    expect(review.total).toBe(0);
    const hist = await ok(agent, "reflect_history", { project: p });
    const mine = (hist.runs as Array<Record<string, unknown>>).find((r) => r.run_id === run.run_id);
    const summary = mine?.summary as { total_candidates: number; by_category: Record<string, number> };
    expect(summary.by_category.entities_no_observations).toBe(0);
    expect(summary.total_candidates).toBe(0);
    expect(mine?.candidates_persisted).toBe(0);
    // The author still sees their own.
    const own = await ok(admin, "reflect_history", { project: p });
    const theirs = (own.runs as Array<Record<string, unknown>>).find((r) => r.run_id === run.run_id);
    const summaryOf = theirs?.summary as { by_category: Record<string, number> } | undefined;
    expect(summaryOf?.by_category.entities_no_observations).toBe(1);
  });

  it("an offset past the bound is refused as invalid, on history and review", async () => {
    for (const [tool, args] of [
      ["reflect_history", { offset: 1e300 }],
      ["reflect_review", { run_id: "x", offset: 1e300 }],
    ] as const) {
      const r = await refused(admin, tool, args);
      expect(r.error_type, tool).toBe("invalid_argument");
      expect(String(r.error)).toContain("offset");
    }
  });
});
