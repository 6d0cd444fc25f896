import { describe, expect, it } from "vitest";
import { parseQuery } from "../model.ts";
import type { EntityHit, ObservationHit } from "../store/search.ts";
import {
  CANDIDATES,
  ENTITY_POOL,
  followUps,
  jumpOf,
  OBS_POOL,
  probePlan,
  projectScore,
  rankPool,
  takePool,
  WEIGHTS,
} from "./search.ts";

const entity = (id: string, name: string, extra: Partial<EntityHit> = {}): EntityHit => ({
  id,
  name,
  name_norm: name.toLowerCase(),
  entity_type: "thing",
  project: null,
  alias_text: "",
  ...extra,
});

const observation = (obsId: string, e: EntityHit, head: string): ObservationHit => ({
  obs_id: obsId,
  entity_id: e.id,
  name: e.name,
  name_norm: e.name_norm,
  entity_type: e.entity_type,
  project: e.project,
  alias_text: e.alias_text,
  ord: 1,
  head,
  len: head.length,
});

describe("search_nodes probe plan", () => {
  it("one all-terms probe, then one per term, longest terms first, each limit one over what it keeps", () => {
    const plan = probePlan(parseQuery("red kestrel gateway"), false);
    expect(plan.entityProbes.map((l) => l.probe.terms)).toEqual([
      ["red", "kestrel", "gateway"],
      ["kestrel"],
      ["gateway"],
      ["red"],
    ]);
    expect(plan.entityProbes[0]?.limit).toBe(ENTITY_POOL + 1);
    expect(plan.obsProbes[0]?.limit).toBe(OBS_POOL + 1);
    expect(plan.obsProbes).toHaveLength(4);
    expect(plan.prefix).toBe("gateway");
  });

  it("a one-term query has no per-term probes; a stopwords-only query probes entities only", () => {
    expect(probePlan(parseQuery("kestrel"), false).entityProbes).toHaveLength(1);
    const words = probePlan(parseQuery("the of"), true);
    expect(words.obsProbes).toEqual([]);
    expect(words.prefix).toBeNull();
  });

  it("skips the per-term probes of an index whose all-terms probe overflowed", () => {
    const plan = probePlan(parseQuery("red kestrel"), false);
    expect(followUps(plan, ENTITY_POOL, OBS_POOL)).toEqual({
      ep: plan.entityProbes.slice(1),
      op: plan.obsProbes.slice(1),
    });
    expect(followUps(plan, ENTITY_POOL + 1, OBS_POOL + 1)).toEqual({ ep: [], op: [] });
  });
});

describe("search_nodes pool and ranking", () => {
  it("drops a probe's rows past its limit and marks the pool capped", () => {
    const plan = probePlan(parseQuery("kestrel"), false);
    const rows = Array.from({ length: ENTITY_POOL + 1 }, (_, i) => ({ ...entity(`e${i}`, `Kestrel ${i}`), probe: 0 }));
    const pool = takePool(plan, rows, []);
    expect(pool.capped).toBe(true);
    expect(pool.entities).toHaveLength(ENTITY_POOL);
    expect(takePool(plan, rows.slice(0, 3), []).capped).toBe(false);
  });

  it("scores name over alias over type over observation, exact names first, ties by name", () => {
    const q = parseQuery("kestrel");
    const byName = entity("a", "Kestrel Gateway");
    const exact = entity("b", "Kestrel");
    const byAlias = entity("c", "Falcon", { alias_text: "kestrel" });
    const byType = entity("d", "Owl", { entity_type: "kestrel" });
    const byObs = entity("e", "Hawk");
    const { ranked, more } = rankPool(
      {
        entities: [byName, exact, byAlias, byType],
        observations: [observation("o1", byObs, "a kestrel was seen")],
        capped: false,
      },
      q,
    );
    expect(more).toBe(false);
    expect(ranked.map((c) => [c.name, c.score])).toEqual([
      ["Kestrel", WEIGHTS.name + WEIGHTS.exactName],
      ["Falcon", WEIGHTS.alias + WEIGHTS.exactAlias],
      ["Kestrel Gateway", WEIGHTS.name],
      ["Owl", WEIGHTS.type],
      ["Hawk", WEIGHTS.observation + 0.1],
    ]);
    expect(jumpOf(ranked)).toBe(Math.round((1 - 9 / 12) * 1000) / 1000);
  });

  it("search_nodes' project hint orders equal scores only: never a filter, never above a better match", () => {
    const q = parseQuery("kestrel");
    const pool = {
      entities: [
        entity("a", "Kestrel A", { project: "other" }),
        entity("b", "Kestrel B", { project: "mine" }),
        entity("c", "Kestrel", { project: "other" }),
      ],
      observations: [],
      capped: false,
    };
    expect(rankPool(pool, q).ranked.map((c) => c.name)).toEqual(["Kestrel", "Kestrel A", "Kestrel B"]);
    // with the hint: the exact name still leads; among the equal ones, "mine" comes first; none is dropped
    expect(rankPool(pool, q, "mine").ranked.map((c) => c.name)).toEqual(["Kestrel", "Kestrel B", "Kestrel A"]);
    expect(rankPool(pool, q, "nowhere").ranked.map((c) => c.name)).toEqual(["Kestrel", "Kestrel A", "Kestrel B"]);
  });

  it("keeps at most CANDIDATES and says when there were more", () => {
    const many = Array.from({ length: CANDIDATES + 2 }, (_, i) => entity(`e${i}`, `Kestrel ${i}`));
    const { ranked, more } = rankPool({ entities: many, observations: [], capped: false }, parseQuery("kestrel"));
    expect(ranked).toHaveLength(CANDIDATES);
    expect(more).toBe(true);
  });
});

describe("search_by_project score", () => {
  it("matches folded substrings per field, with the exact-name bonus and the observation tie-break", () => {
    const q = parseQuery("cafe");
    const e = { name: "Café", alias_text: "", entity_type: "place", name_norm: "café" };
    expect(projectScore(e, ["the cafe opens", "closed"], q, q.terms, "cafe")).toBe(
      WEIGHTS.name + WEIGHTS.observation + 0.05,
    );
    const blank = parseQuery("");
    expect(projectScore(e, ["cafe"], blank, [], "")).toBe(0);
  });
});
