import { sql } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STOPWORD_LIST_NAME, STOPWORDS } from "../../src/domains/graph/model.ts";
import { charCount, excerpt, SEARCH_DEFAULT_BUDGET, WINDOW_CHARS } from "../../src/domains/graph/rules/search.ts";
import { entityLookupSource } from "../../src/domains/graph/store/lookup.ts";
import { MERGE_FROM_SEGMENTS, pendingMerge, structureSegments } from "../../src/domains/graph/store/merge.ts";
import { graphScopeOf } from "../../src/domains/graph/store/rows.ts";
import { lookup } from "../../src/domains/tasks/rules/lookup.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

/** search_nodes (ranking, evidence windows, packing, accounting, expansion) and search_by_project. */

type Ent = { name: string; entityType: string; observations: string[]; project?: string; _evidence_status: string };
type Acct = Record<string, unknown> & { wire_chars: number; budget_wire_chars: number };

describe("search helpers", () => {
  it("counts characters as code points and cuts windows around the hit", () => {
    expect(charCount("a😀b")).toBe(3);
    const text = `${"lorem ipsum ".repeat(100)}NEEDLE here${" dolor".repeat(100)}`;
    const at = text.indexOf("NEEDLE");
    const w = excerpt(text, at, true);
    expect(w).toContain("NEEDLE");
    expect(w.startsWith("…") && w.endsWith("…")).toBe(true);
    expect(w.length).toBeLessThanOrEqual(WINDOW_CHARS + 2);
    expect(excerpt("short text", 0, true)).toBe("short text");
    // A head that is not the whole text is marked as continuing.
    expect(excerpt("head only", -1, false)).toBe("head only…");
    // Never splits a surrogate pair.
    const emoji = "😀".repeat(300);
    expect(excerpt(emoji, 200, true).isWellFormed()).toBe(true);
    expect(STOPWORDS.has("the")).toBe(true);
    expect(STOPWORD_LIST_NAME).toBe("en-basic-v1");
  });
});

describe.each(DIALECTS)("knowledge-graph search on %s", (dialect) => {
  let h: Harness;
  let n = 0;
  /** Each test gets its own profile, so searches see only what the test wrote. */
  const fresh = async (extra: string[] = []): Promise<{ agent: Agent; p: string; profile: string }> => {
    const p = `s${++n}`;
    const profile = `search${n}`;
    return { agent: await h.as({ principal: `seeker${n}`, grants: [p, ...extra], profile }), p, profile };
  };
  const search = async (a: Agent, args: Record<string, unknown>) => {
    const r = await a.call("search_nodes", args);
    expect(r.isError).toBeFalsy();
    const sc = r.structuredContent as { entities: Ent[]; query: string; _accounting: Acct };
    // The accounting is exact: wire_chars is the character count of the serialized result.
    expect(sc._accounting.wire_chars).toBe(charCount(JSON.stringify(sc)));
    // The text block is exactly that serialized result (search.ts searchNodesText).
    expect(r.content).toEqual([{ type: "text", text: JSON.stringify(sc) }]);
    return sc;
  };

  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("a blank query lists the first 50 entities by name", async () => {
    const { agent, p } = await fresh();
    const names = Array.from({ length: 55 }, (_, i) => `Item ${String(i).padStart(2, "0")}`);
    await agent.sc("create_entities", {
      entities: [...names]
        .reverse()
        .map((name) => ({ name, entityType: "thing", observations: [`about ${name}`], project: p })),
    });
    const r = await search(agent, { query: "   " });
    expect(r.entities.map((e) => e.name)).toEqual(names.slice(0, 50));
    expect(r.entities[0]).toEqual({
      name: "Item 00",
      entityType: "thing",
      observations: ["about Item 00"],
      project: p,
      _evidence_status: "listed",
    });
    expect(r.query).toBe("   ");
    expect(r._accounting).toEqual({
      entities_considered: 50,
      entities_returned: 50,
      observations_returned: 50,
      truncated: false,
      budget_wire_chars: SEARCH_DEFAULT_BUDGET,
      wire_chars: r._accounting.wire_chars,
      status: "ok",
      degraded: [],
      refills: 0,
      query_status: "blank",
      meaningful_terms: [],
      stopword_list: [],
    });
  });

  it("tokenizes with a stopword list and reports meaningful_terms and stopword_list", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: [
        { name: "Quokka Labs", entityType: "org", observations: ["The quokka team ships the parser"], project: p },
      ],
    });
    const r = await search(agent, { query: "What is the Quokka PARSER?" });
    expect(r._accounting.meaningful_terms).toEqual(["quokka", "parser"]);
    expect(r._accounting.stopword_list).toEqual(["what", "is", "the"]);
    expect(r._accounting.query_status).toBe("ok");
    expect(r.entities.map((e) => e.name)).toEqual(["Quokka Labs"]);
    expect(r.entities[0]?._evidence_status).toBe("found");
    // Only stopwords: still answers, against names, aliases and types only.
    await agent.sc("create_entities", {
      entities: [{ name: "The Who", entityType: "band", observations: ["who are they"], project: p }],
    });
    const s = await search(agent, { query: "the who" });
    expect(s.entities.map((e) => e.name)).toEqual(["The Who"]);
    expect(s._accounting).toMatchObject({
      query_status: "stopwords_only",
      meaningful_terms: [],
      stopword_list: ["the", "who"],
      status: "degraded",
      degraded: ["stopwords_only"],
    });
    // No word characters at all: nothing to match.
    const none = await search(agent, { query: "?!…" });
    expect(none.entities).toEqual([]);
    expect(none._accounting).toMatchObject({ query_status: "no_terms", status: "no_results", entities_considered: 0 });
  });

  it("ranks name > alias > type > observation hits, and an exact name first", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: [
        { name: "In Observation", entityType: "t", observations: ["mentions zorblax once"], project: p },
        { name: "In Type", entityType: "zorblax", project: p },
        { name: "In Alias", entityType: "t", aliases: ["Zorblax Prime"], project: p },
        { name: "Zorblax Engine", entityType: "t", project: p },
        { name: "Zorblax", entityType: "t", project: p },
      ],
    });
    const r = await search(agent, { query: "zorblax" });
    expect(r.entities.map((e) => e.name)).toEqual([
      "Zorblax",
      "Zorblax Engine",
      "In Alias",
      "In Type",
      "In Observation",
    ]);
    expect(r.entities.map((e) => e._evidence_status)).toEqual([
      "name_match",
      "name_match",
      "name_match",
      "name_match",
      "found",
    ]);
    // jump: the relative gap between the best two scores (exact name 12 vs name 4).
    expect(r._accounting.jump).toBeCloseTo((12 - 4) / 12, 3);
    const single = await search(agent, { query: "In Observation mentions" });
    expect(single.entities[0]?.name).toBe("In Observation");
  });

  it("matches the last word as a prefix, earlier words whole", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: [{ name: "Stale Vendor", entityType: "org", observations: ["late shipments"], project: p }],
    });
    expect((await search(agent, { query: "stale vend" })).entities.map((e) => e.name)).toEqual(["Stale Vendor"]);
    expect((await search(agent, { query: "vend" })).entities.map((e) => e.name)).toEqual(["Stale Vendor"]);
    // "vend" is not the last word here, so it must match a whole word.
    expect((await search(agent, { query: "vend xyzzy" })).entities).toEqual([]);
    // Accents fold both ways.
    await agent.sc("create_entities", { entities: [{ name: "Café Müller", entityType: "place", project: p }] });
    expect((await search(agent, { query: "cafe muller" })).entities.map((e) => e.name)).toEqual(["Café Müller"]);
    expect((await search(agent, { query: "CAFÉ" })).entities.map((e) => e.name)).toEqual(["Café Müller"]);
  });

  it("packs evidence windows around the hit, refilling observations whose head hid it", async () => {
    const { agent, p } = await fresh();
    const long = `${"filler words go here ".repeat(60)}the quasar anomaly was logged${" and more filler".repeat(40)}`;
    await agent.sc("create_entities", {
      entities: [
        {
          name: "Observatory",
          entityType: "place",
          observations: ["opened in 1990", long, "a quasar survey", "unrelated note", "quasar again"],
          project: p,
        },
      ],
    });
    const r = await search(agent, { query: "quasar anomaly" });
    const e = r.entities[0] as Ent;
    expect(e._evidence_status).toBe("found");
    // At most three windows, evidence-bearing observations only, in their order.
    expect(e.observations).toHaveLength(3);
    expect(e.observations[0]).toMatch(/^….*quasar anomaly.*…$/);
    expect(charCount(e.observations[0] as string)).toBeLessThanOrEqual(WINDOW_CHARS + 2);
    expect(e.observations.slice(1)).toEqual(["a quasar survey", "quasar again"]);
    expect(r._accounting).toMatchObject({ refills: 1, observations_returned: 3, entities_returned: 1, status: "ok" });
  });

  it("stops the pack at the budget and reports truncated, counting characters of the whole result", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: Array.from({ length: 30 }, (_, i) => ({
        name: `Widget ${i}`,
        entityType: "part",
        observations: [`widget spec ${i} ${"x".repeat(150)}`, `widget note ${i} 😀`],
        project: p,
      })),
    });
    const all = await search(agent, { query: "widget" });
    expect(all._accounting).toMatchObject({
      entities_considered: 30,
      entities_returned: 30,
      truncated: false,
      status: "ok",
    });
    expect(all._accounting.jump).toBe(0);
    const small = await search(agent, { query: "widget", budget: 2500 });
    const acct = small._accounting;
    expect(acct.truncated).toBe(true);
    expect(acct.status).toBe("truncated");
    expect(acct.budget_wire_chars).toBe(2500);
    expect(acct.wire_chars).toBeLessThanOrEqual(2500);
    expect(acct.entities_considered).toBe(30);
    expect(acct.entities_returned).toBe(small.entities.length);
    expect(small.entities.length).toBeGreaterThan(0);
    expect(small.entities.length).toBeLessThan(30);
    expect(acct.observations_returned).toBe(small.entities.reduce((s, e) => s + e.observations.length, 0));
    // The next entity would not have fitted: the pack is greedy in rank order.
    const nextName = (all.entities[small.entities.length] as Ent).name;
    expect(small.entities.map((e) => e.name)).not.toContain(nextName);
    // Budget 0: nothing fits, the result still accounts for itself.
    const zero = await search(agent, { query: "widget", budget: 0 });
    expect(zero.entities).toEqual([]);
    expect(zero._accounting).toMatchObject({ entities_returned: 0, truncated: true, status: "truncated" });
  });

  it("adds visible live one-hop neighbours only, after the matches", async () => {
    const { agent, p, profile } = await fresh();
    const stranger = await h.as({ principal: `stranger${n}`, grants: ["foreign"], profile });
    const both = await h.as({ principal: `bridge${n}`, grants: [p, "foreign"], profile });
    await agent.sc("create_entities", {
      entities: [
        { name: "Seed Pulsar", entityType: "star", observations: ["pulsar timing"], project: p },
        { name: "Near Friend", entityType: "star", observations: ["no keyword here"], project: p },
        { name: "Gone Friend", entityType: "star", project: p },
      ],
    });
    await stranger.sc("create_entities", {
      entities: [{ name: "Foreign Friend", entityType: "star", project: "foreign" }],
    });
    await both.sc("create_relations", {
      relations: [
        { from: "Seed Pulsar", to: "Near Friend", relationType: "orbits" },
        { from: "Foreign Friend", to: "Seed Pulsar", relationType: "orbits" },
        { from: "Seed Pulsar", to: "Gone Friend", relationType: "orbits" },
      ],
    });
    await agent.sc("delete_entities", { entityNames: ["Gone Friend"] });
    const r = await search(agent, { query: "pulsar" });
    expect(r.entities).toEqual([
      {
        name: "Seed Pulsar",
        entityType: "star",
        observations: ["pulsar timing"],
        project: p,
        _evidence_status: "found",
      },
      {
        name: "Near Friend",
        entityType: "star",
        observations: ["no keyword here"],
        project: p,
        _evidence_status: "neighbour",
      },
    ]);
    expect(r._accounting).toMatchObject({ entities_considered: 2, entities_returned: 2 });
    expect(r._accounting).not.toHaveProperty("jump");
    // The bridge sees both projects, so its expansion includes the foreign neighbour.
    expect((await search(both, { query: "pulsar" })).entities.map((e) => e.name)).toEqual([
      "Seed Pulsar",
      "Foreign Friend",
      "Near Friend",
    ]);
    // project is accepted but does not narrow or boost.
    expect((await search(both, { query: "pulsar", project: "foreign" })).entities.map((e) => e.name)).toEqual([
      "Seed Pulsar",
      "Foreign Friend",
      "Near Friend",
    ]);
  });

  it("never lets foreign content into the pool: the same answer as no match", async () => {
    const { agent, profile } = await fresh();
    const owner = await h.as({ principal: `owner${n}`, grants: ["hidden"], profile });
    await owner.sc("create_entities", {
      entities: [{ name: "Hidden Nebula", entityType: "x", observations: ["nebula secret"], project: "hidden" }],
    });
    const foreign = await search(agent, { query: "nebula" });
    const missing = await search(agent, { query: "nebulx" });
    expect(foreign.entities).toEqual([]);
    expect({ ...foreign._accounting, meaningful_terms: [] }).toEqual({ ...missing._accounting, meaningful_terms: [] });
    expect(foreign._accounting.status).toBe("no_results");
    expect((await search(owner, { query: "nebula" })).entities.map((e) => e.name)).toEqual(["Hidden Nebula"]);
  });

  it("one-row writes keep the word indexes merged, and search finds every entity they wrote", async () => {
    const { agent, p } = await fresh();
    const names = Array.from({ length: 40 }, (_, i) => `Segment probe ${i}`);
    for (const [i, name] of names.entries()) {
      await agent.sc("create_entities", {
        entities: [{ name, entityType: "probe", observations: [`first note ${i}`], project: p }],
      });
      await agent.sc("add_observations", { observations: [{ entityName: name, contents: [`marker${i} later`] }] });
    }
    for (const i of [0, 17, 39]) {
      const byName = await search(agent, { query: `Segment probe ${i}` });
      expect(byName.entities[0]?.name).toBe(`Segment probe ${i}`);
      const byObservation = await search(agent, { query: `marker${i}` });
      expect(byObservation.entities[0]).toMatchObject({
        name: `Segment probe ${i}`,
        observations: [`marker${i} later`],
        _evidence_status: "found",
      });
    }
    if (dialect === "sqlite") {
      // 80 one-row write transactions: FTS5's automerge alone leaves a dozen segments per word
      // index here (10 in this file); a write that leaves MERGE_FROM_SEGMENTS or more has them
      // merged right after it (fts.ts scheduleMerge), so every term lookup probes a few.
      await pendingMerge(h.db);
      for (const t of ["shampoo_entities_fts", "shampoo_observations_fts"]) {
        const r = await sql<{ n: number }>`SELECT count(DISTINCT segid) AS n FROM ${sql.table(`${t}_idx`)}`.execute(
          h.db.db,
        );
        const n = Number(r.rows[0]?.n);
        expect(n).toBeLessThanOrEqual(MERGE_FROM_SEGMENTS);
        // The count needsMerge reads from the structure record is the index's own.
        const block = await sql<{
          block: Uint8Array;
        }>`SELECT block FROM ${sql.table(`${t}_data`)} WHERE id = 10`.execute(h.db.db);
        expect(structureSegments(block.rows[0]?.block as Uint8Array)).toBe(n);
      }
    }
  });

  it("search_by_project: substring pool strictly inside the project, re-ranked with _score", async () => {
    const { agent, p, profile } = await fresh([""]);
    const other = `${p}-other`;
    const both = await h.as({ principal: `sbp${n}`, grants: [p, other, ""], profile });
    await both.sc("create_entities", {
      entities: [
        { name: "Supervendor", entityType: "org", observations: ["big"], project: p },
        {
          name: "Plain",
          entityType: "org",
          observations: ["talks to a vendor daily", "vendors everywhere"],
          project: p,
        },
        { name: "Aliased", entityType: "org", aliases: ["Vendor X"], project: p },
        { name: "Typed", entityType: "vendor", project: p },
        { name: "Vendor", entityType: "org", project: p },
        { name: "Other Vendor", entityType: "org", project: other },
        { name: "Loose Vendor", entityType: "org" },
      ],
    });
    const r = await agent.sc("search_by_project", { query: "vendor", project: p });
    expect(r.query).toBe("vendor");
    expect(r.project).toBe(p);
    const ents = r.entities as { name: string; project: string; _score: number; observations: string[] }[];
    expect(ents.map((e) => e.name)).toEqual(["Vendor", "Supervendor", "Aliased", "Typed", "Plain"]);
    expect(ents.map((e) => e._score)).toEqual([12, 4, 3, 2, 1.1]);
    expect(ents.every((e) => e.project === p)).toBe(true);
    expect(ents[4]?.observations).toEqual(["talks to a vendor daily", "vendors everywhere"]);
    // Substrings inside words, short terms, the untagged enclave, a blank query.
    expect(((await agent.sc("search_by_project", { query: "endo", project: p })).entities as Ent[]).length).toBe(5);
    expect(
      ((await agent.sc("search_by_project", { query: "ai", project: p })).entities as Ent[]).map((e) => e.name),
    ).toEqual(["Plain"]);
    expect(
      ((await agent.sc("search_by_project", { query: "vendor", project: "" })).entities as Ent[]).map((e) => e.name),
    ).toEqual(["Loose Vendor"]);
    const blank = await agent.sc("search_by_project", { query: "", project: p });
    expect((blank.entities as Ent[]).map((e) => e.name)).toEqual([
      "Aliased",
      "Plain",
      "Supervendor",
      "Typed",
      "Vendor",
    ]);
    // Out of scope: empty, echoes intact, never a denial.
    const out = await agent.call("search_by_project", { query: "vendor", project: other });
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent).toEqual({ entities: [], query: "vendor", project: other });
    // Only live content is pooled.
    await agent.sc("delete_entities", { entityNames: ["Vendor"] });
    await agent.sc("delete_observations", {
      deletions: [{ entityName: "Plain", observations: ["talks to a vendor daily"] }],
    });
    const after = (await agent.sc("search_by_project", { query: "vendor", project: p })).entities as Ent[];
    expect(after.map((e) => e.name)).toEqual(["Supervendor", "Aliased", "Typed", "Plain"]);
    expect(after[3]?.observations).toEqual(["vendors everywhere"]);
  });

  it("offers entities to find_by_title as a lookup source (name, observations, type, project)", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: [
        { name: "Lookup Lighthouse", entityType: "place", observations: ["beam rotates nightly"], project: p },
        { name: "Other Thing", entityType: "place", observations: ["mentions the lookup lighthouse"], project: p },
      ],
    });
    const source = entityLookupSource(h.db.db, dialect, graphScopeOf(agent.caller));
    const r = await lookup([source], "lookup lightho", 5, 100);
    const matches = r.matches as { kind: string; title: string; matched_in: string[] }[];
    expect(matches[0]).toMatchObject({ kind: "entity", title: "Lookup Lighthouse", matched_in: ["name"] });
    expect(matches.map((m) => m.title)).toContain("Other Thing");
    const stranger = entityLookupSource(h.db.db, dialect, graphScopeOf((await fresh()).agent.caller));
    expect((await lookup([stranger], "lookup lighthouse", 5, 100)).matches).toEqual([]);
  });
});
