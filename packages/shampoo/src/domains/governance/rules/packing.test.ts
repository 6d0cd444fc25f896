import { rng } from "kernel/rng.ts";
import { describe, expect, it } from "vitest";
import { budgetOf, type Candidate, ITEM_KINDS, PACK_TYPES, pack, packRanked, rank } from "./packing.ts";
import { tokens } from "./text.ts";

const NOW = Date.parse("2026-11-30T12:00:00.000Z");

function randomMemories(seed: number, n: number): Candidate[] {
  const r = rng(seed);
  const words = [
    "gateway",
    "uses",
    "PostgreSQL",
    "queue",
    "worker",
    "the",
    "cache",
    "is",
    "Redis",
    "deploy",
    "ä",
    "🚀",
  ];
  return Array.from({ length: n }, (_, i) => ({
    kind: ITEM_KINDS[Math.floor(r() * ITEM_KINDS.length)] as Candidate["kind"],
    ref: `r${i}`,
    text: Array.from({ length: 1 + Math.floor(r() * 120) }, () => words[Math.floor(r() * words.length)]).join(" "),
    at: new Date(NOW - Math.floor(r() * 90 * 86_400_000)).toISOString(),
    quality: Math.round(r() * 100) / 100,
    relevance: r() < 0.2 ? 1 : 0.5,
    scope: ["memory", "bridge", "export", null][Math.floor(r() * 4)] ?? null,
  }));
}

describe("context packing", () => {
  it("never exceeds its budget over 10,000 random memories, for every role and many budgets", () => {
    const memories = randomMemories(17, 10_000);
    const r = rng(4);
    for (const role of PACK_TYPES) {
      const ranked = rank(role, memories, NOW);
      for (const budget of [0, 1, 7, 50, 333, 4000, 20_000, Math.floor(r() * 9000)]) {
        const p = packRanked(role, ranked, budget);
        expect(tokens(p.body)).toBe(p.token_usage);
        expect(p.token_usage).toBeLessThanOrEqual(Math.max(0, budget));
        if (budget >= 4000) expect(p.items.length).toBeGreaterThan(0);
      }
    }
  });
  it("identical state gives byte-identical packs, whatever the input order", () => {
    const memories = randomMemories(99, 2000);
    const a = pack("planner", memories, NOW, 4000);
    const b = pack("planner", [...memories].reverse(), NOW, 4000);
    expect(b.body).toBe(a.body);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });
  it("greedy by score: a fresher, more relevant, better item goes first; roles weigh kinds", () => {
    const c = (kind: Candidate["kind"], ref: string, days: number, q: number, rel = 0.5): Candidate => ({
      kind,
      ref,
      text: `${kind} ${ref}`,
      at: new Date(NOW - days * 86_400_000).toISOString(),
      quality: q,
      relevance: rel,
    });
    const items = [
      c("fact", "old", 60, 0.5),
      c("fact", "new", 0, 0.9, 1),
      c("claim", "x", 0, 0.9),
      c("task", "t", 1, 0.6),
    ];
    expect(pack("reviewer", items, NOW, 4000).items.map((i) => i.ref)).toEqual(["x", "new", "old", "t"]);
    expect(pack("executor", items, NOW, 4000).items[0]?.ref).toBe("new");
    // A budget that holds the title and one item takes only the best one (claims weigh most for reviewers).
    const one = pack("reviewer", items, NOW, 16);
    expect(one.items.map((i) => i.ref)).toEqual(["x"]);
    expect(one.body).toBe("# Reviewer pack\n\n## Candidate claims\n- claim x\n");
  });
  it("unset or 0 budget means 4000; a negative one selects nothing", () => {
    expect([budgetOf(undefined), budgetOf(0), budgetOf(-5), budgetOf(12)]).toEqual([4000, 4000, -5, 12]);
    expect(pack("handoff", randomMemories(1, 50), NOW, -5)).toMatchObject({ body: "", items: [] });
  });
});
