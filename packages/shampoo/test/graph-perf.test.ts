import { randomUUID } from "node:crypto";
import { type DialectName, iso, ManualClock } from "kernel";
import { DIALECTS, openTestDatabase, type TestDb } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localCaller } from "../src/access/caller.ts";
import { migrateShampoo, type Shampoo, shampooOn } from "../src/app.ts";
import type { ShampooCtx } from "../src/context.ts";
import { contentHash, normalizeName } from "../src/domains/graph/model.ts";
import type { ShampooDB } from "../src/store/schema.ts";

/**
 * search_nodes at scale. The full run (100,000 entities, 500,000 observations, as the issue
 * targets) takes minutes to build, so it runs only with SHAMPOO_GRAPH_PERF=1 (optionally
 * SHAMPOO_GRAPH_PERF_ENTITIES=N). It builds a synthetic corpus with a Zipf-distributed vocabulary
 * straight into the tables (the FTS triggers and generated columns index it as in production),
 * then times search_nodes through the tool registry in-process (name lookups, one-, two- and
 * three-word queries; a warm-up pass first) and asserts wall-clock p95 < 10 ms.
 */
const ENABLED = process.env.SHAMPOO_GRAPH_PERF === "1";
const ENTITIES = Number(process.env.SHAMPOO_GRAPH_PERF_ENTITIES ?? 100_000);
const OBS_PER_ENTITY = 5;
const VOCAB = 30_000;
const QUERIES = 400;

/** Deterministic PRNG (mulberry32). */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(seed: number) {
  const r = rng(seed);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < VOCAB) {
    const len = 3 + Math.floor(r() * 8);
    let w = "";
    for (let i = 0; i < len; i++) w += letters[Math.floor(r() * 26)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  // Zipf(1.0) sampling through the cumulative harmonic weights.
  const cum: number[] = [];
  let total = 0;
  for (let i = 0; i < VOCAB; i++) {
    total += 1 / (i + 1);
    cum.push(total);
  }
  const word = () => {
    const x = r() * total;
    let lo = 0;
    let hi = VOCAB - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cum[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo] as string;
  };
  return { r, word, words };
}

async function build(db: TestDb<ShampooDB>, n: number) {
  const { r, word } = corpus(42);
  const now = iso(Date.parse("2026-11-30T12:00:00Z"));
  const projects = ["alpha", "beta", "gamma", "delta"];
  const batch = db.dialect === "sqlite" ? 2000 : 1000;
  const names: string[] = [];
  for (let i = 0; i < n; i += batch) {
    await db.db.transaction().execute(async (trx) => {
      const ents = [];
      const obs = [];
      for (let j = i; j < Math.min(n, i + batch); j++) {
        const name = `${word()} ${word()} ${j}`;
        names.push(name);
        const id = randomUUID();
        ents.push({
          id,
          profile: "default",
          project: projects[j % projects.length] as string,
          name,
          name_norm: normalizeName(name),
          entity_type: ["person", "org", "place", "project", "tool"][Math.floor(r() * 5)] as string,
          alias_text: "",
          visibility: "shared" as const,
          status: "active" as const,
          created_at: now,
          created_by: "bench",
          updated_at: now,
          voided_at: null,
          voided_by: null,
          last_event_id: "bench",
        });
        for (let k = 0; k < OBS_PER_ENTITY; k++) {
          const len = 8 + Math.floor(r() * 12);
          const content = Array.from({ length: len }, word).join(" ");
          obs.push({
            id: randomUUID(),
            entity_id: id,
            profile: "default",
            content,
            content_hash: contentHash(content),
            ord: k + 1,
            status: "active" as const,
            created_at: now,
            created_by: "bench",
            voided_at: null,
            voided_by: null,
            last_event_id: "bench",
          });
        }
      }
      for (let k = 0; k < ents.length; k += 500)
        await trx
          .insertInto("shampoo_entities")
          .values(ents.slice(k, k + 500))
          .execute();
      for (let k = 0; k < obs.length; k += 500)
        await trx
          .insertInto("shampoo_observations")
          .values(obs.slice(k, k + 500))
          .execute();
    });
  }
  return names;
}

describe.runIf(ENABLED).each(DIALECTS as DialectName[])("search_nodes at scale on %s", (dialect) => {
  let db: TestDb<ShampooDB>;
  let shampoo: Shampoo;
  let names: string[];
  beforeAll(async () => {
    db = await openTestDatabase<ShampooDB>(dialect);
    await migrateShampoo(db);
    const t0 = performance.now();
    names = await build(db, ENTITIES);
    if (dialect === "postgres") {
      const { sql } = await import("kernel");
      await sql`ANALYZE`.execute(db.db);
    }
    console.log(`${dialect}: built ${ENTITIES} entities in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    shampoo = shampooOn(db, { clock: new ManualClock() });
  }, 3_600_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("answers p95 under 10 ms", async () => {
    const { r, word } = corpus(7);
    const ctx: ShampooCtx = {
      caller: localCaller(),
      source: { tool: "" },
      clock: new ManualClock(),
      database: db,
    };
    const queries: string[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const kind = i % 4;
      if (kind === 0) queries.push(names[Math.floor(r() * names.length)] as string);
      else if (kind === 1) queries.push(word());
      else queries.push(`${word()} ${word()}${kind === 3 ? ` ${word()}` : ""}`);
    }
    // One full pass warms the JIT and the page cache; the second pass is measured.
    for (const q of queries) await shampoo.registry.call("search_nodes", { query: q }, ctx);
    const times: number[] = [];
    const cpu: number[] = [];
    const byKind: number[][] = [[], [], [], []];
    for (const [i, q] of queries.entries()) {
      const t = performance.now();
      const c = process.cpuUsage();
      const out = await shampoo.registry.call("search_nodes", { query: q }, ctx);
      const d = process.cpuUsage(c);
      const dt = performance.now() - t;
      times.push(dt);
      cpu.push((d.user + d.system) / 1000);
      byKind[i % 4]?.push(dt);
      expect(out.isError).toBeFalsy();
    }
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)] as number;
    console.log(
      `${dialect}: wall p50 ${pct(times, 0.5).toFixed(2)} ms, p95 ${pct(times, 0.95).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms; ` +
        `process CPU p50 ${pct(cpu, 0.5).toFixed(2)} ms, p95 ${pct(cpu, 0.95).toFixed(2)} ms;`,
      byKind.map((k, i) => `kind${i} p95 ${pct(k, 0.95).toFixed(2)}`).join(", "),
    );
    // The target holds on a machine of its own; on a shared one, wall time also counts waiting
    // for a CPU (compare the process CPU time printed above).
    expect(pct(times, 0.95)).toBeLessThan(10);
  }, 600_000);
});
