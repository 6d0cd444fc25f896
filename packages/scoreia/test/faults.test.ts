/**
 * The Chamber survives its database (issue 14 §6, docs/storage.md "Faults"), on the real binary
 * over stdio:
 * - PostgreSQL: the server's own backends terminated mid-load (pg_terminate_backend from another
 *   connection): it keeps serving, failed calls answer `db_unavailable` with retryable true in
 *   the contract's envelope, and every attempt it acknowledged is there afterwards;
 * - PostgreSQL through a TCP proxy that stops forwarding (a stalled network): calls fail with
 *   `db_unavailable` at the URL's query_timeout instead of hanging, tools/list answers meanwhile,
 *   and the server carries on by itself once the network does;
 * - SQLite: another process holds the write lock for 8 s: tools/list and observe_chamber answer
 *   while it is held, and a write answers `database_busy` (retryable) before the lock goes;
 * - a full database (in process) answers `storage_full` (retryable) and writes again once there
 *   is room.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sql } from "kernel";
import {
  dropPgSchema,
  holdSqliteWriteLock,
  PG_URL,
  pgUrlThrough,
  pgUrlWithSchema,
  StallingProxy,
} from "kernel/store/testing.ts";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { IDENTITY, type StdioServer, startStdio, tempDir } from "./e2e/support.ts";
import { type Harness, harness } from "./support/chamber.ts";

type Sc = Record<string, unknown>;
const enter = (seed: string) => ({ ...IDENTITY, suite: "chambre-chrono-v0", seed });

describe("the Chamber over stdio while PostgreSQL terminates its backends", () => {
  const schema = `t_chfaults_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const app = `chamber_faults_${process.pid}`;
  const data = tempDir("chamber-faults-pg");
  let server: StdioServer | undefined;
  afterAll(async () => {
    await server?.stop();
    data.remove();
    await dropPgSchema(schema);
  });

  it("keeps serving, answers db_unavailable (retryable) for what failed, and keeps every attempt it acknowledged", async () => {
    const url = new URL(pgUrlWithSchema(schema));
    url.searchParams.set("application_name", app);
    server = await startStdio(["--db", url.toString(), "--data-dir", data.dir]);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const handles: string[] = [];
    const refused: Sc[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const call = server.session.call("enter_open_challenge", enter(`faults-${i}`));
        if (i % 10 === 4) {
          await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
            app,
          ]);
        }
        const r = (await call).structuredContent as Sc;
        if (r.ok) handles.push(r.attempt_handle as string);
        else refused.push(r);
      }
    } finally {
      await admin.end();
    }
    for (const r of refused) expect(r).toMatchObject({ ok: false, code: "db_unavailable", retryable: true });
    expect(handles.length).toBeGreaterThan(25);
    for (const h of handles) {
      const out = (await server.session.call("seal_attempt", { challenge_handle: h })).structuredContent as Sc;
      expect(out.ok).toBe(true);
    }
  });
});

describe("the Chamber over stdio while its PostgreSQL connection stalls (TCP proxy that stops forwarding)", () => {
  const schema = `t_chstall_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const data = tempDir("chamber-faults-stall");
  let server: StdioServer | undefined;
  let proxy: StallingProxy | undefined;
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    data.remove();
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
    server = await startStdio(["--db", url, "--data-dir", data.dir]);
    const s = server.session;
    const first = await s.sc("enter_open_challenge", enter("stall-1"));
    expect(first.ok).toBe(true);

    proxy.stalled = true;
    // Without query_timeout this call would wait for the whole outage.
    expect(await s.sc("enter_open_challenge", enter("stall-2"))).toMatchObject({
      ok: false,
      code: "db_unavailable",
      retryable: true,
    });
    expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);

    proxy.stalled = false;
    expect((await s.sc("enter_open_challenge", enter("stall-3"))).ok).toBe(true);
    const sealed = await s.sc("seal_attempt", { challenge_handle: first.attempt_handle as string });
    expect(sealed.ok).toBe(true);
    expect(server.stderr()).not.toMatch(/Unhandled|uncaught/i);
  });
});

describe("the Chamber over stdio while another process holds the SQLite write lock for 8 s", () => {
  const data = tempDir("chamber-faults-lock");
  let server: StdioServer | undefined;
  afterEach(async () => {
    await server?.stop();
    data.remove();
  });

  it("tools/list and observe_chamber answer while it is held; a write answers database_busy (retryable) before it goes", async () => {
    const file = `${data.dir}/c.db`;
    server = await startStdio(["--db", file, "--data-dir", data.dir]);
    const s = server.session;
    const entry = await s.sc("enter_open_challenge", enter("faults-lock"));
    expect(entry.ok).toBe(true);
    const handle = entry.attempt_handle as string;
    const object = String((entry.objects as string[] | undefined)?.[0] ?? "room");
    let released = false;
    const { exited } = await holdSqliteWriteLock(file, 8000);
    void exited.then(() => {
      released = true;
    });
    const write = s.client.callTool({
      name: "enter_open_challenge",
      arguments: enter("faults-lock-2"),
    }) as Promise<CallToolResult>;
    for (let i = 0; i < 5; i++) {
      expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);
      const seen = await s.sc("observe_chamber", { challenge_handle: handle, object });
      expect(seen.code).not.toBe("database_busy");
      expect(seen.attempt_handle).toBe(handle);
    }
    expect(released).toBe(false);
    const answer = (await write).structuredContent as Sc;
    expect(released).toBe(false);
    expect(answer).toMatchObject({ ok: false, code: "database_busy", retryable: true });
    await exited;
    expect((await s.sc("enter_open_challenge", enter("faults-lock-2"))).ok).toBe(true);
  });
});

// SQLite's size limit stands for a full disk (as in kernel/test/faults-sqlite.test.ts and
// SHAMPOO's faults test); PostgreSQL's 53100 disk_full maps to the same code (kernel store/faults.ts).
describe("the Chamber in process (sqlite): a full database", () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it("answers storage_full (retryable) in the contract's envelope; attempts enter again once there is room", async () => {
    h = await harness("sqlite");
    const db = h.db.db;
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(db);
    await sql.raw(`PRAGMA max_page_count = ${Number(rows[0]?.page_count)}`).execute(db);
    // No page may be added: the first attempt that needs one is refused.
    let refused: Sc | undefined;
    let entered = 0;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await h.sc("enter_open_challenge", enter(`full-${i}`));
      if (r.ok === true) entered++;
      else refused = r;
    }
    expect(refused).toMatchObject({ ok: false, code: "storage_full", retryable: true });
    await sql.raw("PRAGMA max_page_count = 1073741823").execute(db);
    const again = await h.sc("enter_open_challenge", enter("full-again"));
    expect(again.ok).toBe(true);
    const count = await db.selectFrom("chamber_attempts").select(db.fn.countAll<number>().as("n")).executeTakeFirst();
    expect(Number(count?.n)).toBe(entered + 1);
  });
});
