import BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  type Migration,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  sql,
} from "kysely";
import type pg from "pg";
import { logger } from "../log.ts";
import { type Checkpointer, startCheckpointer } from "./checkpointer.ts";
import { pgConnectionSettings } from "./faults.ts";

const dbLog = logger("store");

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
   * "database is locked" (SQLITE_BUSY, answered to callers as `database_busy`, retryable).
   * Default SQLITE_BUSY_TIMEOUT_MS. The wait never blocks the event loop: each attempt takes the
   * lock without waiting (busy_timeout 0) and, while it is held elsewhere, the next attempt comes
   * after a timer, with the connection free for reads meanwhile. 0 tries once: for best-effort
   * writes that can retry later. PostgreSQL: ignored (no lock is taken at BEGIN).
   */
  busyTimeoutMs?: number;
}

/**
 * How long a SQLite write waits for another process's write lock (asynchronously, see
 * TransactionOptions.busyTimeoutMs), and the connections' busy_timeout, which only statements
 * outside a transaction and the migrations at start use.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  /**
   * PostgreSQL schema to use (created if missing); isolates test runs and products. A URL may
   * also carry it as `?schema=NAME`; both may be given only if they agree.
   */
  pgSchema?: string;
  pgPoolSize?: number;
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY or `waitMs` has passed; between
 * attempts a timer (2, 4, 8 … 50 ms), never a busy wait. The last SQLITE_BUSY is thrown.
 */
async function retryBusy<T>(waitMs: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + Math.max(0, waitMs);
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      return await attempt();
    } catch (e) {
      const left = deadline - Date.now();
      if (!isSqliteBusy(e) || left <= 0) throw e;
      await sleep(Math.min(delay, left));
    }
  }
}

/** Runs BEGIN once with busy_timeout 0: fails at once (SQLITE_BUSY) while another process writes. */
function beginNow(raw: BetterSqlite3.Database, run: () => void): void {
  raw.pragma("busy_timeout = 0");
  try {
    run();
  } finally {
    raw.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  }
}

/**
 * Kysely's own transactions (`db.transaction()`, the migrator) on SQLite: BEGIN IMMEDIATE
 * retried on timers as in sqliteTransaction, instead of better-sqlite3's busy_timeout, which
 * spins on the event loop (issue 14: a bulk import in another process froze tools/list for 5 s).
 * Kysely holds its one connection meanwhile: other queries wait for it, the event loop does not.
 */
class SqliteDialectWithAsyncBusy extends SqliteDialect {
  constructor(
    private readonly raw: BetterSqlite3.Database,
    private readonly config: ConstructorParameters<typeof SqliteDialect>[0],
  ) {
    super(config);
  }

  /**
   * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its Migrator
   * ran without one and without a lock (SQLite's "lock" is a no-op): processes started at once
   * on a fresh file each applied the same migration ("table … already exists"). Saying yes makes
   * the Migrator read its state and apply inside one BEGIN IMMEDIATE transaction (below), so
   * concurrent starts serialise and the later ones find the work done.
   */
  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }

  override createDriver(): Driver {
    const raw = this.raw;
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await retryBusy(SQLITE_BUSY_TIMEOUT_MS, async () => {
          let pending: Promise<unknown> | undefined;
          beginNow(raw, () => {
            pending = connection.executeQuery(CompiledQuery.raw("begin immediate"));
          });
          await pending;
        });
      }
    })(this.config);
  }
}

/** Opens `postgres://…` / `postgresql://…` URLs on PostgreSQL, anything else as a SQLite file path. */
export async function openDatabase<DB>(target: string, opts: OpenOptions = {}): Promise<Database<DB>> {
  if (/^postgres(ql)?:\/\//.test(target)) return openPostgres<DB>(target, opts);
  return openSqlite<DB>(target);
}

/** How much of a SQLite database file is read through a memory map (larger files: the rest by read()). */
export const SQLITE_MMAP_BYTES = 1024 ** 3;

/** SQLite's page cache per connection, in KiB (an upper bound: pages are allocated as used). */
export const SQLITE_CACHE_KIB = 64 * 1024;

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
  // A page cache of SQLITE_CACHE_KIB (SQLite's default is 2 MB): the pages a write changes
  // (recent WAL frames are read back through the cache, not the map) and the index pages every
  // write probes stay in memory between transactions (docs/storage.md: figures).
  raw.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  // Keeps planner statistics fresh for the indexes that need them (cheap; SQLite's advice).
  raw.pragma("optimize = 0x10002");
  // Checkpoints run on a worker thread (checkpointer.ts); an in-memory database has no log to copy.
  const inMemory = file === ":memory:" || file === "";
  let checkpointer: Checkpointer | null = null;
  if (!inMemory) {
    raw.pragma("wal_autocheckpoint = 0");
    checkpointer = startCheckpointer(file, (e) => {
      dbLog.error({ err: String(e) }, "sqlite checkpoint worker failed; checkpoints return to the writer");
      if (raw.open) raw.pragma("wal_autocheckpoint = 1000");
    });
  }
  const statements = statementCache(raw);
  const db = new Kysely<DB>({ dialect: new SqliteDialectWithAsyncBusy(raw, { database: statements }) });
  // Reads on their own connection (a file only: an in-memory database is one connection). A write
  // transaction holds Kysely's one connection across its awaits: a long one (enrich_context wrote
  // for 5.5 s) made every read of the process wait behind it. In WAL mode a second connection
  // reads the last committed state meanwhile, never waiting for the writer.
  const reader = inMemory ? null : openSqliteReader<DB>(file);
  return {
    db,
    dialect: "sqlite",
    location: file,
    transaction: (fn, opts) => sqliteTransaction(db, raw, statements, "begin immediate", fn, opts?.busyTimeoutMs),
    read: (fn) =>
      reader
        ? sqliteTransaction(reader.db, reader.raw, reader.statements, "begin deferred", fn)
        : sqliteTransaction(db, raw, statements, "begin deferred", fn),
    close: async () => {
      await checkpointer?.stop();
      await reader?.db.destroy();
      await db.destroy();
    },
  };
}

/** The read connection of a SQLite file: query_only (a write inside a read fails), same cache and map. */
function openSqliteReader<DB>(file: string) {
  const raw = new BetterSqlite3(file);
  raw.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  raw.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
  raw.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  raw.pragma("query_only = ON");
  const statements = statementCache(raw);
  const db = new Kysely<DB>({ dialect: new SqliteDialectWithAsyncBusy(raw, { database: statements }) });
  return { raw, statements, db };
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
  busyTimeoutMs = SQLITE_BUSY_TIMEOUT_MS,
): Promise<T> {
  // Each attempt takes the connection, tries BEGIN without waiting and, while another process
  // holds the write lock, gives the connection back before the timer: reads run in between.
  // A read (DEFERRED) takes no lock at BEGIN and never needs a second attempt.
  return retryBusy(begin === "begin immediate" ? busyTimeoutMs : 0, () =>
    db.connection().execute(async (conn) => {
      beginNow(raw, () => statements.prepare(begin).run([]));
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
    }),
  );
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
  const settings = pgConnectionSettings(target);
  const { url, schema: fromUrl } = splitPgSchema(settings.url);
  const given = opts.pgSchema || undefined;
  if (fromUrl !== undefined && given !== undefined && fromUrl !== given) {
    throw new Error(`schema ${fromUrl} in the URL disagrees with pgSchema ${given}`);
  }
  const schema = given ?? fromUrl;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`bad schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]{0,62}`);
  }
  // Loaded only for PostgreSQL: a SQLite server starts without it.
  const { default: pgModule } = await import("pg");
  const config: pg.PoolConfig = {
    connectionString: url,
    max: opts.pgPoolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    ...settings.pool,
  };
  if (schema) {
    const c = new pgModule.Client(config);
    c.on("error", () => {}); // the failed connect() below reports it
    await c.connect();
    try {
      // Concurrent CREATE SCHEMA IF NOT EXISTS can both pass the existence check, and then one
      // fails on pg_namespace's unique index (23505) or as a duplicate (42P06): instances starting
      // together on a fresh schema. Either way the schema exists now, which is all that is asked.
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((e: { code?: string }) => {
        if (e.code !== "23505" && e.code !== "42P06") throw e;
      });
    } finally {
      await c.end();
    }
  }
  const pool = new pgModule.Pool({ ...config, Client: resilientClient(pgModule.Client) });
  // A backend lost while idle in the pool (a restart, pg_terminate_backend, an idle timeout, a
  // failover) is reported here; without a listener the process would die of it. pg-pool has
  // already dropped that client: the next query opens a new connection.
  pool.on("error", (e) => {
    dbLog.warn(
      { err: e.message, code: (e as { code?: string }).code },
      "idle PostgreSQL connection lost; reconnecting on the next query",
    );
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
 * pg's Client, made safe to lose: a connection that fails while checked out (its backend
 * terminated mid-query) emits "error" on the client, which no one listens to outside the pool's
 * idle time, and an unheard "error" kills the process; the query itself already fails with the
 * error, which is all the caller needs. And a query that hit query_timeout (the network stalled)
 * leaves its connection waiting for an answer that may never come: it is closed, so the pool
 * drops it instead of queueing the next query behind the stalled one.
 */
function resilientClient(Base: typeof pg.Client): typeof pg.Client {
  return class extends Base {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on("error", (e) => dbLog.debug({ err: e.message }, "PostgreSQL connection failed while in use"));
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this only wraps them.
    override query(...args: any[]): any {
      // biome-ignore lint/suspicious/noExplicitAny: see above.
      const out = (super.query as (...a: any[]) => any)(...args);
      if (out && typeof out.then === "function") {
        return out.catch((e: Error) => {
          if (e?.message === "Query read timeout") {
            (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          }
          throw e;
        });
      }
      return out;
    }
  } as typeof pg.Client;
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
  if (await upToDate(database, table, Object.keys(migrations))) return;
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
    // Plain code-unit order. Kysely's default, localeCompare, loads ICU's collation data at the
    // first call (about 20 ms of every start); migration names are ASCII ("001_x"), for which
    // both orders agree.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
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

/**
 * True when the migration table holds exactly these migrations: one read, instead of the
 * Migrator's table introspection (every table's columns, twice), lock table and lock, which an
 * up-to-date database — every start but the first — does not need (about a tenth of a Chamber
 * start over stdio). Anything else (no table yet, a migration missing, one this code does not
 * know) goes through the Migrator, which applies or reports it.
 */
async function upToDate<DB>(database: Database<DB>, table: string, names: readonly string[]): Promise<boolean> {
  const db = database.db as unknown as Kysely<unknown>;
  const exists =
    database.dialect === "postgres"
      ? (
          await sql<{
            t: string | null;
          }>`SELECT to_regclass(${database.schema ? `${database.schema}.${table}` : table})::text AS t`.execute(db)
        ).rows[0]?.t != null
      : (await sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ${table}`.execute(db)).rows.length > 0;
  if (!exists) return false;
  const ref = database.schema ? sql.id(database.schema, table) : sql.id(table);
  const { rows } = await sql<{ name: string }>`SELECT name FROM ${ref}`.execute(db);
  const applied = new Set(rows.map((r) => r.name));
  return applied.size === names.length && names.every((n) => applied.has(n));
}

export type { Generated, Kysely, RawBuilder, Transaction } from "kysely";
export { PG_TIMEOUTS, storeFault } from "./faults.ts";
export { sql };
