import BetterSqlite3 from "better-sqlite3";
import { Kysely, type Migration, Migrator, PostgresDialect, type SqliteDatabase, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { type Checkpointer, startCheckpointer } from "./checkpointer.ts";

export type DialectName = "sqlite" | "postgres";

export interface Database<DB> {
  db: Kysely<DB>;
  dialect: DialectName;
  /** Human-readable location (file path or URL without password). */
  location: string;
  /** PostgreSQL schema the connection's search_path points at, if one was chosen. */
  schema?: string;
  /**
   * Runs `fn` in one transaction and commits, or rolls back if it throws. Same contract as
   * Kysely's `db.transaction().execute(fn)`, which it is on PostgreSQL. On SQLite it holds the
   * single connection and issues BEGIN IMMEDIATE / COMMIT itself, and queries built with
   * `prepared()` run on better-sqlite3 directly inside it (sqliteTransaction below). Never call it
   * again inside `fn` (SQLite has one connection: that would wait for itself).
   */
  transaction<T>(fn: (trx: Kysely<DB>) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Runs `fn`, which only reads, on one consistent snapshot: every statement in it sees the same
   * committed state. Reads never wait for a writer, not even another process holding a long write
   * transaction such as a bulk import, and never hold one up.
   * - SQLite: a deferred BEGIN on the held connection (the WAL snapshot starts at the first read);
   *   queries built with `prepared()` run directly inside it, as in `transaction`. `fn` must not
   *   write to the database (TEMP tables are fine). A write would have to take the write lock
   *   mid-transaction and fails at once when another writer holds it.
   * - PostgreSQL: REPEATABLE READ, READ ONLY (the engine refuses any write).
   *
   * Never call it, or `transaction`, again inside `fn`.
   */
  read<T>(fn: (trx: Kysely<DB>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * SQLite: how long BEGIN may wait for another process's write lock before failing with
   * "database is locked" (SQLITE_BUSY). Without it: the connection's busy_timeout, 5 s, during
   * which better-sqlite3 blocks the event loop. 0 fails at once: for best-effort writes that can
   * retry later rather than stall every call. PostgreSQL: ignored (no lock is taken at BEGIN).
   */
  busyTimeoutMs?: number;
}

/** The SQLite connections' busy_timeout (openSqlite). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  /**
   * PostgreSQL schema to use (created if missing); isolates test runs and products. A URL may
   * also carry it as `?schema=NAME`; both may be given only if they agree.
   */
  pgSchema?: string;
  pgPoolSize?: number;
}

/** Opens `postgres://…` / `postgresql://…` URLs on PostgreSQL, anything else as a SQLite file path. */
export async function openDatabase<DB>(target: string, opts: OpenOptions = {}): Promise<Database<DB>> {
  if (/^postgres(ql)?:\/\//.test(target)) return openPostgres<DB>(target, opts);
  return openSqlite<DB>(target);
}

/** How much of a SQLite database file is read through a memory map (larger files: the rest by read()). */
export const SQLITE_MMAP_BYTES = 1024 ** 3;

function openSqlite<DB>(file: string): Database<DB> {
  const raw = new BetterSqlite3(file);
  // WAL: readers never block the writer; NORMAL sync is durable across process crashes in WAL
  // mode (only an OS crash can lose the last transactions). busy_timeout lets a second process wait.
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  raw.pragma("foreign_keys = ON");
  raw.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // Reads map the database file instead of copying pages through read() into SQLite's small page
  // cache (2 MB by default): on a 577 MB knowledge graph (100,000 entities) search_nodes over
  // stdio went 4.72/4.82 -> 4.17/4.21 ms mean, and query_tasks full text at 100,000 tasks p95
  // 6.2/6.5 -> 5.7/5.5 ms (alternating bench runs). Writes still go through the WAL.
  raw.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
  // Keeps planner statistics fresh for the indexes that need them (cheap; SQLite's advice).
  raw.pragma("optimize = 0x10002");
  // Checkpoints run on a worker thread (checkpointer.ts); an in-memory database has no log to copy.
  const inMemory = file === ":memory:" || file === "";
  let checkpointer: Checkpointer | null = null;
  if (!inMemory) {
    raw.pragma("wal_autocheckpoint = 0");
    checkpointer = startCheckpointer(file, (e) => {
      process.stderr.write(`sqlite checkpoint worker failed (${String(e)}); checkpoints return to the writer\n`);
      if (raw.open) raw.pragma("wal_autocheckpoint = 1000");
    });
  }
  const statements = statementCache(raw);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: statements }) });
  return {
    db,
    dialect: "sqlite",
    location: file,
    transaction: (fn, opts) => sqliteTransaction(db, raw, statements, "begin immediate", fn, opts?.busyTimeoutMs),
    read: (fn) => sqliteTransaction(db, raw, statements, "begin deferred", fn),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** The statements a Kysely instance may run directly while it holds an open sqliteTransaction. */
const directSqlite = new WeakMap<object, SqliteDatabase>();

/**
 * The better-sqlite3 statements `db` may run directly, synchronously: only while `db` is the
 * connection of a sqliteTransaction in progress, which holds Kysely's single connection (nothing
 * else can run on it meanwhile) and has begun the transaction. Undefined everywhere else.
 */
export function directStatements(db: Kysely<unknown>): SqliteDatabase | undefined {
  return directSqlite.get(db);
}

/**
 * A transaction on SQLite without Kysely's transaction machinery: on the Chamber's action path
 * (three statements) Kysely's begin/commit and executor layers cost about as much CPU as SQLite
 * itself. The connection is taken through Kysely (`db.connection()`), so Kysely queries elsewhere
 * wait for it exactly as they wait for a Kysely transaction; inside, `fn` may use the builder on
 * `trx` as usual, and prepared() runs its statements directly (directStatements).
 *
 * Writes begin IMMEDIATE: they take the write lock at once, so a second process waits
 * (busy_timeout) instead of failing at its first write (see statementCache). Reads begin
 * DEFERRED: in WAL mode they take no write lock, so they neither wait for a writer nor block one.
 */
async function sqliteTransaction<DB, T>(
  db: Kysely<DB>,
  raw: BetterSqlite3.Database,
  statements: SqliteDatabase,
  begin: "begin immediate" | "begin deferred",
  fn: (trx: Kysely<DB>) => Promise<T>,
  busyTimeoutMs?: number,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    if (busyTimeoutMs === undefined) statements.prepare(begin).run([]);
    else {
      // Only this BEGIN waits less: the connection is held, nothing else runs on it meanwhile.
      raw.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      try {
        statements.prepare(begin).run([]);
      } finally {
        raw.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      }
    }
    directSqlite.set(conn, statements);
    try {
      const out = await fn(conn);
      directSqlite.delete(conn);
      statements.prepare("commit").run([]);
      return out;
    } catch (e) {
      directSqlite.delete(conn);
      // SQLite may already have rolled back by itself (some errors end the transaction).
      if (raw.inTransaction) statements.prepare("rollback").run([]);
      throw e;
    }
  });
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs about as much as running a
 * small statement. This hands it back the statement prepared earlier for the same SQL text
 * (Kysely binds the values on each run), bounded LRU. A statement still being iterated by a
 * stream is never handed out twice: that one call gets a fresh statement.
 */
function statementCache(raw: BetterSqlite3.Database, max = 256): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(sqlText: string) {
      // Kysely opens transactions with a deferred BEGIN; a second process writing the same file
      // would then fail with "database is locked" at its first write instead of waiting
      // (busy_timeout only covers lock acquisition at BEGIN IMMEDIATE). Take the write lock up front.
      const text = sqlText === "begin" ? "begin immediate" : sqlText;
      const hit = cache.get(text);
      if (hit) {
        if (hit.busy) return raw.prepare(text);
        cache.delete(text);
        cache.set(text, hit);
        return hit;
      }
      const stmt = raw.prepare(text);
      cache.set(text, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
      return stmt;
    },
  };
}

/**
 * Splits the `schema` query parameter off a postgres URL (pg itself does not know it). Other
 * query parameters (sslmode, …) stay on the URL handed to pg.
 */
export function splitPgSchema(target: string): { url: string; schema?: string } {
  const u = new URL(target);
  if (!u.searchParams.has("schema")) return { url: target };
  const all = u.searchParams.getAll("schema");
  if (all.length > 1) throw new Error("postgres URL has more than one schema parameter");
  u.searchParams.delete("schema");
  return { url: u.toString(), schema: all[0] ?? "" };
}

async function openPostgres<DB>(target: string, opts: OpenOptions): Promise<Database<DB>> {
  const { url, schema: fromUrl } = splitPgSchema(target);
  const given = opts.pgSchema || undefined;
  if (fromUrl !== undefined && given !== undefined && fromUrl !== given) {
    throw new Error(`schema ${fromUrl} in the URL disagrees with pgSchema ${given}`);
  }
  const schema = given ?? fromUrl;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`bad schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]{0,62}`);
  }
  if (schema) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await c.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.pgPoolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const u = new URL(url);
  u.password = "";
  return {
    db,
    dialect: "postgres",
    location: u.toString() + (schema ? ` (schema ${schema})` : ""),
    ...(schema ? { schema } : {}),
    transaction: (fn) => db.transaction().execute(fn),
    read: (fn) => db.transaction().setIsolationLevel("repeatable read").setAccessMode("read only").execute(fn),
    close: () => db.destroy(),
  };
}

/**
 * Runs a product's migrations. Each product keeps its own migration table so that both
 * products can share one database. Migrations receive the dialect because some DDL differs.
 */
export async function migrate<DB>(
  database: Database<DB>,
  table: string,
  migrations: Record<string, (db: Kysely<unknown>, dialect: DialectName) => Promise<void>>,
): Promise<void> {
  const provider = {
    async getMigrations(): Promise<Record<string, Migration>> {
      const out: Record<string, Migration> = {};
      for (const [name, up] of Object.entries(migrations)) {
        out[name] = { up: (db) => up(db, database.dialect) };
      }
      return out;
    },
  };
  const migrator = new Migrator({
    db: database.db,
    provider,
    migrationTableName: table,
    migrationLockTableName: `${table}_lock`,
    // Without an explicit schema Kysely looks for its tables in every schema, so a second
    // schema in the same database would see the first one's migration tables.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error");
    throw new Error(`migration ${failed?.migrationName ?? "?"} failed: ${String(error)}`, { cause: error });
  }
}

export type { Generated, Kysely, RawBuilder, Transaction } from "kysely";
export { sql };
