import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, freshProfile, titles } from "../support/tasks-read.ts";

/**
 * find_by_title's word stages (lookup.ts; docs/shampoo-tasks.md, find_by_title): whole words, a
 * phrase in the title first, live entries newest first, `pool` (5 × limit, at least 50) per
 * stage, plus every entry whose whole title is the fragment; the ranking contract scores the
 * candidates as before.
 */

type Match = { title: string; score: number; primary_surface: string; confidence: string; status: string };

describe.each(DIALECTS)("find_by_title word stages on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  async function agent(profile: string) {
    return h.as({ principal: "stager", grants: ["p", ""], profile });
  }
  const find = async (profile: string, args: Record<string, unknown>) =>
    (await (await agent(profile)).sc("find_by_title", args)) as Record<string, unknown> & { matches: Match[] };

  it("a phrase in a title is found even when 60 entries rank above it by full-text relevance", async () => {
    const profile = freshProfile("st");
    await bulkInsert(h, profile, [
      { title: "zeta omega plan", description: Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ") },
      ...Array.from({ length: 60 }, (_, i) => ({
        title: `note ${i}`,
        description: "zeta omega zeta omega zeta omega",
      })),
    ]);
    const r = await find(profile, { title_fragment: "zeta omega", limit: 1 });
    expect(r.lookup_strategy).toBe("fts_prefilter");
    expect(r.matches.map((m) => [m.title, m.score, m.primary_surface])).toEqual([["zeta omega plan", 90, "title"]]);
    // With room for more, the description phrases follow it.
    const more = await find(profile, { title_fragment: "zeta omega", limit: 3 });
    expect(more.matches.map((m) => [m.primary_surface, m.confidence])).toEqual([
      ["title", "high"],
      ["description", "medium"],
      ["description", "medium"],
    ]);
  });

  it("more title phrases than the pool: the newest are scored, and an exact title always is", async () => {
    const profile = freshProfile("st");
    await bulkInsert(h, profile, [
      { title: "alpha beta" },
      { title: "gamma delta old", description: "gamma delta" },
      ...Array.from({ length: 60 }, (_, i) => ({ title: `alpha beta ${i}` })),
      ...Array.from({ length: 60 }, (_, i) => ({ title: `gamma delta ${i}` })),
    ]);
    // The oldest title, exact (100), is older than the 50 newest phrase entries, and still first.
    const exact = await find(profile, { title_fragment: "Alpha  beta", limit: 1 });
    expect(exact.matches.map((m) => [m.title, m.score])).toEqual([["alpha beta", 100]]);
    // "gamma delta old" would score 95.4 (its description corroborates), but with limit 1 the
    // pool holds the 50 newest phrase entries: the most recently updated of them answers.
    const newest = await find(profile, { title_fragment: "gamma delta", limit: 1 });
    expect(newest.matches.map((m) => [m.title, m.score])).toEqual([["gamma delta 59", 90]]);
    // limit 20: a pool of 100 holds all 61, and the corroborated entry ranks first.
    const all = await find(profile, { title_fragment: "gamma delta", limit: 20 });
    expect(titles(all.matches).slice(0, 3)).toEqual(["gamma delta old", "gamma delta 59", "gamma delta 58"]);
    expect(all.hidden_low_confidence_count).toBe(0);
  });

  it("a phrase outside the titles: the live entries come first even when newer finished ones crowd the walk", async () => {
    const profile = freshProfile("st");
    // Oldest first: the live entry that corroborates (notes too), 29 plain live ones, then 80
    // finished ones, the newest. The walk of every status (2 × pool = 100 newest) holds 20 live
    // entries only, so the live entries are walked again: the oldest, best one is a candidate.
    await bulkInsert(h, profile, [
      { title: "item special", description: "kappa lambda", notes: "kappa lambda" },
      ...Array.from({ length: 29 }, (_, i) => ({ title: `item live ${i}`, description: "kappa lambda" })),
      ...Array.from({ length: 80 }, (_, i) => ({
        title: `item done ${i}`,
        description: "kappa lambda",
        status: "done",
      })),
    ]);
    const r = await find(profile, { title_fragment: "kappa lambda", limit: 1 });
    expect(r.matches.map((m) => [m.title, m.score, m.status])).toEqual([["item special", 64.5, "not_started"]]);
    // Fewer matches than the walk holds: live and finished entries from one walk, live first.
    const few = freshProfile("st");
    await bulkInsert(h, few, [
      { title: "old live", description: "kappa lambda" },
      { title: "new done", description: "kappa lambda", status: "done" },
    ]);
    const both = await find(few, { title_fragment: "kappa lambda" });
    expect(both.matches.map((m) => [m.title, m.status])).toEqual([
      ["old live", "not_started"],
      ["new done", "done"],
    ]);
  });

  it("the last word still matches as a prefix in titles, and finished entries stay reachable", async () => {
    const profile = freshProfile("st");
    await bulkInsert(h, profile, [
      { title: "Quarterly budget review" },
      { title: "Budget reviewers lunch", status: "done" },
      { title: "Weekly notes", notes: "budget review pending" },
    ]);
    const r = await find(profile, { title_fragment: "budget rev" });
    expect(r.lookup_strategy).toBe("fts_prefilter");
    expect(r.matches.map((m) => [m.title, m.score, m.status])).toEqual([
      ["Quarterly budget review", 80, "not_started"],
      ["Budget reviewers lunch", 80, "done"],
    ]);
    // Whole words: the phrase in the notes joins the title phrases; the finished entry ranks last.
    const whole = await find(profile, { title_fragment: "budget review" });
    expect(whole.matches.map((m) => [m.title, m.primary_surface, m.status])).toEqual([
      ["Quarterly budget review", "title", "not_started"],
      ["Weekly notes", "notes", "not_started"],
      ["Budget reviewers lunch", "title", "done"],
    ]);
  });

  it("odd fragments never fail the word stages (marks, scripts, emoji, operators, long words)", async () => {
    const profile = freshProfile("st");
    await bulkInsert(h, profile, [{ title: "Café crème 東京 déjà-vu 🚀 x'y \\z" }]);
    const a = await agent(profile);
    for (const f of [
      "\u0301",
      "e\u0301 cre\u0300me",
      "東京",
      "🚀 launch",
      "déjà vu",
      "x'y \\z",
      "a <-> b | !c & d:*",
      '"" * ^ : NEAR(',
      "x".repeat(64),
      `${"word ".repeat(20)}end`,
    ]) {
      const r = await a.call("find_by_title", { title_fragment: f });
      expect(r.isError, f).toBeFalsy();
    }
    expect(titles((await find(profile, { title_fragment: "cafe creme" })).matches)).toHaveLength(1);
  });

  it("a retitled entry is found by its new title only", async () => {
    const profile = freshProfile("st");
    const a = await agent(profile);
    const { task_id } = (await a.sc("create_task_or_note", { title: "Harbor crane survey", project: "p" })) as {
      task_id: string;
    };
    expect(titles((await find(profile, { title_fragment: "crane survey" })).matches)).toEqual(["Harbor crane survey"]);
    await a.sc("update_task", { task_id, title: "Dock winch audit" });
    expect(titles((await find(profile, { title_fragment: "winch audit" })).matches)).toEqual(["Dock winch audit"]);
    const old = await find(profile, { title_fragment: "crane survey" });
    expect(old.matches).toEqual([]);
    expect(old.message).toBe("No title matches");
  });
});
