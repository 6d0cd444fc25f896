import { connect } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpHandle, serveHttp } from "../src/transport/http.ts";
import { makeFixture } from "./fixtures.ts";

/** Sends raw bytes (so that even an unparseable Host line can be sent) and returns the status line. */
function rawStatus(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => s.write(request));
    let data = "";
    s.on("data", (d) => {
      data += d.toString("latin1");
      if (data.includes("\r\n")) {
        resolve(data.split("\r\n")[0] ?? "");
        s.destroy();
      }
    });
    s.on("error", reject);
  });
}

describe("HTTP hardening and authentication", () => {
  let h: HttpHandle | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("answers a malformed Host with 400 and keeps serving", async () => {
    const f = makeFixture();
    h = await serveHttp({ mcp: f.mcp, port: 0, maxRequestBytes: 4096 });
    const status = await rawStatus(h.port, "GET /x HTTP/1.1\r\nHost: a b<c\r\nConnection: close\r\n\r\n");
    expect(status).toMatch(/^HTTP\/1\.1 400/);
    const ok = await fetch(`http://127.0.0.1:${h.port}/nothing`);
    expect(ok.status).toBe(404);
  });

  it("refuses MCP requests without a valid bearer token (401) and passes the caller to tools", async () => {
    const f = makeFixture();
    h = await serveHttp({
      mcp: f.mcp,
      port: 0,
      maxRequestBytes: 4096,
      authenticate: (req) =>
        req.headers.get("authorization") === "Bearer good" ? { token: "good", clientId: "alice", scopes: [] } : null,
    });
    const denied = await fetch(h.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const client = new Client({ name: "auth-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { authorization: "Bearer good" } } }),
    );
    const tools = await client.listTools();
    await client.callTool({ name: tools.tools[0]?.name ?? "echo", arguments: { text: "hi" } });
    expect(f.sessions.at(-1)?.auth?.clientId).toBe("alice");
    await client.close();
  });
});
