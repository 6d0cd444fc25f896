/**
 * The real binary over Streamable HTTP with a --config file of bearer tokens, driven by the SDK
 * client: 401 without (or with a wrong) token, every registered tool as one principal, the other
 * principal's grants applied per request, and a history that names who wrote.
 */
import { join } from "node:path";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openDatabase } from "kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ShampooDB } from "../../src/store/schema.ts";
import { checkInvariants } from "../crash/invariants.ts";
import {
  callEveryTool,
  connectHttp,
  type HttpServer,
  handoffSession,
  newToken,
  type Session,
  startHttp,
  TOOL_NAMES,
  tempDir,
  writeConfig,
} from "./support.ts";

const tmp = tempDir("http");
const dbFile = join(tmp.dir, "h.db");
const ALICE = newToken();
const BOB = newToken();
const NOT_FOUND = { error: "Task not found", error_type: "not_found" };
let server: HttpServer;
let alice: Session;
let bob: Session;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function post(authorization?: string): Promise<Response> {
  return fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify(INITIALIZE),
  });
}

beforeAll(async () => {
  const config = writeConfig(tmp.dir, [
    { token: ALICE, principal: "alice", role: "agent", grants: ["e2e-http", "handoff-http", ""], profile: "default" },
    { token: BOB, principal: "bob", role: "agent", grants: ["other"] },
  ]);
  server = await startHttp(["--db", dbFile, "--config", config]);
  alice = await connectHttp(server.url, ALICE, "alice-client");
  bob = await connectHttp(server.url, BOB, "bob-client");
});

afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await server?.stop();
  tmp.remove();
});

describe("shampoo serve --http --config FILE", () => {
  it("prints where it listens, the database, who may call and how to connect — never a token", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const out = server.stdout();
    expect(out).toContain(`database: ${dbFile}`);
    expect(out).toContain("2 principal(s)");
    expect(out).toContain("(alice, bob)");
    expect(out).toContain('"Authorization": "Bearer <token>"');
    expect(out + server.stderr()).not.toContain(ALICE);
    expect(out + server.stderr()).not.toContain(BOB);
  });

  it("answers 401 (WWW-Authenticate: Bearer) without a token, with a wrong one, or another scheme", async () => {
    for (const auth of [undefined, "Bearer wrong-token-wrong-token", `Basic ${ALICE}`, `Bearer ${ALICE}x`, "Bearer"]) {
      const r = await post(auth);
      expect(r.status, String(auth)).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await r.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });
    }
    // The scheme is case-insensitive (RFC 7235); the token is not.
    expect((await post(`bearer ${ALICE}`)).status).toBe(200);
  });

  it("refuses the SDK client without a token", async () => {
    const err = await connectHttp(server.url).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/401|Unauthorized/);
  });

  it("calls every registered tool successfully as the token's principal", async () => {
    const results = await callEveryTool(alice, "e2e-http");
    expect([...results.keys()]).toEqual(TOOL_NAMES);
  });

  it("a working session across calls as the token's principal: task, saves, resume, query", async () => {
    await handoffSession((tool, args) => alice.sc(tool, args), "handoff-http");
  });

  it("resolves each request's caller from its token: bob cannot see alice's tasks", async () => {
    const task = (await alice.sc("create_task_or_note", { title: "alice only", project: "e2e-http" }))
      .task_id as string;
    const untagged = (await alice.sc("create_task_or_note", { title: "alice's untagged note" })).task_id as string;
    for (const id of [task, untagged]) {
      expect(await bob.sc("update_task", { task_id: id, title: "bob's now" })).toEqual(NOT_FOUND);
      expect(await bob.sc("assign_task", { task_id: id, assignee: "bob" })).toEqual(NOT_FOUND);
    }
    const mine = await bob.call("create_task_or_note", { title: "bob's", project: "other" });
    expect(mine.isError).toBeFalsy();
    expect(await alice.sc("update_task", { task_id: mine.structuredContent?.task_id, title: "x" })).toEqual(NOT_FOUND);
  });

  it("a session belongs to the token that opened it: bob can neither DELETE nor use alice's", async () => {
    const sid = (alice.client.transport as StreamableHTTPClientTransport).sessionId as string;
    expect(sid).toMatch(/^s1\./);
    const as = (token: string) => ({
      authorization: `Bearer ${token}`,
      "mcp-session-id": sid,
      "mcp-protocol-version": "2025-06-18",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    });
    const del = await fetch(server.url, { method: "DELETE", headers: as(BOB) });
    expect(del.status).toBe(404);
    expect(await del.json()).toMatchObject({ error: { message: "Session not found" } });
    const list = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" });
    const used = await fetch(server.url, { method: "POST", headers: as(BOB), body: list });
    expect(used.status).toBe(404);
    expect(await used.json()).toMatchObject({ id: 9, error: { message: "Session not found" } });
    // Alice's own session is untouched; her DELETE is refused too (sessions end by expiry).
    const r = await alice.call("query_tasks", { project: "e2e-http" });
    expect(r.isError).toBeFalsy();
    expect((await fetch(server.url, { method: "DELETE", headers: as(ALICE) })).status).toBe(405);
  });

  it("records the authenticated principal on every event, and the history holds", async () => {
    const db = await openDatabase<ShampooDB>(dbFile);
    try {
      const rows = await db.db.selectFrom("shampoo_history").select(["principal", "session_id"]).execute();
      expect(new Set(rows.map((r) => r.principal))).toEqual(new Set(["alice", "bob"]));
      // Streamable HTTP session ids, not "stdio".
      for (const r of rows) expect(r.session_id).toMatch(/^[\w-]{22}$/);
      expect((await checkInvariants(db.db)).problems).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
