import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type Database, type DialectName, openDatabase } from "./db.ts";

/**
 * Contract suites run per dialect: the same store tests loop over SQLite (a real temporary
 * file) and PostgreSQL (a fresh schema in the `test` database). PostgreSQL is required: CI
 * starts it, and a developer machine of this kind runs it. Set SCOREIA_PG_URL to point elsewhere.
 */
export const PG_URL = process.env.SCOREIA_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const DIALECTS: DialectName[] = ["sqlite", "postgres"];

export interface TestDb<DB> extends Database<DB> {
  /** The open target, for a second handle (e.g. a restarted server). */
  target: string;
  pgSchema?: string;
  drop(): Promise<void>;
}

export async function openTestDatabase<DB>(dialect: DialectName): Promise<TestDb<DB>> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "scoreia-test-"));
    const target = join(dir, "test.db");
    const d = await openDatabase<DB>(target);
    return {
      ...d,
      target,
      drop: async () => {
        await d.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${process.pid}_${Math.floor(performance.now() * 1000).toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const d = await openDatabase<DB>(PG_URL, { pgSchema: schema, pgPoolSize: 4 });
  return {
    ...d,
    target: PG_URL,
    pgSchema: schema,
    drop: async () => {
      await d.close().catch(() => {});
      await dropPgSchema(schema);
    },
  };
}

/** `url` (default PG_URL) with `?schema=NAME`, the form `--db` and openDatabase accept. */
export function pgUrlWithSchema(schema: string, url = PG_URL): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return u.toString();
}

/** Drops a schema and everything in it (tests and benchmarks clean up their own). */
export async function dropPgSchema(schema: string, url = PG_URL): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${JSON.stringify(schema)}`);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await c.end();
  }
}

/**
 * Another process in the middle of a write on a SQLite file: it begins IMMEDIATE (the write
 * lock), runs `sqlText` without committing, and commits `ms` later. Resolves once the lock is
 * held; `exited` resolves when the process is gone (its commit done).
 */
export async function holdSqliteWriteLock(
  file: string,
  ms: number,
  sqlText = "",
): Promise<{ exited: Promise<unknown> }> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const db = new (require("better-sqlite3"))(process.argv[1]);
       db.exec("BEGIN IMMEDIATE");
       if (process.argv[3]) db.exec(process.argv[3]);
       process.stdout.write("locked\\n");
       setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[2]));`,
      file,
      String(ms),
      sqlText,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`lock holder exited (${code}) before taking the lock`)));
  });
  return { exited };
}

/** A TCP proxy to PostgreSQL that can stop forwarding in both directions (a stalled network). */
export class StallingProxy {
  private server: Server;
  private sockets = new Set<Socket>();
  stalled = false;
  port = 0;

  /** `target`: PG_URL's host and port by default. */
  constructor(target: { host: string; port: number } = pgHostPort()) {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("error", () => {});
        s.on("close", () => this.sockets.delete(s));
      }
      client.on("data", (d) => {
        if (!this.stalled) upstream.write(d);
      });
      upstream.on("data", (d) => {
        if (!this.stalled) client.write(d);
      });
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve) =>
      this.server.listen(0, "127.0.0.1", () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      }),
    );
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function pgHostPort(url = PG_URL): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432) };
}

/** `url` (PG_URL by default) routed through `proxy`, with the extra query parameters given. */
export function pgUrlThrough(proxy: StallingProxy, params: Record<string, string> = {}, url = PG_URL): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${proxy.port}`;
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
