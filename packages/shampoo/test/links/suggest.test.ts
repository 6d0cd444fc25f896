import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  counts,
  entities,
  entityId,
  MISSING_TASK,
  relate,
  TASK_NOT_FOUND_LOWER,
  task,
  uniq,
  voidEntity,
} from "../support/links.ts";
import { type Harness, harness } from "../support/shampoo.ts";

const DAY = 86_400_000;
const WEIGHTS = {
  exact_name: 0.25,
  alias: 0.2,
  fts: 0.15,
  project: 0.1,
  provenance: 0.04,
  graph: 0.15,
  temporal: 0.05,
  vector: 0.03,
  community: 0.03,
};

type Suggestion = Record<string, unknown> & { entity_name: string; score: number; rank: number };

describe.each(DIALECTS)("suggest_task_links on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("scores every signal with raw value, weight and contribution (explainable-pairwise-v1)", async () => {
    const p = uniq("proj");
    const alice = await h.as({ principal: uniq("alice"), grants: [p] });
    const bob = await h.as({ principal: uniq("bob"), grants: [p] });
    const now = h.clock.now();
    // The task is written first: had the entities existed, its creation would have auto-linked
    // Globex (discovery), and linked entities are not suggested.
    const t = await task(alice, { title: "Order invoice paper from Globex Corporation", project: p });
    h.clock.set(now - 30 * DAY);
    await entities(h, alice, [
      {
        name: "Globex",
        entityType: "company",
        project: p,
        aliases: ["Globex Corporation"],
        observations: ["Supplier of invoice paper"],
      },
    ]);
    h.clock.set(now);
    await entities(h, alice, [
      { name: "Hub", entityType: "team", project: p },
      { name: "Initech", entityType: "company", project: p, observations: ["Printer vendor"] },
    ]);
    await entities(h, bob, [{ name: "Umbrella", entityType: "company", project: p }]);
    await relate(h, alice, "Hub", "Initech", "supplies");
    await relate(h, alice, "Initech", "Umbrella", "owns");
    await alice.sc("link_task_entity", { task_id: t, entity_name: "Hub" });
    const before = await counts(h);

    const r = await alice.sc("suggest_task_links", { task_id: t });
    expect(await counts(h)).toEqual(before); // pure read: no link, no decision, no event
    expect(Object.keys(r).sort()).toEqual(
      [
        "accept_tool",
        "candidate_count",
        "community_run",
        "include_vector",
        "model_version",
        "suggestions",
        "task_id",
        "undo_auto_tool",
      ].sort(),
    );
    expect(r).toMatchObject({
      task_id: t,
      model_version: "explainable-pairwise-v1",
      include_vector: false,
      community_run: null,
      candidate_count: 3,
      accept_tool: "link_task_entity",
      undo_auto_tool: "unlink_task_entity",
    });
    const [globex, initech, umbrella] = r.suggestions as Suggestion[];
    expect(globex).toEqual({
      entity_id: await entityId(h, "Globex"),
      entity_name: "Globex",
      entity_type: "company",
      score: 0.715,
      signals: {
        raw: {
          exact_name: 1,
          alias: 1,
          fts: 0.666667,
          project: 1,
          provenance: 1,
          graph: 0,
          temporal: 0.5,
          vector: null,
          community: null,
        },
        weights: WEIGHTS,
        contributions: {
          exact_name: 0.25,
          alias: 0.2,
          fts: 0.1,
          project: 0.1,
          provenance: 0.04,
          graph: 0,
          temporal: 0.025,
          vector: 0,
          community: 0,
        },
      },
      reasons: ["exact_name", "alias:Globex Corporation", "shared_keywords:2/3", "same_project", "same_creator"],
      matched_aliases: ["Globex Corporation"],
      shared_keywords: ["invoice", "paper"],
      fts_rank: 1,
      vector_rank: null,
      existing_decision: null,
      rank: 1,
    });
    expect(initech).toMatchObject({
      entity_name: "Initech",
      score: 0.34,
      reasons: ["linked_neighbour:supplies:Hub", "same_project", "same_creator", "created_within_7_days"],
      matched_aliases: [],
      shared_keywords: [],
      fts_rank: null,
      rank: 2,
    });
    expect((initech as Suggestion).signals).toMatchObject({ raw: { graph: 1, temporal: 1, fts: 0 } });
    expect(umbrella).toMatchObject({
      entity_name: "Umbrella",
      score: 0.225,
      reasons: ["two_hop:owns:Initech", "same_project", "created_within_7_days"],
      rank: 3,
    });
    expect((umbrella as Suggestion).signals).toMatchObject({ raw: { graph: 0.5, provenance: 0 } });
    // The linked entity (Hub) is never suggested back.
    expect((r.suggestions as Suggestion[]).map((s) => s.entity_name)).not.toContain("Hub");

    // include_vector is accepted and echoed; there is no vector model, so nothing else changes.
    const v = await alice.sc("suggest_task_links", { task_id: t, include_vector: true });
    expect(v.include_vector).toBe(true);
    expect(v.suggestions).toEqual(r.suggestions);
  });

  it("limit defaults to 5 and clamps to 1..50; candidate_count counts them all", async () => {
    const p = uniq("proj");
    const a = await h.as({ principal: uniq("al"), grants: [p] });
    const prefix = uniq("Widget");
    const names = Array.from({ length: 55 }, (_, i) => `${prefix} ${i + 1}`);
    // Task first, so its creation auto-links none of them (linked entities are not candidates).
    const t = await task(a, { title: "Check the widgets", description: names.join(", "), project: p });
    await entities(
      h,
      a,
      names.map((name) => ({ name, project: p })),
    );
    const n = async (args: Record<string, unknown>) => {
      const r = await a.sc("suggest_task_links", { task_id: t, ...args });
      expect(r.candidate_count).toBe(55);
      return (r.suggestions as Suggestion[]).length;
    };
    expect(await n({})).toBe(5);
    expect(await n({ limit: 1 })).toBe(1);
    expect(await n({ limit: 0 })).toBe(1);
    expect(await n({ limit: -3 })).toBe(1);
    expect(await n({ limit: 12 })).toBe(12);
    expect(await n({ limit: 1000 })).toBe(50);
    const ranked = (await a.sc("suggest_task_links", { task_id: t, limit: 50 })).suggestions as Suggestion[];
    expect(ranked.map((s) => s.rank)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (let i = 1; i < ranked.length; i++) {
      expect(ranked[i - 1]?.score).toBeGreaterThanOrEqual(ranked[i]?.score as number);
    }
  });

  it("draws candidates only from what the caller may see", async () => {
    const p = uniq("proj");
    const q = uniq("q");
    const alice = await h.as({ principal: uniq("alice"), grants: [p] });
    const bob = await h.as({ principal: uniq("bob"), grants: [p] });
    const carol = await h.as({ principal: uniq("carol"), grants: [q] });
    const shared = uniq("Sharedthing");
    const privateOne = uniq("Privatething");
    const hidden = uniq("Hiddenthing");
    const voided = uniq("Voidthing");
    // Task first, so its creation auto-links nothing and every visible mention stays a candidate.
    const t = await task(alice, { title: `Zebra ${shared} ${privateOne} ${hidden} ${voided}`, project: p });
    await entities(h, alice, [
      { name: shared, project: p },
      { name: voided, project: p },
    ]);
    await entities(h, bob, [{ name: privateOne, project: p, visibility: "private", observations: ["Zebra notes"] }]);
    await entities(h, carol, [{ name: hidden, project: q, observations: ["Zebra notes"] }]);
    await voidEntity(h, alice, voided);
    const r = await alice.sc("suggest_task_links", { task_id: t });
    expect((r.suggestions as Suggestion[]).map((s) => s.entity_name)).toEqual([shared]);
    expect(r.candidate_count).toBe(1);
  });

  it("a removed manual link comes back as a suggestion carrying its existing decision", async () => {
    const p = uniq("proj");
    const a = await h.as({ principal: uniq("al"), grants: [p] });
    const name = uniq("Vendor");
    const t = await task(a, { title: `Pay ${name}`, project: p }); // before the entity: no auto link
    await entities(h, a, [{ name, project: p }]);
    const linked = await a.sc("link_task_entity", { task_id: t, entity_name: name });
    expect(linked.label_progress).toEqual({ accepted: 1, rejected: 0, total: 1 });
    expect((await a.sc("suggest_task_links", { task_id: t })).suggestions).toEqual([]);
    await a.sc("unlink_task_entity", { task_id: t, entity_name: name });
    const [s] = (await a.sc("suggest_task_links", { task_id: t })).suggestions as Suggestion[];
    expect(s?.existing_decision).toEqual({
      decision_id: linked.decision_id,
      decision: "accepted",
      source: "link_task_entity",
      decided_at: linked.created_at,
    });
  });

  it("unknown, foreign and malformed tasks answer the lowercase task not found alike", async () => {
    const p = uniq("proj");
    const owner = await h.as({ principal: uniq("own"), grants: [p] });
    const t = await task(owner, { title: "Private", project: p });
    const other = await h.as({ principal: uniq("oth"), grants: [uniq("else")] });
    const foreign = await other.call("suggest_task_links", { task_id: t });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toEqual(TASK_NOT_FOUND_LOWER);
    expect(await other.call("suggest_task_links", { task_id: MISSING_TASK })).toEqual(foreign);
    expect(await other.call("suggest_task_links", { task_id: "t-1" })).toEqual(foreign);
  });

  it("rejects a missing task_id and bad limit or include_vector types", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["x"] });
    const missing = await a.call("suggest_task_links", {});
    expect(missing.structuredContent).toEqual({
      error: "Missing required argument: task_id",
      error_type: "validation",
    });
    for (const args of [
      { task_id: MISSING_TASK, limit: "5" },
      { task_id: MISSING_TASK, limit: 2.5 },
      { task_id: MISSING_TASK, limit: true },
      { task_id: MISSING_TASK, include_vector: "yes" },
      { task_id: MISSING_TASK, include_vector: 1 },
      { task_id: 5 },
      { task_id: MISSING_TASK, include_linked: true },
    ]) {
      const r = await a.call("suggest_task_links", args);
      expect(r.isError).toBe(true);
      expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
    }
  });
});
