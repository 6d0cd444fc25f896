/**
 * SHAMPOO survives its database (issue 14 §6, docs/storage.md "Faults"), on the real binary over
 * stdio where a fault is about the process, in process where it is about the answer:
 * - PostgreSQL: the server's own backends terminated mid-load (pg_terminate_backend from another
 *   connection): the server keeps serving, failed calls answer `db_unavailable` (retryable),
 *   nothing acknowledged is lost;
 * - PostgreSQL through a TCP proxy that stops forwarding (a stalled network): calls fail with
 *   `db_unavailable` at the URL's query_timeout instead of hanging, tools/list answers meanwhile,
 *   and the server carries on by itself once the network does;
 * - SQLite: another process holds the write lock for 8 s: tools/list and reads answer while it
 *   is held, a write answers `database_busy` (retryable) before the lock goes;
 * - a full database answers `storage_full` and writes again once there is room;
 * - U+0000 in an argument is refused the same way on both engines, and nothing is stored.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sql } from "kernel";
import {
  DIALECTS,
  dropPgSchema,
  holdSqliteWriteLock,
  PG_URL,
  pgUrlThrough,
  pgUrlWithSchema,
  StallingProxy,
} from "kernel/store/testing.ts";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type StdioServer, startStdio } from "./e2e/support.ts";
import { type Harness, harness } from "./support/shampoo.ts";

type Sc = Record<string, unknown>;
const sc = (r: CallToolResult) => r.structuredContent as Sc;

describe("SHAMPOO over stdio while PostgreSQL terminates its backends", () => {
  const schema = `t_shfaults_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const app = `shampoo_faults_${process.pid}`;
  let server: StdioServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await dropPgSchema(schema);
  });

  it("keeps serving, answers db_unavailable (retryable) for what failed, and loses nothing it acknowledged", async () => {
    const url = new URL(pgUrlWithSchema(schema));
    url.searchParams.set("application_name", app);
    server = await startStdio(["--db", url.toString()]);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const acknowledged: string[] = [];
    const refused: Sc[] = [];
    try {
      for (let i = 0; i < 60; i++) {
        const name = `Entity ${i}`;
        const call = server.session.client.callTool({
          name: "create_entities",
          arguments: { entities: [{ name, entityType: "thing", observations: [`obs ${i}`] }] },
        }) as Promise<CallToolResult>;
        // Terminated while the call is in flight, four times over the run.
        if (i % 15 === 7) {
          await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
            app,
          ]);
        }
        const r = await call;
        if (r.isError) refused.push(sc(r));
        else acknowledged.push(name);
      }
    } finally {
      await admin.end();
    }
    for (const r of refused) expect(r).toMatchObject({ error_type: "db_unavailable", retryable: true });
    expect(acknowledged.length).toBeGreaterThan(40);
    // Still serving after the last termination, and every acknowledged entity is there.
    const graph = sc((await server.session.client.callTool({ name: "read_graph", arguments: {} })) as CallToolResult);
    const names = new Set((graph.entities as Array<{ name: string }>).map((e) => e.name));
    for (const n of acknowledged) expect(names.has(n)).toBe(true);
    expect(server.stderr()).not.toMatch(/Unhandled|uncaught/i);
  });
});

describe("SHAMPOO over stdio while its PostgreSQL connection stalls (TCP proxy that stops forwarding)", () => {
  const schema = `t_shstall_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let server: StdioServer | undefined;
  let proxy: StallingProxy | undefined;
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await dropPgSchema(schema);
  });

  it("calls answer db_unavailable (retryable) at query_timeout, tools/list answers, and it serves again once the network does", async () => {
    proxy = new StallingProxy();
    await proxy.listen();
    const url = pgUrlThrough(
      proxy,
      { statement_timeout: "300", query_timeout: "800", connect_timeout: "1" },
      pgUrlWithSchema(schema),
    );
    server = await startStdio(["--db", url]);
    const client = server.session.client;
    const create = async (name: string) =>
      (await client.callTool({
        name: "create_entities",
        arguments: { entities: [{ name, entityType: "thing", observations: [`about ${name}`] }] },
      })) as CallToolResult;
    expect((await create("Before")).isError).toBeFalsy();

    proxy.stalled = true;
    // Without query_timeout this call would wait for the whole outage.
    const during = await create("During");
    expect(during.isError).toBe(true);
    expect(sc(during)).toMatchObject({ error_type: "db_unavailable", retryable: true });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const read = (await client.callTool({ name: "read_graph", arguments: {} })) as CallToolResult;
    expect(sc(read)).toMatchObject({ error_type: "db_unavailable", retryable: true });

    proxy.stalled = false;
    expect((await create("After")).isError).toBeFalsy();
    const graph = sc((await client.callTool({ name: "read_graph", arguments: {} })) as CallToolResult);
    const names = (graph.entities as Array<{ name: string }>).map((e) => e.name).sort();
    // The stalled write never reached the server: "During" is absent, the acknowledged ones are there.
    expect(names).toEqual(["After", "Before"]);
    expect(server.stderr()).not.toMatch(/Unhandled|uncaught/i);
  });
});

describe("SHAMPOO over stdio while another process holds the SQLite write lock for 8 s", () => {
  let dir: string;
  let server: StdioServer | undefined;
  afterEach(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("tools/list and reads answer while the lock is held; a write answers database_busy (retryable) before it goes", async () => {
    dir = mkdtempSync(join(tmpdir(), "shampoo-faults-"));
    const file = join(dir, "s.db");
    server = await startStdio(["--db", file]);
    const client = server.session.client;
    await client.callTool({
      name: "create_entities",
      arguments: { entities: [{ name: "Kept", entityType: "thing", observations: ["committed before"] }] },
    });
    let released = false;
    const { exited } = await holdSqliteWriteLock(file, 8000);
    void exited.then(() => {
      released = true;
    });

    const write = client.callTool({
      name: "create_entities",
      arguments: { entities: [{ name: "Blocked", entityType: "thing", observations: ["waits"] }] },
    }) as Promise<CallToolResult>;
    // While the write waits for the lock, the rest of the server answers.
    for (let i = 0; i < 5; i++) {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const found = sc(
        (await client.callTool({ name: "open_nodes", arguments: { names: ["Kept"] } })) as CallToolResult,
      );
      expect((found.entities as Array<{ name: string }>).map((e) => e.name)).toEqual(["Kept"]);
    }
    expect(released).toBe(false);
    const answer = await write;
    expect(released).toBe(false);
    expect(answer.isError).toBe(true);
    expect(sc(answer)).toMatchObject({ error_type: "database_busy", retryable: true });
    await exited;
    const again = (await client.callTool({
      name: "create_entities",
      arguments: { entities: [{ name: "Blocked", entityType: "thing", observations: ["written after"] }] },
    })) as CallToolResult;
    expect(again.isError).toBeFalsy();
  });
});

describe.each(DIALECTS)("SHAMPOO in process (%s): U+0000", (dialect) => {
  let h: Harness;
  afterEach(async () => h?.close());

  it("U+0000 in an argument is refused as a validation error and nothing is stored", async () => {
    h = await harness(dialect);
    const a = await h.as({ principal: "ada", grants: ["*", ""] });
    for (const args of [
      { entities: [{ name: "A\u0000B", entityType: "thing", observations: ["x"] }] },
      { entities: [{ name: "AB", entityType: "thing", observations: ["x\u0000y"] }] },
    ]) {
      const r = await a.call("create_entities", args);
      expect(r.isError).toBe(true);
      expect(sc(r).error_type).toBe("validation");
      expect(String(sc(r).error)).toContain("U+0000 (NUL)");
    }
    const graph = await a.sc("read_graph", {});
    expect(graph.entities).toEqual([]);
  });
});

// SQLite's size limit stands for a full disk (see kernel/test/faults-sqlite.test.ts); PostgreSQL's
// 53100 disk_full maps to the same code (store/faults.ts) and was tried by hand (docs/storage.md).
describe("SHAMPOO in process (sqlite): a full database", () => {
  let h: Harness;
  afterEach(async () => h?.close());

  it("answers storage_full (retryable); writes succeed once there is room", async () => {
    h = await harness("sqlite");
    const a = await h.as({ principal: "ada", grants: ["*", ""] });
    const db = h.shampoo.database.db;
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(db);
    await sql.raw(`PRAGMA max_page_count = ${Number(rows[0]?.page_count) + 1}`).execute(db);
    const big = { entities: [{ name: "Big", entityType: "thing", observations: ["word ".repeat(20_000)] }] };
    const r = await a.call("create_entities", big);
    expect(r.isError).toBe(true);
    expect(sc(r)).toMatchObject({ error_type: "storage_full", retryable: true });
    await sql.raw("PRAGMA max_page_count = 1073741823").execute(db);
    expect((await a.call("create_entities", big)).isError).toBeFalsy();
  });
});
