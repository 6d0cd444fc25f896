import { describe, expect, it } from "vitest";
import type { TaskRow } from "../tasks/schema.ts";
import {
  containsPhrase,
  phrase,
  rankEntities,
  type ScoredEntity,
  type ScoringFacts,
  textPhrases,
  WEIGHTS,
} from "./rules.ts";

const AT = "2025-06-01T00:00:00.000Z";
const task = {
  id: "t1",
  title: "Deploy the Billing Service",
  description: "after the migration",
  notes: null,
  project: "ops",
  created_by: "alice",
  created_at: AT,
} as TaskRow;

const entity = (id: string, name: string, over: Partial<ScoredEntity> = {}): ScoredEntity => ({
  id,
  name,
  name_norm: name.toLowerCase(),
  entity_type: "service",
  project: "ops",
  created_by: "alice",
  created_at: AT,
  alias_text: "",
  ...over,
});

const facts = (entities: ScoredEntity[], over: Partial<ScoringFacts> = {}): ScoringFacts => ({
  task,
  entities,
  obsWords: new Map(),
  linked: new Set(),
  graph: new Map(),
  decisions: new Map(),
  ...over,
});

describe("text rules", () => {
  it("matches folded phrases on word boundaries only", () => {
    expect(containsPhrase(phrase("Deploy the Billing-Service now"), phrase("billing service"))).toBe(true);
    expect(containsPhrase(phrase("rebilling services"), phrase("billing service"))).toBe(false);
    expect(containsPhrase("anything", "")).toBe(false);
  });

  it("lists every run of up to n words", () => {
    expect(textPhrases("a b c", 2).sort()).toEqual(["a", "a b", "b", "b c", "c"]);
  });
});

describe("rankEntities", () => {
  it("scores an exact mention on every signal; the score is the sum of the contributions", () => {
    const { suggestions } = rankEntities(facts([entity("e1", "Billing Service")]));
    const s = suggestions[0];
    expect(s?.reasons).toEqual(["exact_name", "same_project", "same_creator", "created_within_7_days"]);
    expect(s?.signals.raw).toMatchObject({ exact_name: 1, alias: 0, project: 1, provenance: 1, temporal: 1 });
    // 0.25 + 0.10 + 0.04 + 0.05, rounded to six places as every score is.
    expect(s?.score).toBe(0.44);
    expect(s?.score).toBeCloseTo(WEIGHTS.exact_name + WEIGHTS.project + WEIGHTS.provenance + WEIGHTS.temporal, 6);
    expect(s?.rank).toBe(1);
  });

  it("never nominates on project, provenance or time alone; ranks by score then name", () => {
    const { suggestions } = rankEntities(
      facts([
        entity("e1", "Unrelated"),
        entity("e2", "Migration Tool", { alias_text: "migration" }),
        entity("e3", "Billing Service"),
      ]),
    );
    expect(suggestions.map((s) => [s.entity_id, s.rank])).toEqual([
      ["e3", 1],
      ["e2", 2],
    ]);
  });

  it("leaves out linked and rejected pairs but still scores the focus", () => {
    const e = entity("e1", "Billing Service");
    const rejected = { decision_id: "d1", decision: "rejected", source: "unlink_task_entity", decided_at: AT };
    const out = rankEntities(facts([e], { decisions: new Map([["e1", rejected]]), focusId: "e1" }));
    expect(out.suggestions).toEqual([]);
    expect(out.focus?.existing_decision).toEqual(rejected);
    expect(out.focus?.rank).toBe(1);
    expect(rankEntities(facts([e], { linked: new Set(["e1"]) })).suggestions).toEqual([]);
  });
});
