import { sql } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openShampoo } from "../../src/app.ts";
import { ACCESS_BATCH, flushAccessNotes, noteAccess } from "../../src/domains/graph/store/access.ts";
import { type Harness, harness } from "../support/shampoo.ts";

/** Knowledge-graph reads: open_nodes, read_graph paging, and the best-effort access note. */

describe.each(DIALECTS)("knowledge-graph reads on %s", (dialect) => {
  let h: Harness;
  let n = 0;
  /** A fresh caller with its own project (and, for untagged content, its own profile). */
  const fresh = async (extra: string[] = [], profile?: string) => {
    const p = `r${++n}`;
    return {
      agent: await h.as({ principal: `reader${n}`, grants: [p, ...extra], ...(profile ? { profile } : {}) }),
      p,
    };
  };
  const accessRows = () => h.db.db.selectFrom("shampoo_graph_access").selectAll().orderBy("seq").execute();
  const historyCount = async () =>
    Number(
      (
        await h.db.db
          .selectFrom("shampoo_history")
          .select((eb) => eb.fn.countAll<number>().as("c"))
          .executeTakeFirstOrThrow()
      ).c,
    );

  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("open_nodes: observations in order, project only when set, relations only inside the opened set", async () => {
    const { agent, p } = await fresh([""]);
    await agent.sc("create_entities", {
      entities: [
        { name: "Open A", entityType: "t", observations: ["a1", "a2", "a3"], project: p },
        { name: "Open B", entityType: "t", project: p },
        { name: "Open C", entityType: "t", observations: ["c1"] },
      ],
    });
    await agent.sc("create_relations", {
      relations: [
        { from: "Open A", to: "Open B", relationType: "r1" },
        { from: "Open B", to: "Open C", relationType: "r2" },
      ],
    });
    expect(await agent.sc("open_nodes", { names: ["Open C", 42, null, "Open A", "open a", "Nobody"] })).toEqual({
      entities: [
        { name: "Open C", entityType: "t", observations: ["c1"] },
        { name: "Open A", entityType: "t", observations: ["a1", "a2", "a3"], project: p },
      ],
      relations: [],
    });
    expect((await agent.sc("open_nodes", { names: ["Open A", "Open B"] })).relations).toEqual([
      { from: "Open A", to: "Open B", relationType: "r1" },
    ]);
    // A single opened entity computes no relations, even self-loops.
    await agent.sc("create_relations", { relations: [{ from: "Open A", to: "Open A", relationType: "self" }] });
    expect((await agent.sc("open_nodes", { names: ["Open A"] })).relations).toEqual([]);
    const r = await agent.call("open_nodes", { names: [] });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ entities: [], relations: [] });
  });

  it("read_graph pages in name order with total and has_more (default page 500)", async () => {
    const { agent, p } = await fresh();
    const names = Array.from({ length: 503 }, (_, i) => `Page ${String(i).padStart(4, "0")}`);
    await agent.sc("create_entities", {
      entities: names.map((name, i) => ({
        name,
        entityType: "page",
        observations: i < 2 ? [`obs ${i}`] : [],
        project: p,
      })),
    });
    await agent.sc("create_relations", { relations: [{ from: "Page 0502", to: "Page 0000", relationType: "wraps" }] });
    const first = await agent.sc("read_graph", {});
    expect(first.total).toBe(503);
    expect(first.has_more).toBe(true);
    const ents = first.entities as { name: string; project: string | null; observations: string[] }[];
    expect(ents).toHaveLength(500);
    expect(ents.map((e) => e.name)).toEqual(names.slice(0, 500));
    expect(ents[0]).toEqual({ name: "Page 0000", entityType: "page", project: p, observations: ["obs 0"] });
    // The relation is listed on the page of its `from` endpoint only.
    expect(first.relations).toEqual([]);
    const last = await agent.sc("read_graph", { offset: 500 });
    expect((last.entities as { name: string }[]).map((e) => e.name)).toEqual(names.slice(500));
    expect(last).toMatchObject({ total: 503, has_more: false });
    expect(last.relations).toEqual([{ from: "Page 0502", to: "Page 0000", relationType: "wraps" }]);
    const mid = await agent.sc("read_graph", { limit: 2, offset: 1 });
    expect((mid.entities as { name: string }[]).map((e) => e.name)).toEqual(["Page 0001", "Page 0002"]);
    expect(mid.has_more).toBe(true);
    expect(await agent.sc("read_graph", { offset: 9999 })).toEqual({
      entities: [],
      relations: [],
      total: 503,
      has_more: false,
    });
    // Out-of-range values clamp: limit to 1..1000, offset to >= 0.
    expect((await agent.sc("read_graph", { limit: 0, offset: -5 })).entities).toHaveLength(1);
  });

  it("read_graph shows project null when unset, hides retired content and foreign endpoints", async () => {
    const { agent, p } = await fresh([""], "isolated");
    const { agent: other, p: q } = await fresh([], "isolated");
    await other.sc("create_entities", { entities: [{ name: "Elsewhere", entityType: "t", project: q }] });
    await agent.sc("create_entities", {
      entities: [
        { name: "G Loose", entityType: "t", observations: ["keep", "drop"] },
        { name: "G Gone", entityType: "t", project: p },
      ],
    });
    await agent.sc("create_relations", { relations: [{ from: "G Loose", to: "G Gone", relationType: "r" }] });
    await agent.sc("delete_observations", { deletions: [{ entityName: "G Loose", observations: ["drop"] }] });
    await agent.sc("delete_entities", { entityNames: ["G Gone"] });
    expect(await agent.sc("read_graph", {})).toEqual({
      entities: [{ name: "G Loose", entityType: "t", project: null, observations: ["keep"] }],
      relations: [],
      total: 1,
      has_more: false,
    });
    // No visible scope: an empty snapshot, never a denial.
    const nobody = await h.as({ principal: `nobody${n}`, grants: [] });
    const r = await nobody.call("read_graph", {});
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ entities: [], relations: [], total: 0, has_more: false });
  });

  it("notes each read best-effort (who, which tool, which entities) without touching history", async () => {
    const { agent, p } = await fresh();
    const c = await agent.sc("create_entities", {
      entities: [{ name: "Noted", entityType: "t", observations: ["noted fact"], project: p }],
    });
    const id = (c.entity_ids as string[])[0];
    const hist = await historyCount();
    await flushAccessNotes(h.shampoo.database); // earlier tests' notes
    const before = (await accessRows()).length;
    await agent.sc("open_nodes", { names: ["Noted"] });
    await agent.sc("read_graph", {});
    await agent.sc("search_nodes", { query: "noted" });
    await agent.sc("search_by_project", { query: "noted", project: p });
    // Notes are queued and written together shortly after the reads (access.ts).
    await flushAccessNotes(h.shampoo.database);
    const rows = (await accessRows()).slice(before);
    expect(rows.map((r) => r.tool)).toEqual(["open_nodes", "read_graph", "search_nodes"]);
    for (const r of rows) {
      expect(r.principal).toBe(agent.caller.principal);
      expect(r.profile).toBe("default");
      expect(JSON.parse(r.entity_ids)).toEqual([id]);
    }
    expect(await historyCount()).toBe(hist);
  });

  it("writes queued notes by itself shortly after, at once past a batch, and when the server closes", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", { entities: [{ name: "Later", entityType: "t", project: p }] });
    await flushAccessNotes(h.shampoo.database); // earlier tests' notes
    const before = (await accessRows()).length;
    await agent.sc("open_nodes", { names: ["Later"] });
    await vi.waitFor(async () => expect((await accessRows()).length).toBe(before + 1));
    // A full batch is written without waiting for the timer.
    const ctx = {
      caller: agent.caller,
      source: { tool: "", session: "batch" },
      clock: h.clock,
      database: h.shampoo.database,
    };
    for (let i = 0; i < ACCESS_BATCH; i++) noteAccess(ctx, "open_nodes", []);
    await flushAccessNotes(h.shampoo.database);
    expect((await accessRows()).length).toBe(before + 1 + ACCESS_BATCH);
    // close() writes what is still waiting.
    const own = await openShampoo(h.db.pgSchema ? { db: h.db.target, pgSchema: h.db.pgSchema } : { db: h.db.target });
    const ownCtx = own.mcp.context({
      sessionId: "own",
      transport: "memory",
      clientInfo: () => undefined,
      log: async () => {},
    });
    expect((await own.registry.call("read_graph", {}, ownCtx)).isError).toBeFalsy();
    await own.close();
    expect((await accessRows()).length).toBe(before + 2 + ACCESS_BATCH);
  });

  it("never fails a read when the access note cannot be written", async () => {
    const own = await harness(dialect);
    try {
      const a = await own.as({ principal: "solo", grants: ["solo"] });
      await a.sc("create_entities", {
        entities: [{ name: "Sturdy", entityType: "t", observations: ["x"], project: "solo" }],
      });
      const expected = await a.sc("open_nodes", { names: ["Sturdy"] });
      await sql`DROP TABLE shampoo_graph_access`.execute(own.db.db);
      expect(await a.sc("open_nodes", { names: ["Sturdy"] })).toEqual(expected);
      expect((await a.sc("read_graph", {})).total).toBe(1);
      expect((await a.sc("search_nodes", { query: "sturdy" }))._accounting).toMatchObject({ entities_returned: 1 });
      await expect(flushAccessNotes(own.shampoo.database)).resolves.toBeUndefined(); // the lost notes, silently
    } finally {
      await own.close();
    }
  });
});
