import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolResultSchema,
  ErrorCode,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpServer } from "../src/server.ts";
import { ECHO_INPUT, ENVELOPE, type Fixture, makeFixture } from "./fixtures.ts";

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function connect(f: Fixture, clientInfo = { name: "kernel-test-client", version: "9.9.9" }) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(f.mcp, { sessionId: "mem-1", transport: "memory" });
  await server.connect(serverSide);
  const client = new Client(clientInfo);
  await client.connect(clientSide);
  open.push(client);
  return client;
}

describe("createMcpServer through a real SDK Client", () => {
  it("answers an unknown tool name with JSON-RPC error -32602, not a tool result", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const err = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("no_such_tool");
    expect(f.rejections).toEqual([]);
  });

  it("reports a known tool's failure as a result with isError and structuredContent", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const res = await client.callTool({ name: "fail_domain", arguments: {} });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toEqual({ ok: false, code: "not_allowed", message: "this room is closed" });
    expect(res.content).toEqual([{ type: "text", text: JSON.stringify(res.structuredContent) }]);
  });

  it("reports schema rejections as tool results too (the handler does not run)", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const res = await client.callTool({ name: "echo", arguments: { text: 42 } });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ ok: false, code: "invalid_arguments" });
    expect(f.calls.echo).toBeUndefined();
  });

  it("returns a success with structuredContent and its JSON as text, without isError", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const res = await client.callTool({ name: "echo", arguments: { text: "hello" } });
    expect(res.structuredContent).toEqual({ ok: true, result: "hello" });
    expect(res.content).toEqual([{ type: "text", text: '{"ok":true,"result":"hello"}' }]);
    expect(res).not.toHaveProperty("isError");
  });

  it("reaches aliased tools by their alias, but lists only canonical names", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const res = await client.callTool({ name: "say", arguments: { text: "hi" } });
    expect(res.structuredContent).toEqual({ ok: true, result: "hi" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("say");
  });

  it("publishes inputSchema and outputSchema verbatim in tools/list", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(f.registry.list().map((t) => t.name));
    for (const def of f.registry.list()) {
      const listed = tools.find((t) => t.name === def.name)!;
      expect(listed.inputSchema).toEqual(def.inputSchema);
      expect(listed.outputSchema).toEqual(def.outputSchema);
      expect(listed.description).toBe(def.description);
    }
    const echo = tools.find((t) => t.name === "echo")!;
    expect(echo.inputSchema).toEqual(ECHO_INPUT);
    expect(echo.outputSchema).toEqual(ENVELOPE);
    expect(echo.title).toBe("Echo");
    expect(echo.annotations).toEqual({ readOnlyHint: true });
  });

  it("declares tools and logging, carries instructions, and accepts logging/setLevel", async () => {
    const f = makeFixture();
    const client = await connect(f);
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false }, logging: {} });
    expect(client.getServerVersion()).toEqual({ name: "kernel-fixture", version: "0.0.1" });
    expect(client.getInstructions()).toBe("A fake product for kernel tests.");
    await expect(client.setLoggingLevel("warning")).resolves.toEqual({});
  });

  it("sends log notifications at or above the level the client set, and drops the others", async () => {
    const f = makeFixture();
    const client = await connect(f);
    const received: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      received.push(n.params);
    });
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "log", arguments: { levels: ["debug", "info", "warning", "error"] } });
    expect(received).toEqual([
      { level: "warning", data: { said: "warning" } },
      { level: "error", data: { said: "error" } },
    ]);
  });

  it("gives the context the client's clientInfo, the request's _meta and the session", async () => {
    const f = makeFixture();
    const client = await connect(f, { name: "probe-host", version: "1.2.3" });
    const meta = { "io.example/pin": "toolset-0.3.0", trace: { id: 7 } };
    const res = await client.request(
      { method: "tools/call", params: { name: "whoami", arguments: {}, _meta: meta } },
      CallToolResultSchema,
    );
    expect(res.structuredContent).toEqual({
      sessionId: "mem-1",
      transport: "memory",
      clientInfo: { name: "probe-host", version: "1.2.3" },
      meta,
    });
    // Without _meta the context has none.
    const plain = await client.callTool({ name: "whoami", arguments: {} });
    expect((plain.structuredContent as { meta: unknown }).meta).toBeNull();
  });
});
