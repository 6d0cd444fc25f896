import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer, ManualClock } from "kernel";
import { openTestDatabase } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, makeCaller } from "../src/access/caller.ts";
import { ConfigError, parseConfig } from "../src/access/config.ts";
import { migrateShampoo, type Shampoo, shampooOn } from "../src/app.ts";
import { MODULES } from "../src/modules.ts";
import { intersect, parseProfile } from "../src/platform/profiles.ts";
import type { ShampooDB } from "../src/store/schema.ts";

/** Tool profiles (issue 14 §5): only the profile's tools are listed and callable. */
describe("tool profiles", () => {
  it("parse categories, tool names and all; an unknown word is refused with the valid ones", () => {
    const p = parseProfile(["sessions,find_by_title"], MODULES);
    expect([...p].sort()).toEqual([
      "close_session",
      "find_by_title",
      "resume_context",
      "session_recall",
      "session_save",
    ]);
    // The 29 tools of tasks, graph, links and sessions, plus governance and reflection (issue 17),
    // coordination and inbound (issue 25).
    expect(parseProfile(["all"], MODULES).size).toBe(67);
    expect(() => parseProfile(["tasks,grpah"], MODULES)).toThrow(
      '--tools: unknown category or tool "grpah" (categories: all, tasks, graph, links, sessions, governance, reflection, coordination, inbound; or any tool name)',
    );
    expect(() => parseProfile([","], MODULES)).toThrow("--tools names no tools");
    expect([...(intersect(new Set(["a", "b"]), new Set(["b", "c"])) ?? [])]).toEqual(["b"]);
  });

  it("a --config entry may carry its own tools, checked strictly", () => {
    const entry = { token: "t".repeat(20), principal: "ann", role: "agent", grants: ["x"] };
    const c = parseConfig(JSON.stringify({ principals: [{ ...entry, tools: ["tasks"] }] }));
    expect(c.principals[0]?.tools).toEqual(["tasks"]);
    expect(() => parseConfig(JSON.stringify({ principals: [{ ...entry, tools: [] }] }))).toThrow(ConfigError);
  });

  let shampoo: Shampoo;
  let db: Awaited<ReturnType<typeof openTestDatabase<ShampooDB>>>;
  const callers = new Map<string, Caller>();
  beforeAll(async () => {
    db = await openTestDatabase<ShampooDB>("sqlite");
    await migrateShampoo(db);
    shampoo = shampooOn(db, {
      clock: new ManualClock(),
      tools: parseProfile(["tasks,graph"], MODULES),
      resolveCaller: (s) => callers.get(s.sessionId) as Caller,
    });
  });
  afterAll(() => db.drop());

  const client = async (caller: Caller) => {
    const sessionId = `s-${callers.size}`;
    callers.set(sessionId, caller);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createMcpServer(shampoo.mcp, { sessionId, transport: "memory" }).connect(b);
    const c = new Client({ name: "t", version: "1" });
    await c.connect(a);
    return c;
  };

  it("the server's profile: tools/list shows only it, a call outside it is an unknown tool (-32602)", async () => {
    const c = await client(makeCaller({ principal: "ann", role: "agent", profile: "default", grants: ["*"] }));
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(20);
    expect(names).toContain("search_nodes");
    expect(names).not.toContain("session_save");
    const err = await c.callTool({ name: "session_save", arguments: {} }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool: session_save") });
    await c.close();
  });

  it("a principal's profile narrows it further: its calls outside are unknown, its tools/list too", async () => {
    const caller = makeCaller({ principal: "bob", role: "agent", profile: "default", grants: ["*"] });
    caller.tools = parseProfile(["tasks"], MODULES);
    const c = await client(caller);
    const err = await c.callTool({ name: "search_nodes", arguments: { query: "x" } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: -32602 });
    const ok = await c.callTool({ name: "query_tasks", arguments: {} });
    expect(ok.isError).toBeFalsy();
    callers.set("bob-over-http", caller);
    const session = { sessionId: "bob-over-http", transport: "http" as const, clientInfo: () => undefined };
    const keep = shampoo.mcp.listFilter?.({ ...session, log: async () => {} });
    expect(["query_tasks", "search_nodes"].filter((n) => keep?.(n) ?? true)).toEqual(["query_tasks"]);
    await c.close();
  });
});
