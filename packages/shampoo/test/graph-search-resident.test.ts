import { directStatements, type Kysely, sql } from "kernel";
import { rng } from "kernel/rng.ts";
import { openDatabase } from "kernel/store/db.ts";
import { afterEach, describe, expect, it } from "vitest";
import { shampooOn } from "../src/app.ts";
import { configureResidentSearch, residentStats, wordsOf } from "../src/domains/graph/resident.ts";
import type { ShampooDB } from "../src/store/schema.ts";
import { type Agent, type Harness, harness } from "./support/shampoo.ts";

/**
 * The resident search index (domains/graph/resident.ts, SQLite only: PostgreSQL always answers
 * with its statements) must give exactly the answers of the statements it replaces. Each test
 * builds a graph through the tools, then asks the same searches with the index on and off.
 */

/**
 * Few words, so that probes overlap, cap and cross; accented, non-Latin and digit words among
 * them, and one without a word character (an observation of nothing else has no words).
 */
const WORDS = [
  "alpha",
  "Alphabet",
  "alpine",
  "ALPS",
  "beta",
  "betamax",
  "gamma",
  "delta",
  "Vendor",
  "vend",
  "stale",
  "café",
  "cafe",
  "CAFÉS",
  "naïve",
  "Straße",
  "東京",
  "øre",
  "ǅemal",
  "x7",
  "x70",
  "the",
  "and",
  "42",
  "ab_cd",
  "—!?",
];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const phrase = (r: () => number, n: number) => Array.from({ length: n }, () => pick(r, WORDS)).join(" ");

const QUERIES = [
  "alpha",
  "alp",
  "alph",
  "beta gamma",
  "vend",
  "stale vend",
  "cafe",
  "café",
  "cafés",
  "naive",
  "strasse",
  "東京",
  "ore",
  "øre",
  "x7",
  "the",
  "the and",
  "42",
  "ab",
  "cd",
  "delta alpha beta",
  "nothingmatches",
  "",
  "alpha 3",
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The same search with the index off, then on; the on answer must be the off one. */
async function same(a: Agent, query: string, database: object): Promise<Record<string, unknown>> {
  configureResidentSearch(database, { enabled: false });
  const off = await a.call("search_nodes", { query });
  configureResidentSearch(database, { enabled: true });
  const on = await a.call("search_nodes", { query });
  expect(on, `query ${JSON.stringify(query)}`).toEqual(off);
  return on.structuredContent as Record<string, unknown>;
}

describe("resident search index (sqlite)", () => {
  it("answers every search exactly as the statements do, through writes, voids and revivals", async () => {
    h = await harness("sqlite");
    const database = h.shampoo.database;
    const r = rng(7);
    const owner = await h.as({ principal: "ana", grants: ["*", ""] });
    const other = await h.as({ principal: "bo", grants: ["*", ""] });
    const narrow = await h.as({ principal: "cy", grants: ["p1"] });
    const untagged = await h.as({ principal: "di", grants: [""] });
    const agents = [owner, other, narrow, untagged];
    const names: string[] = [];
    const round = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const who = pick(r, [owner, other]);
        const name = `${phrase(r, 2)} ${names.length}`;
        names.push(name);
        const project = pick(r, ["p1", "p2", undefined]);
        await who.sc("create_entities", {
          entities: [
            {
              name,
              entityType: pick(r, ["person", "vendor", "café", "alpha"]),
              observations: Array.from({ length: 1 + Math.floor(r() * 4) }, () => phrase(r, 3 + Math.floor(r() * 6))),
              aliases: r() < 0.3 ? [phrase(r, 2)] : [],
              ...(project ? { project } : {}),
              ...(r() < 0.25 ? { visibility: "private" } : {}),
            },
          ],
        });
      }
      for (let i = 0; i < n / 2; i++) {
        await owner.sc("create_relations", {
          relations: [{ from: pick(r, names), to: pick(r, names), relationType: pick(r, ["knows", "uses"]) }],
        });
      }
      for (let i = 0; i < n / 3; i++) {
        await owner.sc("add_observations", {
          observations: [{ entityName: pick(r, names), contents: [phrase(r, 4)] }],
        });
      }
    };
    const check = async () => {
      for (const a of agents) for (const q of QUERIES) await same(a, q, database);
      // Names (exact-name bonus) and the words of some of them.
      for (let i = 0; i < 6; i++) await same(owner, pick(r, names), database);
    };

    await round(30);
    // Long observations: heads cut at 500 code points (astral characters before the cut), a hit
    // past the head (refill), and one entirely past it.
    const long = `${"😀 beta ".repeat(70)}alpha gamma`;
    await owner.sc("create_entities", {
      entities: [{ name: "Long Story", entityType: "story", observations: [long, `delta ${"x".repeat(600)}`] }],
    });
    names.push("Long Story");
    await check();
    const built = residentStats(database);
    expect(built.builds).toBe(1);

    // Voids (entities, observations, relations), revivals and new rows: the index follows.
    const gone = names.slice(0, 5);
    await owner.sc("delete_entities", { entityNames: gone.slice(0, 3) });
    const opened = (await owner.sc("open_nodes", { names: names.slice(5, 8) })) as {
      entities: { name: string; observations: string[] }[];
      relations: { from: string; to: string; relationType: string }[];
    };
    await owner.sc("delete_observations", {
      deletions: opened.entities.map((e) => ({ entityName: e.name, observations: e.observations.slice(0, 1) })),
    });
    if (opened.relations.length > 0) await owner.sc("delete_relations", { relations: opened.relations.slice(0, 1) });
    await check();
    await round(12);
    await check();
    await owner.sc("create_entities", {
      entities: [{ name: gone[0], entityType: "person", observations: ["alpha revived café"] }],
    });
    // A voided observation added again comes back in its old place (before the later ones).
    await owner.sc("add_observations", {
      observations: opened.entities.map((e) => ({ entityName: e.name, contents: e.observations.slice(0, 1) })),
    });
    await check();

    const after = residentStats(database);
    expect(after.builds).toBe(1); // every change since came through the history
    expect(after.refreshes).toBe(3); // voids, the second round, the revivals
    expect(after.served).toBeGreaterThan(built.served);
  });

  it("keeps each profile apart: one index per profile, each following only its own events", async () => {
    h = await harness("sqlite");
    const database = h.shampoo.database;
    const a = await h.as({ principal: "ana", grants: ["*", ""], profile: "north" });
    const b = await h.as({ principal: "bo", grants: ["*", ""], profile: "south" });
    await a.sc("create_entities", { entities: [{ name: "Alpha North", entityType: "t", observations: ["alpha"] }] });
    await b.sc("create_entities", { entities: [{ name: "Alpha South", entityType: "t", observations: ["alpha"] }] });
    const names = async (who: Agent) =>
      ((await same(who, "alpha", database)).entities as { name: string }[]).map((e) => e.name);
    expect(await names(a)).toEqual(["Alpha North"]);
    expect(await names(b)).toEqual(["Alpha South"]);
    expect(residentStats(database).builds).toBe(2);
    // South's writes move the history; north catches up on none of them and still answers alone.
    await b.sc("add_observations", { observations: [{ entityName: "Alpha South", contents: ["alpha again"] }] });
    await b.sc("create_entities", { entities: [{ name: "Alpha Two", entityType: "t", observations: ["alpha"] }] });
    expect(await names(a)).toEqual(["Alpha North"]);
    expect((await names(b)).sort()).toEqual(["Alpha South", "Alpha Two"]);
    expect(residentStats(database).builds).toBe(2);
  });

  it("follows writes another database handle commits (another process)", async () => {
    h = await harness("sqlite");
    const a = await h.as({ principal: "ana", grants: ["*", ""] });
    await a.sc("create_entities", {
      entities: [{ name: "Stale Vendor", entityType: "vendor", observations: ["ships alpha weekly"] }],
    });
    expect(((await same(a, "alpha", h.shampoo.database)).entities as unknown[]).length).toBe(1);
    const second = await openDatabase<ShampooDB>(h.db.target);
    try {
      const b = shampooOn(second);
      const ctx = b.mcp.context({
        sessionId: "second",
        transport: "memory",
        clientInfo: () => undefined,
        log: async () => {},
      });
      const wrote = await b.registry.call(
        "create_entities",
        { entities: [{ name: "Alpha Works", entityType: "org", observations: ["alpha beta"] }] },
        ctx,
      );
      expect(wrote.isError).toBeFalsy();
      const served = residentStats(h.shampoo.database).served;
      const found = await same(a, "alpha", h.shampoo.database);
      expect((found.entities as { name: string }[]).map((e) => e.name).sort()).toEqual(["Alpha Works", "Stale Vendor"]);
      expect(residentStats(h.shampoo.database).served).toBeGreaterThan(served);
    } finally {
      await second.close();
    }
  });

  it("keeps a profile over its limit on the statements, and rebuilds after a burst of changes", async () => {
    h = await harness("sqlite");
    const database = h.shampoo.database;
    const a = await h.as({ principal: "ana", grants: ["*", ""] });
    configureResidentSearch(database, { maxObservations: 3, rebuildAfter: 4 });
    await a.sc("create_entities", {
      entities: [{ name: "One", entityType: "t", observations: ["alpha one", "alpha two"] }],
    });
    await same(a, "alpha", database);
    expect(residentStats(database)).toMatchObject({ builds: 1, tooLarge: 0 });
    // Over the limit: the index lets go and the statements answer.
    await a.sc("add_observations", { observations: [{ entityName: "One", contents: ["alpha three", "alpha four"] }] });
    const served = residentStats(database).served;
    const big = await same(a, "alpha", database);
    expect((big.entities as { observations: string[] }[])[0]?.observations).toHaveLength(3);
    expect(residentStats(database)).toMatchObject({ tooLarge: 1, served });
    // Looked at again after `recheckAfter` more changes: under the limit now, built anew.
    configureResidentSearch(database, { maxObservations: 100, recheckAfter: 1 });
    await a.sc("create_entities", { entities: [{ name: "Two", entityType: "t", observations: ["alpha five"] }] });
    await same(a, "alpha", database);
    expect(residentStats(database)).toMatchObject({ builds: 3, tooLarge: 1 });
    // A burst of more changes than rebuildAfter: built anew, not patched row by row.
    await a.sc("create_entities", {
      entities: ["A", "B", "C", "D", "E"].map((n) => ({ name: n, entityType: "t", observations: [`alpha ${n}`] })),
    });
    await same(a, "alpha", database);
    expect(residentStats(database)).toMatchObject({ builds: 4, refreshes: 0 });
  });

  it("lets go of a profile when it fails, and the statements answer", async () => {
    h = await harness("sqlite");
    const database = h.shampoo.database;
    const a = await h.as({ principal: "ana", grants: ["*", ""] });
    await a.sc("create_entities", { entities: [{ name: "Kept", entityType: "t", observations: ["alpha kept"] }] });
    await same(a, "alpha", database);
    const served = residentStats(database).served;
    const errors: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => errors.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      await sql`DROP TABLE shampoo_history`.execute(h.db.db);
      const found = await same(a, "alpha", database);
      expect((found.entities as { name: string }[]).map((e) => e.name)).toEqual(["Kept"]);
    } finally {
      process.stderr.write = write;
    }
    expect(residentStats(database).served).toBe(served);
    expect(errors.join("")).toMatch(/resident search index dropped for a profile .*no such table: shampoo_history/);
  });

  it("cuts ASCII text into exactly the words FTS5's tokenizer makes of it", async () => {
    h = await harness("sqlite");
    const r = rng(11);
    const chars = "abcXYZ019 _-.,;:'\"!?()[]{}*/\\\n\t@#$%^&+=<>|~`";
    const texts = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + Math.floor(r() * 40) }, () => pick(r, [...chars])).join(""),
    );
    // The same texts with one non-ASCII character make wordsOf ask FTS5 itself.
    const viaFts = texts.map((t) => `${t} é`);
    await h.db.transaction(async (trx) => {
      const raw = directStatements(trx as Kysely<unknown>);
      if (!raw) throw new Error("no direct statements inside a SQLite transaction");
      const ours = wordsOf(raw, texts);
      const fts = wordsOf(raw, viaFts);
      texts.forEach((t, i) => {
        expect([...(ours[i] as string[])].sort(), JSON.stringify(t)).toEqual(
          (fts[i] as string[]).filter((w) => w !== "e").sort(),
        );
      });
    });
  });
});
