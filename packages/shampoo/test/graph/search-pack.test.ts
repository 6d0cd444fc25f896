import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { charCount, PLAIN_WINDOWS } from "../../src/domains/graph/rules/search.ts";
import { type Harness, harness } from "../support/shampoo.ts";

/**
 * search_nodes packing with candidates that show their first observations (name-only matches and
 * neighbours): those observations are read only for the candidates the budget can reach, so every
 * budget must give exactly the rank-order prefix of the unbounded answer, with the same records.
 */

type Ent = { name: string; entityType: string; observations: string[]; _evidence_status: string };
type Answer = { entities: Ent[]; query: string; _accounting: Record<string, unknown> & { wire_chars: number } };

describe.each(DIALECTS)("search_nodes packing on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("gives every budget the prefix of the full answer, first observations included", async () => {
    const agent = await h.as({ principal: "packer", grants: ["pk"], profile: "pack" });
    const obs = (i: number, k: number) => `note ${k} of item ${i} ${"z".repeat(20 + ((i * 7 + k * 13) % 90))}`;
    await agent.sc("create_entities", {
      entities: [
        ...Array.from({ length: 14 }, (_, i) => ({
          name: `Gear ${i}`,
          entityType: "part",
          observations: [obs(i, 1), obs(i, 2), obs(i, 3)],
          project: "pk",
        })),
        ...Array.from({ length: 6 }, (_, i) => ({
          name: `Bolt ${i}`,
          entityType: "part",
          observations: [obs(100 + i, 1), obs(100 + i, 2)],
          project: "pk",
        })),
      ],
    });
    await agent.sc("create_relations", {
      // Neighbours join from the best 8 matches; equal scores rank by name (Gear 0, 1, 10, 11, …).
      relations: [0, 1, 10, 11, 12, 13].map((g, i) => ({ from: `Gear ${g}`, to: `Bolt ${i}`, relationType: "holds" })),
    });
    const search = async (args: Record<string, unknown>) => {
      const r = await agent.call("search_nodes", args);
      expect(r.isError).toBeFalsy();
      const sc = r.structuredContent as Answer;
      expect(sc._accounting.wire_chars).toBe(charCount(JSON.stringify(sc)));
      // The text block is exactly the result's JSON (spliced by the pack, not serialized again).
      expect(r.content).toEqual([{ type: "text", text: JSON.stringify(sc) }]);
      return sc;
    };

    const full = await search({ query: "gear", budget: 1_000_000 });
    expect(full._accounting).toMatchObject({ entities_considered: 20, entities_returned: 20, truncated: false });
    const gears = full.entities.filter((e) => e.name.startsWith("Gear"));
    const bolts = full.entities.filter((e) => e.name.startsWith("Bolt"));
    expect(gears).toHaveLength(14);
    expect(bolts).toHaveLength(6);
    // Matched on the name only, and neighbours: both show their first observations, in order.
    for (const e of gears) {
      const i = Number(e.name.split(" ")[1]);
      expect(e._evidence_status).toBe("name_match");
      expect(e.observations).toEqual([obs(i, 1), obs(i, 2)].slice(0, PLAIN_WINDOWS));
    }
    for (const e of bolts) {
      const i = Number(e.name.split(" ")[1]);
      expect(e._evidence_status).toBe("neighbour");
      expect(e.observations).toEqual([obs(100 + i, 1), obs(100 + i, 2)]);
    }

    const budgets = new Set<number>([0, 1, full._accounting.wire_chars, full._accounting.wire_chars - 1]);
    for (let b = 100; b < full._accounting.wire_chars; b += 97) budgets.add(b);
    const counts = new Set<number>();
    for (const budget of budgets) {
      const part = await search({ query: "gear", budget });
      const n = part.entities.length;
      expect(part.entities).toEqual(full.entities.slice(0, n));
      expect(part._accounting).toMatchObject({
        entities_considered: 20,
        entities_returned: n,
        truncated: n < 20,
        budget_wire_chars: budget,
        observations_returned: part.entities.reduce((s, e) => s + e.observations.length, 0),
      });
      if (n > 0) expect(part._accounting.wire_chars).toBeLessThanOrEqual(budget);
      counts.add(n);
    }
    // The sweep cut the pack everywhere: inside the name matches and inside the neighbours.
    expect(counts.has(0) && counts.has(20) && counts.has(10) && counts.has(16)).toBe(true);
  });
});
