import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_SESSION_TTL_MS, type HttpHandle, type HttpOptions, serveHttp } from "../src/transport/http.ts";
import { type FakeCtx, type Fixture, LIMITS, makeFixture } from "./fixtures.ts";

/**
 * Both protocol eras on one /mcp endpoint, sessions that do not depend on the instance, and the
 * HTTP layer under abuse (issue 15): real SDK clients of both majors, raw requests for the rest.
 */
const SECRET = "a shared secret of at least thirty-two bytes";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "modern-raw", version: "9" },
};

const open: HttpHandle[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function serve(f: Fixture, extra: Partial<HttpOptions<FakeCtx>> = {}): Promise<HttpHandle> {
  const h = await serveHttp({ mcp: f.mcp, port: 0, maxRequestBytes: LIMITS.maxRequestBytes, ...extra });
  open.push(h);
  return h;
}

function post(h: HttpHandle, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(h.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The one JSON-RPC message of a JSON or single-event SSE response. */
async function rpc(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(text);
  const data = text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6);
  return JSON.parse((data.at(-1) as string).slice(6));
}

const modernHeaders = (method: string, name?: string) => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

async function initialize(h: HttpHandle, headers: Record<string, string> = {}): Promise<string> {
  const res = await post(
    h,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "legacy-raw", version: "1" } },
    },
    headers,
  );
  expect(res.status).toBe(200);
  return res.headers.get("mcp-session-id") as string;
}

describe("2026-07-28 beside 2025-11-25 on one endpoint", () => {
  it("an SDK v2 client pinned to 2026-07-28 discovers, lists and calls without initialize or session", async () => {
    const f = makeFixture();
    const h = await serve(f);
    const client = new ModernClient(
      { name: "modern-client", version: "2.4.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    const transport = new ModernHttp(new URL(h.url));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const again = await client.listTools({}, { cacheMode: "bypass" });
      expect(tools.map((t) => t.name)).toEqual(again.tools.map((t) => t.name));
      expect(tools.map((t) => t.name)).toContain("echo");
      const ok = await client.callTool({ name: "echo", arguments: { text: "modern" } });
      expect(ok.structuredContent).toEqual({ ok: true, result: "modern" });
      const who = await client.callTool({ name: "whoami", arguments: {} });
      // clientInfo of a 2026 request comes from its own _meta, a separate observation.
      expect(who.structuredContent).toMatchObject({
        sessionId: "stateless",
        transport: "http",
        clientInfo: { name: "modern-client", version: "2.4.0" },
      });
      const failed = await client.callTool({ name: "fail_domain", arguments: {} });
      expect(failed.isError).toBe(true);
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it("server/discover lists the modern versions; results carry resultType; errors carry the request id", async () => {
    const h = await serve(makeFixture());
    const d = await rpc(
      await post(
        h,
        { jsonrpc: "2.0", id: "d1", method: "server/discover", params: { _meta: META } },
        modernHeaders("server/discover"),
      ),
    );
    expect(d).toMatchObject({ id: "d1", result: { supportedVersions: ["2026-07-28"] } });
    const list = await rpc(
      await post(
        h,
        { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: META } },
        modernHeaders("tools/list"),
      ),
    );
    expect(list).toMatchObject({ id: 7, result: { resultType: "complete" } });
    const unknown = await rpc(
      await post(
        h,
        { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "nope", arguments: {}, _meta: META } },
        modernHeaders("tools/call", "nope"),
      ),
    );
    expect(unknown).toEqual({ jsonrpc: "2.0", id: 8, error: { code: -32602, message: "Unknown tool: nope" } });
  });

  it("an unsupported version gets the specified error listing the supported ones", async () => {
    const h = await serve(makeFixture());
    const meta = { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const res = await post(
      h,
      { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta } },
      { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
    );
    expect(res.status).toBe(400);
    const body = await rpc(res);
    expect(body).toMatchObject({ id: 3, error: { data: { supported: expect.arrayContaining(["2026-07-28"]) } } });
  });

  it("a 2025 SDK client still initializes and calls on the same endpoint", async () => {
    const f = makeFixture();
    const h = await serve(f);
    const client = new Client({ name: "legacy-client", version: "1.32.2" });
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^s1\./);
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect(who.structuredContent).toMatchObject({ clientInfo: { name: "legacy-client", version: "1.32.2" } });
    } finally {
      await client.close();
    }
  });
});

describe("sessions do not depend on the instance", () => {
  it("a session minted by one instance is honoured by another sharing the secret, refused by a stranger", async () => {
    const f = makeFixture();
    const [a, b] = [await serve(f, { sessionSecret: SECRET }), await serve(f, { sessionSecret: SECRET })];
    const other = await serve(f, { sessionSecret: `${SECRET} but another` });
    const sid = await initialize(a as HttpHandle);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } };
    const headers = { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
    const onB = await rpc(await post(b as HttpHandle, call, headers));
    expect(onB).toMatchObject({ id: 2, result: { structuredContent: { clientInfo: { name: "legacy-raw" } } } });
    const onOther = await post(other, call, headers);
    expect(onOther.status).toBe(404);
    expect(await rpc(onOther)).toMatchObject({ id: 2, error: { message: "Session not found" } });
  });

  it("expires a session after its lifetime", async () => {
    const h = await serve(makeFixture(), { sessionTtlMs: 60_000 });
    const sid = await initialize(h);
    const headers = { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
    expect((await post(h, { jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)).status).toBe(200);
    // The lifetime passes on the server's clock (Date only: no timer is faked).
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 59_000);
      expect((await post(h, { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers)).status).toBe(200);
      vi.setSystemTime(Date.now() + 2_000);
      expect((await post(h, { jsonrpc: "2.0", id: 4, method: "tools/list" }, headers)).status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a 2025 session past its lifetime (docs/deploy.md, Sessions)", () => {
  it("answers 404; the SDK clients of both majors surface it and do not re-initialize; a new connection works", async () => {
    const h = await serve(makeFixture());
    const echo = { name: "echo", arguments: { text: "still here" } };
    const v1 = new Client({ name: "legacy-client", version: "1.32.2" });
    const t1 = new StreamableHTTPClientTransport(new URL(h.url));
    await v1.connect(t1);
    // The v2 client's default negotiation is the 2025 handshake.
    const v2 = new ModernClient({ name: "v2-client", version: "2.4.0" });
    const t2 = new ModernHttp(new URL(h.url));
    await v2.connect(t2);
    try {
      expect(t2.sessionId).toMatch(/^s1\./);
      expect((await v1.callTool(echo)).structuredContent).toEqual({ ok: true, result: "still here" });
      expect((await v2.callTool(echo)).structuredContent).toEqual({ ok: true, result: "still here" });
      // The lifetime passes on the server's clock (Date only: no timer is faked).
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + DEFAULT_SESSION_TTL_MS + 1000);
      const sid1 = t1.sessionId;
      await expect(v1.callTool(echo)).rejects.toMatchObject({
        code: 404,
        message: expect.stringMatching(/Session not found/),
      });
      await expect(v2.callTool(echo)).rejects.toThrow(/Session not found/);
      // Neither started a new session by itself: the same expired id, so the next call fails too.
      expect(t1.sessionId).toBe(sid1);
      await expect(v1.callTool(echo)).rejects.toMatchObject({ code: 404 });
    } finally {
      vi.useRealTimers();
      await v1.close();
      await v2.close();
    }
    const again = new Client({ name: "legacy-client", version: "1.32.2" });
    await again.connect(new StreamableHTTPClientTransport(new URL(h.url)));
    try {
      expect((await again.callTool(echo)).structuredContent).toEqual({ ok: true, result: "still here" });
    } finally {
      await again.close();
    }
  });
});

describe("the HTTP layer under abuse", () => {
  const auth: HttpOptions<FakeCtx>["authenticate"] = (req) => {
    const who = req.headers.get("authorization")?.replace(/^Bearer /, "");
    return who === "alice" || who === "bob" ? { token: "bearer", clientId: who, scopes: [] } : null;
  };

  it("a session belongs to the credential that opened it: bob can neither use nor DELETE alice's", async () => {
    const h = await serve(makeFixture(), { authenticate: auth });
    const sid = await initialize(h, { authorization: "Bearer alice" });
    const as = (who: string) => ({
      authorization: `Bearer ${who}`,
      "mcp-session-id": sid,
      "mcp-protocol-version": "2025-11-25",
    });
    const del = await fetch(h.url, { method: "DELETE", headers: as("bob") });
    expect(del.status).toBe(404);
    expect((await post(h, { jsonrpc: "2.0", id: 2, method: "tools/list" }, as("bob"))).status).toBe(404);
    const alice = await post(h, { jsonrpc: "2.0", id: 3, method: "tools/list" }, as("alice"));
    expect(alice.status).toBe(200);
  });

  it("malformed JSON-RPC gets the specified errors, with the request id and no internals", async () => {
    const f = makeFixture();
    const h = await serve(f);
    const sid = await initialize(h);
    const headers = { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
    const empty = await post(h, [], headers);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request: an empty JSON-RPC batch" },
    });
    const cases: Array<[unknown, string]> = [
      [{ name: "echo", arguments: ["x"] }, "Invalid params: params.arguments must be an object"],
      [undefined, "Invalid params: tools/call needs params, an object"],
      [{ name: 42, arguments: {} }, "Invalid params: params.name must be a string, the tool's name"],
    ];
    for (const [params, message] of cases) {
      for (const era of ["2025", "2026"] as const) {
        const body = {
          jsonrpc: "2.0",
          id: 11,
          method: "tools/call",
          ...(params === undefined
            ? era === "2026"
              ? { params: { _meta: META } }
              : {}
            : { params: era === "2026" ? { ...params, _meta: META } : params }),
        };
        const res = await post(h, body, era === "2025" ? headers : modernHeaders("tools/call", "echo"));
        const out = await rpc(res);
        if (era === "2025" || params !== undefined) {
          expect(out, `${era} ${message}`).toEqual({ jsonrpc: "2.0", id: 11, error: { code: -32602, message } });
        }
        expect(JSON.stringify(out)).not.toMatch(/invalid_type|expected|zod|at \w+ \(/);
      }
    }
    expect(f.calls.echo).toBeUndefined();
  });

  it("a flood of initialize is capped per address, costs no memory, and other calls are still answered", async () => {
    const f = makeFixture();
    const h = await serve(f, { sessionLimits: { perAddress: 50, global: 1000, windowSeconds: 60 } });
    const sid = await initialize(h);
    const before = process.memoryUsage().heapUsed;
    let refused = 0;
    let lastRefusal: Response | undefined;
    for (let i = 0; i < 120; i++) {
      const res = await post(h, {
        jsonrpc: "2.0",
        id: i,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: String(i) } },
      });
      if (res.status === 429) {
        refused++;
        lastRefusal = res;
      } else await res.body?.cancel();
    }
    expect(refused).toBe(120 - 49);
    expect(lastRefusal?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await (lastRefusal as Response).json()) as unknown).toMatchObject({
      error: { message: expect.stringContaining("at most 50 per 60 s") },
    });
    // The legitimate session still works; nothing per session was kept (generous bound: GC noise).
    const ok = await post(
      h,
      { jsonrpc: "2.0", id: 999, method: "tools/list" },
      { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" },
    );
    expect(ok.status).toBe(200);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  });

  it("admission limits answer 429 with Retry-After and a clear message, on /mcp and the routes", async () => {
    const h = await serve(makeFixture(), {
      admission: { perAddress: 3, global: 100, windowSeconds: 60 },
      routes: (app) => {
        app.get("/hello", (c) => c.text("hi"));
      },
    });
    const base = h.url.replace(/\/mcp$/, "");
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/hello`)).status).toBe(200);
    const page = await fetch(`${base}/hello`);
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await page.json()).toMatchObject({
      error: "rate_limited",
      message: expect.stringContaining("too many requests from this address: at most 3 per 60 s"),
    });
    const mcp = await post(h, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(mcp.status).toBe(429);
    expect(await mcp.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
  });
});
