import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCaller } from "../../src/access/caller.ts";
import type { ShampooCtx } from "../../src/context.ts";
import {
  exportMemoryJsonl,
  exportMemoryJsonlText,
  importMemoryJsonl,
  type JsonlProgress,
} from "../../src/domains/graph/service/jsonl.ts";
import { type Harness, harness } from "../support/shampoo.ts";

/** memory.jsonl (the reference MCP memory server's file) in and out of one project. */

type Graph = {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
};

/** Order-insensitive view of a graph, for comparing two stores. */
const canon = (g: Graph) => ({
  entities: g.entities
    .map((e) => ({ name: e.name, entityType: e.entityType, observations: [...e.observations] }))
    .sort((a, b) => (a.name < b.name ? -1 : 1)),
  relations: g.relations
    .map((r) => ({ from: r.from, to: r.to, relationType: r.relationType }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});

const SAMPLE = [
  {
    type: "entity",
    name: "John_Smith",
    entityType: "person",
    observations: ["Speaks fluent Spanish", "Graduated in 2019"],
  },
  { type: "entity", name: "Anthropic", entityType: "organization", observations: [] },
  { type: "entity", name: "Café Zoë", entityType: "place", observations: ["Serves crème brûlée", "Opens at 7"] },
  { type: "relation", from: "John_Smith", to: "Anthropic", relationType: "works_at" },
  { type: "relation", from: "John_Smith", to: "Café Zoë", relationType: "visits" },
  { type: "relation", from: "John_Smith", to: "Nobody Known", relationType: "knows" },
]
  .map((l) => JSON.stringify(l))
  .join("\n");

describe.each(DIALECTS)("memory.jsonl import/export on %s", (dialect) => {
  let h: Harness;
  let n = 0;
  const ctxFor = (project: string, grants: string[] = [project]): ShampooCtx => ({
    caller: makeCaller({ principal: `importer${++n}`, role: "agent", profile: `jsonl${n}`, grants }),
    source: { tool: "" },
    clock: h.clock,
    database: h.db,
  });

  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("round-trips a file through a project, idempotently, with progress", async () => {
    const ctx = ctxFor("mem");
    const seen: JsonlProgress[] = [];
    const report = await importMemoryJsonl(ctx, `${SAMPLE}\n\n{"type":"other","x":1}\n`, {
      project: "mem",
      onProgress: (p) => seen.push({ ...p }),
      batchSize: 2,
    });
    expect(report).toEqual({
      project: "mem",
      lines: 7,
      skipped_lines: 1,
      entities: 3,
      entities_created: 3,
      observations_added: 4,
      relations: 3,
      relations_created: 2,
      relations_skipped: 1,
    });
    expect(seen.filter((p) => p.phase === "entities").map((p) => [p.done, p.total])).toEqual([
      [2, 3],
      [3, 3],
    ]);
    expect(seen.filter((p) => p.phase === "relations").at(-1)).toEqual({ phase: "relations", done: 3, total: 3 });
    // Every write went through the canonical path with its history events.
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select(["source_json"])
      .where("profile", "=", ctx.caller.profile)
      .execute();
    expect(events).toHaveLength(3 + 4 + 2);
    expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("import_memory_jsonl");

    const text = await exportMemoryJsonlText(ctx, "mem");
    const lines = text.split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { type: "entity", name: "Anthropic", entityType: "organization", observations: [] },
      { type: "entity", name: "Café Zoë", entityType: "place", observations: ["Serves crème brûlée", "Opens at 7"] },
      {
        type: "entity",
        name: "John_Smith",
        entityType: "person",
        observations: ["Speaks fluent Spanish", "Graduated in 2019"],
      },
      { type: "relation", from: "John_Smith", to: "Anthropic", relationType: "works_at" },
      { type: "relation", from: "John_Smith", to: "Café Zoë", relationType: "visits" },
    ]);
    // Importing the export again changes nothing.
    const again = await importMemoryJsonl(ctx, text.split("\n"), { project: "mem" });
    expect(again).toMatchObject({ entities_created: 0, observations_added: 0, relations_created: 0 });
    expect(await exportMemoryJsonlText(ctx, "mem")).toBe(text);
  });

  it("exports one project only, in pages, skipping relations that leave it", async () => {
    const ctx = ctxFor("a", ["a", "b"]);
    await importMemoryJsonl(
      ctx,
      [
        '{"type":"entity","name":"B1","entityType":"t","observations":[]}',
        '{"type":"entity","name":"B2","entityType":"t","observations":[]}',
      ],
      { project: "b" },
    );
    const a = Array.from({ length: 7 }, (_, i) => ({
      type: "entity",
      name: `A${i}`,
      entityType: "t",
      observations: [`o${i}`],
    }));
    await importMemoryJsonl(
      ctx,
      [
        ...a.map((x) => JSON.stringify(x)),
        JSON.stringify({ type: "relation", from: "A0", to: "A6", relationType: "next" }),
        JSON.stringify({ type: "relation", from: "A1", to: "B1", relationType: "crosses" }),
      ],
      { project: "a" },
    );
    const lines: string[] = [];
    const progress: JsonlProgress[] = [];
    const r = await exportMemoryJsonl(ctx, {
      project: "a",
      pageSize: 3,
      write: async (l) => {
        lines.push(l);
      },
      onProgress: (p) => progress.push({ ...p }),
    });
    expect(r).toEqual({ project: "a", entities: 7, relations: 1 });
    expect(lines.map((l) => JSON.parse(l).name ?? JSON.parse(l).relationType)).toEqual([
      "A0",
      "A1",
      "A2",
      "A3",
      "A4",
      "A5",
      "A6",
      "next",
    ]);
    expect(progress.filter((p) => p.phase === "entities").map((p) => p.done)).toEqual([3, 6, 7]);
    // A project out of sight exports nothing (no denial, no oracle).
    const outsider = ctxFor("z");
    const none: string[] = [];
    expect(await exportMemoryJsonl(outsider, { project: "a", write: (l) => void none.push(l) })).toEqual({
      project: "a",
      entities: 0,
      relations: 0,
    });
    expect(none).toEqual([]);
  });

  it("rejects a bad file or a denied project before writing anything", async () => {
    const ctx = ctxFor("safe");
    const before = await h.db.db
      .selectFrom("shampoo_entities")
      .select((eb) => eb.fn.countAll<number>().as("c"))
      .executeTakeFirstOrThrow();
    await expect(
      importMemoryJsonl(ctx, `${SAMPLE}\n{"type":"entity","name":"Broken"`, { project: "safe" }),
    ).rejects.toThrow("line 7: not JSON");
    await expect(importMemoryJsonl(ctx, '{"type":"entity","name":"NoType"}', { project: "safe" })).rejects.toThrow(
      "line 1: entity needs string name and entityType",
    );
    await expect(importMemoryJsonl(ctx, SAMPLE, { project: "elsewhere" })).rejects.toThrow("Project not in scope");
    // A name held by another project's content fails the whole import (atomic).
    const holder = ctxFor("holder");
    const shared = { ...holder, caller: { ...holder.caller, profile: ctx.caller.profile } };
    await importMemoryJsonl(shared, '{"type":"entity","name":"Taken","entityType":"t","observations":[]}', {
      project: "holder",
    });
    await expect(
      importMemoryJsonl(ctx, `${SAMPLE}\n{"type":"entity","name":"Taken","entityType":"t","observations":[]}`, {
        project: "safe",
      }),
    ).rejects.toThrow("entity name already exists");
    const after = await h.db.db
      .selectFrom("shampoo_entities")
      .select((eb) => eb.fn.countAll<number>().as("c"))
      .executeTakeFirstOrThrow();
    expect(Number(after.c)).toBe(Number(before.c) + 1);
  });
});

describe("memory.jsonl interoperates with the reference server (@modelcontextprotocol/server-memory)", () => {
  let h: Harness;
  let dir: string;
  const require = createRequire(import.meta.url);
  const script = join(dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");

  /** Runs the reference server on `file` for the duration of `fn`. */
  const withReference = async <T>(file: string, fn: (c: Client) => Promise<T>): Promise<T> => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [script],
      env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: file },
      stderr: "ignore",
    });
    const client = new Client({ name: "interop", version: "1.0.0" });
    await client.connect(transport);
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  };
  const ctx = (): ShampooCtx => ({
    caller: makeCaller({ principal: "interop", role: "agent", profile: "interop", grants: ["mem"] }),
    source: { tool: "" },
    clock: h.clock,
    database: h.db,
  });

  beforeAll(async () => {
    h = await harness("sqlite");
    dir = mkdtempSync(join(tmpdir(), "shampoo-jsonl-"));
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("imports what the reference server wrote and writes what it reads back unchanged", async () => {
    const theirs = join(dir, "theirs.jsonl");
    const written = await withReference(theirs, async (c) => {
      await c.callTool({
        name: "create_entities",
        arguments: {
          entities: [
            { name: "Ada", entityType: "person", observations: ["wrote the first program", "liked engines"] },
            { name: "Engine", entityType: "machine", observations: ["analytical"] },
          ],
        },
      });
      await c.callTool({
        name: "create_relations",
        arguments: { relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] },
      });
      return (await c.callTool({ name: "read_graph", arguments: {} })).structuredContent as Graph;
    });
    const report = await importMemoryJsonl(ctx(), readFileSync(theirs, "utf8"), { project: "mem" });
    expect(report).toMatchObject({ entities_created: 2, observations_added: 3, relations_created: 1 });
    const ours = await h.as({ principal: "interop", grants: ["mem"], profile: "interop" });
    const graph = (await ours.sc("read_graph", {})) as unknown as Graph;
    expect(canon(graph)).toEqual(canon(written));

    const back = join(dir, "ours.jsonl");
    writeFileSync(back, await exportMemoryJsonlText(ctx(), "mem"));
    const read = await withReference(
      back,
      async (c) => (await c.callTool({ name: "read_graph", arguments: {} })).structuredContent as Graph,
    );
    expect(canon(read)).toEqual(canon(written));
  });
});
