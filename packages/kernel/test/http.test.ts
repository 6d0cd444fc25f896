import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HttpHandle, serveHttp } from "../src/transport/http.ts";
import { type Fixture, LIMITS, makeFixture } from "./fixtures.ts";

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

/**
 * A raw HTTP request (node:http, so that Host can be forged). `body` as an array of strings is
 * sent in separate writes without Content-Length (chunked), as a streaming client would.
 */
function raw(
  h: HttpHandle,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: unknown; chunks?: string[] },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body =
      opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: h.port,
        method: opts.method ?? "POST",
        path: opts.path ?? "/mcp",
        headers: {
          host: `127.0.0.1:${h.port}`,
          accept: "application/json, text/event-stream",
          ...(body !== undefined || opts.chunks ? { "content-type": "application/json" } : {}),
          ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (opts.chunks) for (const c of opts.chunks) req.write(c);
    req.end(body);
  });
}

const initialize = (id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

/** Opens a session by hand: initialize + notifications/initialized. Returns the session headers. */
async function rawSession(h: HttpHandle): Promise<Record<string, string>> {
  const init = await raw(h, { body: initialize() });
  expect(init.status).toBe(200);
  const sid = init.headers["mcp-session-id"] as string;
  expect(sid).toBeTruthy();
  const headers = { "mcp-session-id": sid, "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
  const ack = await raw(h, { headers, body: { jsonrpc: "2.0", method: "notifications/initialized" } });
  expect(ack.status).toBe(202);
  return headers;
}

/** The JSON-RPC messages of an SSE (or plain JSON) response body. */
function messages(r: Reply): Record<string, unknown>[] {
  if (!String(r.headers["content-type"]).includes("text/event-stream")) return [r.json() as Record<string, unknown>];
  return r.text
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)));
}

let f: Fixture;
let h: HttpHandle;
const routed: string[] = [];

beforeEach(async () => {
  f = makeFixture();
  routed.length = 0;
  h = await serveHttp({
    mcp: f.mcp,
    port: 0,
    maxRequestBytes: LIMITS.maxRequestBytes,
    routes: (app) => {
      app.use("*", async (c, next) => {
        if (c.req.path !== "/mcp") routed.push(c.req.path);
        await next();
      });
      app.get("/hello", (c) => c.text("hello from the product"));
    },
  });
});

afterEach(async () => {
  await h.close();
});

describe("serveHttp: DNS-rebinding protection", () => {
  it("serves loopback Host headers: 127.0.0.1, localhost and [::1] on our port", async () => {
    for (const host of [`127.0.0.1:${h.port}`, `localhost:${h.port}`, `[::1]:${h.port}`, `LOCALHOST:${h.port}`]) {
      const r = await raw(h, { headers: { host }, body: initialize() });
      expect(r.status, host).toBe(200);
      expect(r.headers["mcp-session-id"]).toBeTruthy();
    }
  });

  it("refuses a non-loopback Host with 403 and creates no session", async () => {
    for (const host of ["evil.example.com", `evil.example.com:${h.port}`, `127.0.0.1.evil.example.com:${h.port}`]) {
      const r = await raw(h, { headers: { host }, body: initialize() });
      expect(r.status, host).toBe(403);
      expect(r.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
      expect(r.headers["mcp-session-id"]).toBeUndefined();
    }
  });

  it("refuses a loopback Host on another port (the page's origin is not us)", async () => {
    const r = await raw(h, { headers: { host: `localhost:${h.port === 1 ? 2 : 1}` }, body: initialize() });
    expect(r.status).toBe(403);
  });

  it("refuses an Origin from another site with 403, even with a loopback Host", async () => {
    for (const origin of ["http://evil.example.com", `http://evil.example.com:${h.port}`, "null", "not a url"]) {
      const r = await raw(h, { headers: { origin }, body: initialize() });
      expect(r.status, origin).toBe(403);
      expect(r.headers["mcp-session-id"]).toBeUndefined();
    }
  });

  it("accepts a same-origin Origin", async () => {
    const r = await raw(h, { headers: { origin: `http://localhost:${h.port}` }, body: initialize() });
    expect(r.status).toBe(200);
  });

  it("protects tool calls on an existing session, not only initialize", async () => {
    const session = await rawSession(h);
    const r = await raw(h, {
      headers: { ...session, origin: "http://evil.example.com" },
      body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
    });
    expect(r.status).toBe(403);
    expect(f.calls.echo).toBeUndefined();
  });
});

describe("serveHttp: request size", () => {
  const bigCall = (size: number) => ({
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "x".repeat(size) } },
  });

  it("refuses a body over maxRequestBytes with 413 before anything runs (Content-Length)", async () => {
    const session = await rawSession(h);
    const r = await raw(h, { headers: session, body: bigCall(LIMITS.maxRequestBytes) });
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining("max_request_bytes") } });
    expect(f.calls.echo).toBeUndefined();
    expect(f.sessions).toEqual([]);
  });

  it("refuses a streamed (chunked) body that grows past maxRequestBytes with 413", async () => {
    const session = await rawSession(h);
    const text = JSON.stringify(bigCall(LIMITS.maxRequestBytes));
    const r = await raw(h, {
      headers: session,
      chunks: [text.slice(0, 1000), text.slice(1000, 2000), text.slice(2000)],
    });
    expect(r.status).toBe(413);
    expect(f.calls.echo).toBeUndefined();
  });

  it("refuses an oversized initialize without creating a session", async () => {
    const init = initialize();
    const padded = { ...init, params: { ...init.params, padding: "x".repeat(LIMITS.maxRequestBytes) } };
    const r = await raw(h, { body: padded });
    expect(r.status).toBe(413);
    expect(r.headers["mcp-session-id"]).toBeUndefined();
  });

  it("accepts a body of exactly maxRequestBytes", async () => {
    const session = await rawSession(h);
    const base = JSON.stringify(bigCall(0)).length;
    // The tool-level byte limit applies to the arguments alone, so this one reaches the registry.
    const r = await raw(h, { headers: session, body: bigCall(LIMITS.maxRequestBytes - base) });
    expect(Buffer.byteLength(JSON.stringify(bigCall(LIMITS.maxRequestBytes - base)))).toBe(LIMITS.maxRequestBytes);
    expect(r.status).toBe(200);
    expect(f.calls.echo).toBe(1);
  });
});

describe("serveHttp: sessions", () => {
  it("answers GET and DELETE without a session id with 400", async () => {
    for (const method of ["GET", "DELETE"]) {
      const r = await raw(h, { method, headers: { accept: "text/event-stream" } });
      expect(r.status, method).toBe(400);
      expect(r.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
  });

  it("answers an unknown session id with 404 on GET, DELETE and POST", async () => {
    const headers = { "mcp-session-id": "00000000-0000-4000-8000-000000000000", accept: "text/event-stream" };
    // A forged id: a real one with its payload changed keeps the signature of the original.
    const real = (await rawSession(h))["mcp-session-id"] as string;
    const [tag, payload, sig] = real.split(".");
    const claims = JSON.parse(Buffer.from(payload as string, "base64url").toString());
    const forged = `${tag}.${Buffer.from(JSON.stringify({ ...claims, e: claims.e + 1e9 })).toString("base64url")}.${sig}`;
    expect(
      (await raw(h, { headers: { "mcp-session-id": forged }, body: { jsonrpc: "2.0", id: 3, method: "tools/list" } }))
        .status,
    ).toBe(404);
    for (const method of ["GET", "DELETE"]) expect((await raw(h, { method, headers })).status, method).toBe(404);
    const post = await raw(h, {
      headers: { ...headers, accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(post.status).toBe(404);
  });

  it("answers a POST without session that is not initialize with 400", async () => {
    const r = await raw(h, { body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ id: 1, error: { message: "Bad Request: no session; send initialize first" } });
  });

  it("answers a body that is not JSON with 400 parse error", async () => {
    const r = await raw(h, { body: "{not json" });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: { code: -32700 } });
  });

  it("answers GET and DELETE on a valid session with 405: no stream to resume, sessions end by expiry", async () => {
    const session = await rawSession(h);
    for (const method of ["GET", "DELETE"]) {
      const r = await raw(h, { method, headers: { ...session, accept: "text/event-stream" } });
      expect(r.status, method).toBe(405);
      expect(r.headers.allow).toBe("POST");
    }
    const still = await raw(h, { headers: session, body: { jsonrpc: "2.0", id: 4, method: "tools/list" } });
    expect(still.status).toBe(200);
  });

  it("answers other methods on the MCP path with 405", async () => {
    const r = await raw(h, { method: "PUT", body: initialize() });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe("GET, POST, DELETE");
  });

  it("sends a tool's log notifications on that call's own response stream", async () => {
    // A client need not hold the optional GET stream open; notifications about a request belong
    // to that request's stream (and must not be lost).
    const session = await rawSession(h);
    const r = await raw(h, {
      headers: session,
      body: { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "log", arguments: { levels: ["info"] } } },
    });
    expect(r.status).toBe(200);
    const msgs = messages(r);
    expect(msgs[0]).toMatchObject({
      method: "notifications/message",
      params: { level: "info", data: { said: "info" } },
    });
    expect(msgs[1]).toMatchObject({ id: 5, result: { structuredContent: { sent: 1 } } });
  });
});

describe("serveHttp: a full SDK client session", () => {
  it("initializes, lists, calls and terminates over StreamableHTTPClientTransport", async () => {
    const client = new Client({ name: "http-client", version: "2.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^s1\./);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("echo");

      const ok = await client.callTool({ name: "echo", arguments: { text: "over http" } });
      expect(ok.structuredContent).toEqual({ ok: true, result: "over http" });

      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect(who.structuredContent).toEqual({
        sessionId: expect.stringMatching(/^[\w-]{22}$/),
        transport: "http",
        clientInfo: { name: "http-client", version: "2.0.0" },
        meta: null,
      });

      const failed = await client.callTool({ name: "fail_domain", arguments: {} });
      expect(failed.isError).toBe(true);
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({ code: -32602 });

      // DELETE answers 405, which the client takes as "the server does not end sessions".
      await transport.terminateSession();
    } finally {
      await client.close();
    }
  });

  it("keeps sessions apart", async () => {
    const a = new Client({ name: "a", version: "1" });
    const b = new Client({ name: "b", version: "1" });
    const ta = new StreamableHTTPClientTransport(new URL(h.url));
    const tb = new StreamableHTTPClientTransport(new URL(h.url));
    await a.connect(ta);
    await b.connect(tb);
    try {
      expect(ta.sessionId).not.toBe(tb.sessionId);
      const wa = await a.callTool({ name: "whoami", arguments: {} });
      const wb = await b.callTool({ name: "whoami", arguments: {} });
      const [sa, sb] = [wa, wb].map((w) => (w.structuredContent as { sessionId: string }).sessionId);
      expect(sa).not.toBe(sb);
      expect(wa.structuredContent).toMatchObject({ clientInfo: { name: "a" } });
      expect(wb.structuredContent).toMatchObject({ clientInfo: { name: "b" } });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("serveHttp: product routes", () => {
  it("hands non-MCP paths to the routes handler, and never the MCP path", async () => {
    const r = await raw(h, { method: "GET", path: "/hello?x=1" });
    expect(r.status).toBe(200);
    expect(r.text).toBe("hello from the product");
    await raw(h, { body: initialize() });
    expect(routed).toEqual(["/hello"]);
  });

  it("answers paths no route takes with a 404 JSON body", async () => {
    const r = await raw(h, { method: "GET", path: "/cards/unknown" });
    expect(r.status).toBe(404);
    expect(r.headers["content-type"]).toContain("application/json");
    expect(r.json()).toEqual({ error: "not_found", message: "No route for /cards/unknown" });
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(routed).toEqual(["/cards/unknown"]);
  });

  it("serves the URL it reports", async () => {
    expect(h.url).toBe(`http://127.0.0.1:${h.port}/mcp`);
  });
});
