import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type HttpHandle, ManualClock, type SessionInfo, serveHttp, ToolSelectionError } from "kernel";
import { openTestDatabase } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, makeCaller } from "../src/access/caller.ts";
import { LIMITS, migrateShampoo, type Shampoo, shampooOn, TOOLS } from "../src/app.ts";
import { MODULES } from "../src/modules.ts";
import { parseProfile } from "../src/platform/profiles.ts";
import { DEFAULT_TOOLSETS, Toolsets } from "../src/platform/toolsets.ts";
import type { ShampooDB } from "../src/store/schema.ts";

/**
 * Toolsets (issue 22): `shampoo serve`'s default fits real hosts (≤ 40 tools, ≤ 50,000 characters
 * of tools/list), `all` lists every tool, and a session widens its list with enable_toolset
 * (announced by notifications/tools/list_changed) over stdio-like and 2025 HTTP sessions, never
 * beyond its caller's allowance. The storage is not what is tested here: SQLite only.
 */
const DEFAULT = parseProfile([...DEFAULT_TOOLSETS], MODULES);
const ALL = TOOLS.map((t) => t.name);
const agent = (principal: string, tools?: string[]): Caller => {
  const c = makeCaller({ principal, role: "agent", profile: "default", grants: ["*", ""] });
  if (tools) c.tools = parseProfile(tools, MODULES);
  return c;
};

let db: Awaited<ReturnType<typeof openTestDatabase<ShampooDB>>>;
beforeAll(async () => {
  db = await openTestDatabase<ShampooDB>("sqlite");
  await migrateShampoo(db);
});
afterAll(() => db.drop());

/** A server as `shampoo serve` builds it (startWith the default unless `tools` is given). */
function server(tools?: string[], callers = new Map<string, Caller>()): Shampoo {
  return shampooOn(db, {
    clock: new ManualClock(),
    startWith: DEFAULT,
    ...(tools ? { tools: parseProfile(tools, MODULES) } : {}),
    resolveCaller: (s) => callers.get(s.sessionId) ?? agent("local"),
  });
}

/** A linked client on its own session (sessionId "stdio", as the binary's one stdio session). */
async function linked(s: Shampoo, sessionId = "stdio"): Promise<{ client: Client; changed: number[] }> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer(s.mcp, { sessionId, transport: "memory" }).connect(b);
  const client = new Client({ name: "t", version: "1" });
  const changed: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed.push(Date.now());
  });
  await client.connect(a);
  return { client, changed };
}

/** The tools/list result exactly as the server sends it: a raw JSON-RPC exchange. */
async function rawList(s: Shampoo): Promise<string> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer(s.mcp, { sessionId: "raw", transport: "memory" }).connect(b);
  const replies = new Map<unknown, unknown>();
  a.onmessage = (m) => {
    if ("id" in m) replies.set(m.id, m);
  };
  await a.start();
  const ask = async (id: number, method: string, params: Record<string, unknown> = {}) => {
    await a.send({ jsonrpc: "2.0", id, method, params });
    for (let i = 0; i < 200 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 5));
    return replies.get(id) as { result: unknown };
  };
  await ask(1, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "r", version: "1" },
  });
  await a.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const list = await ask(2, "tools/list");
  await a.close();
  return JSON.stringify(list.result);
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);

describe("the default tool list", () => {
  it("fits real hosts: at most 40 tools and 50,000 characters of tools/list", async () => {
    const json = await rawList(server());
    const tools = (JSON.parse(json) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    console.info(`default tools/list: ${tools.length} tools, ${json.length} characters`);
    expect(tools.length).toBeLessThanOrEqual(40);
    expect(json.length).toBeLessThanOrEqual(50_000);
    expect(tools.slice(0, 2)).toEqual(["list_toolsets", "enable_toolset"]);
    expect(tools.slice(2)).toEqual(ALL.filter((n) => DEFAULT.has(n)));
    for (const everyday of ["create_task_or_note", "ready_context", "search_nodes", "session_save", "resume_context"]) {
      expect(tools).toContain(everyday);
    }
  });

  it("--tools all lists every registered tool and no meta-tool (nothing left to enable)", async () => {
    const { client } = await linked(server(["all"]));
    expect(await names(client)).toEqual(ALL);
    await expect(client.callTool({ name: "list_toolsets", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });
});

describe("enable_toolset in a session", () => {
  it("widens tools/list after notifications/tools/list_changed; a tool not enabled is unknown (-32602)", async () => {
    const s = server();
    const { client, changed } = await linked(s);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    const before = await names(client);
    expect(before).not.toContain("link_task_entity");
    const unknown = await client.callTool({ name: "get_task_links", arguments: { task_id: "x" } }).catch((e) => e);
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool: get_task_links") });

    const listed = await client.callTool({ name: "list_toolsets", arguments: {} });
    expect(listed.structuredContent).toMatchObject({
      can_enable: true,
      toolsets: expect.arrayContaining([
        expect.objectContaining({ name: "tasks", enabled: true }),
        expect.objectContaining({ name: "links", enabled: false, tools: 5 }),
      ]),
    });
    const on = await client.callTool({ name: "enable_toolset", arguments: { toolset: "links" } });
    expect(on.isError).toBeFalsy();
    expect(on.structuredContent).toMatchObject({ toolset: "links", not_allowed: [] });
    expect((on.structuredContent as { added: string[] }).added).toContain("link_task_entity");
    expect(changed).toHaveLength(1);
    const after = await names(client);
    const links = parseProfile(["links"], MODULES);
    expect(after).toEqual(["list_toolsets", "enable_toolset", ...ALL.filter((n) => DEFAULT.has(n) || links.has(n))]);
    const ok = await client.callTool({ name: "get_task_links", arguments: { task_id: "x" } });
    expect(ok.structuredContent).toMatchObject({ error_type: "not_found" });

    // Again: nothing new, no notification. Another session on the same server starts afresh.
    await client.callTool({ name: "enable_toolset", arguments: { toolset: "links" } });
    expect(changed).toHaveLength(1);
    const other = await linked(s, "another");
    expect(await names(other.client)).toEqual(before);
    await other.client.close();
    await client.close();
  });

  it("never beyond the caller's allowance: a principal allowed only tasks cannot enable graph", async () => {
    const callers = new Map([["s-tasks", agent("tess", ["tasks"])]]);
    // The server allows everything; the principal's config entry says tasks only.
    const { client, changed } = await linked(server(undefined, callers), "s-tasks");
    const before = await names(client);
    expect(before).toEqual(ALL.filter((n) => parseProfile(["tasks"], MODULES).has(n)));
    // Its start is its allowance, so there is nothing to enable: the meta-tools are not listed.
    const refused = await client.callTool({ name: "enable_toolset", arguments: { toolset: "graph" } }).catch((e) => e);
    expect(refused).toMatchObject({ code: -32602 });
    expect(await names(client)).toEqual(before);
    expect(changed).toHaveLength(0);
    await client.close();
  });
});

describe("toolsets= in the endpoint URL", () => {
  const toolsets = new Toolsets(MODULES, undefined, DEFAULT);
  const at = (query: string): SessionInfo => ({
    sessionId: "s",
    transport: "http",
    clientInfo: () => undefined,
    log: async () => {},
    url: `http://127.0.0.1:1/mcp${query}`,
  });
  /** The catalog tools a request at this URL sees (the meta-tools are checked elsewhere). */
  const seen = (query: string, caller = agent("ann")) => ALL.filter(toolsets.view(at(query), caller).visible);

  it("picks toolsets or tools; all is the whole allowance; empty items are ignored", () => {
    expect(seen("?toolsets=links")).toEqual(ALL.filter((n) => parseProfile(["links"], MODULES).has(n)));
    expect(seen("?toolsets=all,")).toEqual(ALL);
    expect(seen("?toolsets=all", agent("tess", ["tasks"]))).toEqual(
      ALL.filter((n) => parseProfile(["tasks"], MODULES).has(n)),
    );
    expect(seen("?toolsets=session_save&toolsets=tasks")).toContain("session_save");
    expect(seen("")).toEqual(ALL.filter((n) => DEFAULT.has(n)));
  });

  it("refuses a typo, an empty selection and anything beyond the allowance, naming what is valid", () => {
    expect(() => seen("?toolsets=tasks,grpah")).toThrow(ToolSelectionError);
    expect(() => seen("?toolsets=tasks,grpah")).toThrow(
      'unknown category or tool "grpah" (categories: all, tasks, graph',
    );
    expect(() => seen("?toolsets=,")).toThrow("toolsets= in the endpoint URL names no toolset");
    expect(() => seen("?toolsets=graph", agent("tess", ["tasks"]))).toThrow(
      "asks for graph, which tess may not use (allowed: tasks)",
    );
  });

  it("list_toolsets: a toolset none of whose tools the caller may use is never on", () => {
    const view = toolsets.view(at(""), agent("tess", ["tasks", "session_save"]));
    expect(view.list()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "tasks", tools: parseProfile(["tasks"], MODULES).size, enabled: true }),
        expect.objectContaining({ name: "sessions", tools: 1, enabled: true }),
        expect.objectContaining({ name: "graph", tools: 0, enabled: false }),
      ]),
    );
  });
});

describe("over HTTP", () => {
  const callers = new Map<string, Caller>([
    ["token-of-anna-0123456789", agent("anna")],
    ["token-of-tess-0123456789", agent("tess", ["tasks", "sessions"])],
  ]);
  let h: HttpHandle;
  let s: Shampoo;
  beforeAll(async () => {
    s = shampooOn(db, {
      clock: new ManualClock(),
      startWith: DEFAULT,
      resolveCaller: (session) => session.auth?.extra?.caller as Caller,
    });
    h = await serveHttp({
      mcp: s.mcp,
      port: 0,
      maxRequestBytes: LIMITS.maxRequestBytes,
      authenticate: (req) => {
        const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
        const caller = callers.get(token);
        return caller ? { token, clientId: caller.principal, scopes: [], extra: { caller } } : null;
      },
    });
  });
  afterAll(() => h.close());

  const connect = async (token: string, query = "") => {
    const client = new Client({ name: "h", version: "1" });
    const changed: number[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed.push(1);
    });
    const url = new URL(`${h.url}${query}`);
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return { client, changed };
  };

  it("2025 sessions: enable_toolset sends list_changed on the call's stream and widens that session only", async () => {
    const { client, changed } = await connect("token-of-anna-0123456789");
    const before = await names(client);
    expect(before.length).toBeLessThanOrEqual(40);
    const on = await client.callTool({ name: "enable_toolset", arguments: { toolset: "governance" } });
    expect(on.isError).toBeFalsy();
    expect(changed).toHaveLength(1);
    const after = await names(client);
    expect(after).toContain("build_context_pack");
    expect(after.length).toBe(before.length + 12);
    const fresh = await connect("token-of-anna-0123456789");
    expect(await names(fresh.client)).toEqual(before);
    await fresh.client.close();
    await client.close();
  });

  it("2025 sessions: a principal allowed tasks and sessions is refused graph, clearly, its list unchanged", async () => {
    // Its allowance starts whole, so it sees no meta-tool; the URL cannot widen it either.
    const { client } = await connect("token-of-tess-0123456789");
    const before = await names(client);
    expect(before).toEqual(ALL.filter((n) => parseProfile(["tasks", "sessions"], MODULES).has(n)));
    await client.close();
    const narrowed = await connect("token-of-tess-0123456789", "?toolsets=tasks");
    expect(await names(narrowed.client)).toContain("enable_toolset");
    const refused = await narrowed.client.callTool({ name: "enable_toolset", arguments: { toolset: "graph" } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error_type: "toolset_not_allowed",
      error: expect.stringContaining("toolset graph is outside what tess may use (allowed: tasks, sessions)"),
    });
    expect(narrowed.changed).toHaveLength(0);
    const ok = await narrowed.client.callTool({ name: "enable_toolset", arguments: { toolset: "sessions" } });
    expect(ok.isError).toBeFalsy();
    expect(await names(narrowed.client)).toEqual(["list_toolsets", "enable_toolset", ...before]);
    await narrowed.client.close();
    const wider = await connect("token-of-tess-0123456789", "?toolsets=tasks,graph").catch((e) => e);
    // initialize succeeds (no tool selection there); the first tools/list is refused.
    const err = wider instanceof Error ? wider : await wider.client.listTools().catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: -32602,
      message: expect.stringContaining("asks for graph, which tess may not use (allowed: tasks, sessions)"),
    });
  });

  it("2026-07-28 (no session): the URL picks the toolsets; enable_toolset is not offered", async () => {
    const client = new ModernClient(
      { name: "m", version: "2" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    const url = new URL(`${h.url}?toolsets=tasks,links`);
    await client.connect(
      new ModernHttp(url, { requestInit: { headers: { authorization: "Bearer token-of-anna-0123456789" } } }),
    );
    // No session whose list could change: the capability is not declared on this era.
    expect(client.getServerCapabilities()?.tools?.listChanged).toBeFalsy();
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(["list_toolsets", ...ALL.filter((n) => parseProfile(["tasks", "links"], MODULES).has(n))]);
    const ts = await client.callTool({ name: "list_toolsets", arguments: {} });
    expect(ts.structuredContent).toMatchObject({
      can_enable: false,
      how_to_widen: expect.stringContaining("?toolsets="),
    });
    await expect(client.callTool({ name: "enable_toolset", arguments: { toolset: "graph" } })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.callTool({ name: "search_nodes", arguments: { query: "x" } })).rejects.toMatchObject({
      code: -32602,
    });
    await client.close();
  });
});

describe("every category is named where a user picks toolsets", () => {
  it("shampoo --help and list_toolsets describe every module with tools", async () => {
    const { MODULES } = await import("../src/modules.ts");
    const { HELP_TEXT } = await import("../src/cli.ts");
    const { TOOLSET_DESCRIPTIONS } = await import("../src/platform/toolsets.ts");
    for (const m of MODULES.filter((x) => x.tools.length > 0)) {
      expect(HELP_TEXT, `--help names ${m.name}`).toMatch(new RegExp(`\\b${m.name}\\b`));
      expect(TOOLSET_DESCRIPTIONS[m.name], `a description for ${m.name}`).toMatch(/\S/);
    }
  });
});
