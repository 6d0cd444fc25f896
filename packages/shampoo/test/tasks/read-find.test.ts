import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchQuality, normalizeLookup } from "../../src/domains/tasks/rules/lookup.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, expectError, freshProfile, seedAll, type Task, titles } from "../support/tasks-read.ts";

const CONTRACT = "memory_lookup_v2";
type Match = Task & {
  kind: string;
  score: number;
  matched_in: string[];
  surface_scores: Record<string, number>;
  primary_surface: string;
  confidence: string;
  ranking_contract_version: string;
};
const matchesOf = (r: Record<string, unknown>) => r.matches as Match[];

describe("memory_lookup_v2 match quality", () => {
  it("normalizes case, accents and punctuation", () => {
    expect(normalizeLookup("  Résumé -- UPDATE_v2!  ")).toBe("resume update v2");
  });
  it("grades exact > phrase > word prefix > substring > spacing > all words > most words", () => {
    expect(matchQuality("draft paul", "Draft Paul")).toBe(1);
    expect(matchQuality("paul pack", "Draft Paul pack README")).toBe(0.9);
    expect(matchQuality("paul pa", "Draft Paul pack README")).toBe(0.8);
    expect(matchQuality("adme", "Draft Paul pack README")).toBe(0.7);
    expect(matchQuality("read me", "Draft Paul pack README")).toBe(0.6);
    expect(matchQuality("readme draft", "Draft Paul pack README")).toBe(0.55);
    expect(matchQuality("readme draft zebra", "Draft Paul pack README")).toBeCloseTo(0.2);
    expect(matchQuality("readme zebra lion", "Draft Paul pack README")).toBe(0);
    // Half the words, one as a word's start; a substring inside a word is no word hit.
    expect(matchQuality("pac zebra", "Draft Paul pack README")).toBeCloseTo(0.15);
    expect(matchQuality("aul zebra", "Draft Paul pack README")).toBe(0);
    expect(matchQuality("anything", null)).toBe(0);
  });
  it("partial-word matches need three characters", () => {
    expect(matchQuality("c", "C++ migration")).toBe(0.9); // a whole word
    expect(matchQuality("mi", "C++ migration")).toBe(0);
    expect(matchQuality("mig", "C++ migration")).toBe(0.8);
  });
});

describe.each(DIALECTS)("find_by_title on %s", (dialect) => {
  let h: Harness;
  let a: Agent;
  let id: Record<string, string>;

  beforeAll(async () => {
    h = await harness(dialect);
    a = await h.as({ principal: "alice", grants: ["alpha", "beta"], profile: freshProfile("f") });
    const specs = [
      {
        title: "Draft Paul pack README",
        project: "alpha",
        description: "the onboarding pack for new hires",
        notes: "owner: paul",
      },
      { title: "Quarterly budget review", project: "alpha", description: "numbers for finance" },
      { title: "Misc chores", project: "alpha", notes: "remember the budget spreadsheet" },
      { title: "Budget", project: "alpha", status: "done" },
      { title: "Paul's travel plans", project: "beta", type: "note" },
      { title: "Onboarding checklist", project: "alpha", description: "pack the laptop" },
      { title: "Random item", project: "alpha", notes: "onboardingx" },
      { title: "C++ migration", project: "beta" },
      { title: "What ??? now", project: "beta" },
      { title: "Résumé update", project: "beta" },
    ];
    const ids = await seedAll(h, a, specs);
    id = Object.fromEntries(specs.map((s, i) => [s.title, ids[i] as string]));
  });
  afterAll(async () => {
    await h.close();
  });

  it("an exact title: one high-confidence match with its surface scores, via the FTS prefilter", async () => {
    const r = await a.sc("find_by_title", { title_fragment: "Quarterly budget review" });
    expect(r).toMatchObject({
      count: 1,
      query: "Quarterly budget review",
      hidden_low_confidence_count: 0,
      ranking_contract_version: CONTRACT,
      lookup_strategy: "fts_prefilter",
      message: null,
    });
    const [m] = matchesOf(r);
    expect(m).toEqual({
      kind: "task",
      id: id["Quarterly budget review"],
      title: "Quarterly budget review",
      type: "task",
      status: "not_started",
      section: "inbox",
      priority: "medium",
      due_date: null,
      project: "alpha",
      created_at: expect.any(String),
      updated_at: expect.any(String),
      score: 100,
      matched_in: ["title"],
      surface_scores: { title: 100 },
      primary_surface: "title",
      confidence: "high",
      ranking_contract_version: CONTRACT,
    });
    expect((r.markdown as string).split("\n")).toEqual([
      "| # | Kind | Title | Status | Project | Matched in | Confidence | Score |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      "| 1 | task | Quarterly budget review | not_started | alpha | title | high | 100 |",
    ]);
  });

  it("finished work always ranks below live work, whatever its score", async () => {
    const r = await a.sc("find_by_title", { title_fragment: "budget" });
    const ms = matchesOf(r);
    expect(titles(ms)).toEqual(["Quarterly budget review", "Misc chores", "Budget"]);
    expect(ms.map((m) => [m.score, m.confidence, m.primary_surface])).toEqual([
      [90, "high", "title"],
      [40.5, "medium", "notes"],
      [100, "high", "title"],
    ]);
    expect(ms[2]?.status).toBe("done");
  });

  it("several surfaces corroborate: the best surface plus a tenth of the others", async () => {
    const ms = matchesOf(await a.sc("find_by_title", { title_fragment: "paul" }));
    expect(titles(ms)).toEqual(["Draft Paul pack README", "Paul's travel plans"]);
    expect(ms[0]).toMatchObject({
      score: 94.05,
      matched_in: ["title", "notes"],
      surface_scores: { title: 90, notes: 40.5 },
      primary_surface: "title",
    });
    expect(ms[1]).toMatchObject({ kind: "note", type: "note", score: 90 });
  });

  it("a fragment inside a word: FTS finds nothing, the scoped full scan does", async () => {
    const r = await a.sc("find_by_title", { title_fragment: "adme" });
    expect(r.lookup_strategy).toBe("full_scan_fallback");
    expect(matchesOf(r).map((m) => [m.title, m.score, m.confidence])).toEqual([["Draft Paul pack README", 70, "high"]]);
  });

  it("low-confidence hits are hidden (and counted) once something reaches medium", async () => {
    const r = await a.sc("find_by_title", { title_fragment: "onboarding" });
    expect(r.lookup_strategy).toBe("fts_prefilter");
    expect(matchesOf(r).map((m) => [m.title, m.primary_surface, m.confidence])).toEqual([
      ["Onboarding checklist", "title", "high"],
      ["Draft Paul pack README", "description", "medium"],
    ]);
    // "onboardingx" in Random item's notes is a longer word outside the title: the word stages
    // (whole words outside the title) answered, so it was never a candidate to hide.
    expect(r.hidden_low_confidence_count).toBe(0);
    // A low hit among the candidates is hidden and counted: a phrase in a project scores 36.
    const c = await h.as({ principal: "carol", grants: ["release notes", "alpha"], profile: freshProfile("f") });
    await seedAll(h, c, [
      { title: "Ship it", project: "alpha", description: "cut the release today" },
      { title: "Misc", project: "release notes" },
    ]);
    const low = await c.sc("find_by_title", { title_fragment: "release" });
    expect(matchesOf(low).map((m) => [m.title, m.primary_surface, m.confidence])).toEqual([
      ["Ship it", "description", "medium"],
    ]);
    expect(low.hidden_low_confidence_count).toBe(1);
  });

  it("when nothing reaches medium, the low hits are the answer (nothing hidden)", async () => {
    const r = await a.sc("find_by_title", { title_fragment: "laptop pack" });
    expect(r.lookup_strategy).toBe("full_scan_fallback");
    expect(matchesOf(r).map((m) => [m.title, m.score, m.confidence])).toEqual([
      ["Onboarding checklist", 33, "low"],
      ["Draft Paul pack README", 15.9, "low"],
    ]);
    expect(r.hidden_low_confidence_count).toBe(0);
  });

  it("case, accents and punctuation do not matter; punctuation-only fragments still match", async () => {
    expect(titles(matchesOf(await a.sc("find_by_title", { title_fragment: "QUARTERLY budget" })))).toEqual([
      "Quarterly budget review",
    ]);
    expect(titles(matchesOf(await a.sc("find_by_title", { title_fragment: "resume" })))).toEqual(["Résumé update"]);
    expect(titles(matchesOf(await a.sc("find_by_title", { title_fragment: "c++" })))).toEqual(["C++ migration"]);
    const q = await a.sc("find_by_title", { title_fragment: "???" });
    expect(q.lookup_strategy).toBe("full_scan_fallback");
    expect(titles(matchesOf(q))).toEqual(["What ??? now"]);
    // FTS syntax in the fragment is just text.
    for (const f of ['"budget', "budget*", "NEAR(a b)", "a:b", "x & !y", "(("]) {
      const r = await a.call("find_by_title", { title_fragment: f });
      expect(r.isError, f).toBeFalsy();
    }
  });

  it("a blank fragment: matches [] with the message Empty title fragment", async () => {
    for (const f of ["", "   ", "\n\t"]) {
      expect(await a.sc("find_by_title", { title_fragment: f })).toEqual({
        matches: [],
        count: 0,
        query: "",
        ranking_contract_version: CONTRACT,
        hidden_low_confidence_count: 0,
        markdown: "",
        message: "Empty title fragment",
      });
    }
  });

  it("no match: matches [], No title matches", async () => {
    expect(await a.sc("find_by_title", { title_fragment: "zzzz" })).toEqual({
      matches: [],
      count: 0,
      query: "zzzz",
      ranking_contract_version: CONTRACT,
      hidden_low_confidence_count: 0,
      lookup_strategy: "full_scan_fallback",
      markdown: "",
      message: "No title matches",
    });
  });

  it("limit clamps to 1..100 (default 20)", async () => {
    const profile = freshProfile("f");
    const b = await h.as({ principal: "bob", grants: ["w"], profile });
    await bulkInsert(
      h,
      profile,
      Array.from({ length: 120 }, (_, i) => ({ title: `widget ${String(i).padStart(3, "0")}`, project: "w" })),
    );
    const count = async (args: Record<string, unknown>) =>
      (await b.sc("find_by_title", { title_fragment: "widget", ...args })).count;
    expect(await count({})).toBe(20);
    expect(await count({ limit: 0 })).toBe(1);
    expect(await count({ limit: -7 })).toBe(1);
    expect(await count({ limit: 50 })).toBe(50);
    expect(await count({ limit: 1000 })).toBe(100);
    // Equal scores: most recently updated first, then id; the same bytes every time.
    const r = await b.call("find_by_title", { title_fragment: "widget", limit: 3 });
    expect(titles(matchesOf(r.structuredContent as Record<string, unknown>))).toEqual([
      "widget 119",
      "widget 118",
      "widget 117",
    ]);
    expect(await b.call("find_by_title", { title_fragment: "widget", limit: 3 })).toEqual(r);
  });

  it("only content inside the grants is loaded and scored: no hints, no hidden counts", async () => {
    const bob = await h.as({ principal: "bob", grants: ["beta"], profile: a.caller.profile });
    const empty = await h.as({ principal: "carol", grants: ["beta"], profile: freshProfile("f") });
    for (const f of ["budget", "onboarding", "Quarterly budget review", "adme"]) {
      const seen = await bob.call("find_by_title", { title_fragment: f });
      expect(seen).toEqual(await empty.call("find_by_title", { title_fragment: f }));
      expect((seen.structuredContent as Record<string, unknown>).message).toBe("No title matches");
    }
    // beta content stays reachable for bob.
    expect(titles(matchesOf(await bob.sc("find_by_title", { title_fragment: "paul" })))).toEqual([
      "Paul's travel plans",
    ]);
  });

  it("strict validator: title_fragment is required; unknown arguments and bad types are rejected", async () => {
    await expectError(a, "find_by_title", {}, "Missing required argument: title_fragment");
    await expectError(a, "find_by_title", { limit: 5 }, "Missing required argument: title_fragment");
    await expectError(a, "find_by_title", { title_fragment: 5 }, "title_fragment must be string");
    await expectError(a, "find_by_title", { title_fragment: "x", limit: "5" }, "limit must be integer");
    await expectError(a, "find_by_title", { title_fragment: "x", project: "alpha" }, "Unknown argument: project");
  });
});
