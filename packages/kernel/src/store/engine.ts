import { type Kysely, type QueryExecutorProvider, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { Database, DialectName } from "./db.ts";

/**
 * The engine adapter: what each engine can do for coordination, as flags, and the few
 * statements that differ. Both products' services ask the adapter (through their write and read
 * paths, transact.ts); they never test the dialect themselves.
 *
 * - rowLock: `SELECT … FOR UPDATE` holds the rows read until commit (PostgreSQL). SQLite has no
 *   row locks; it needs none, because a write transaction (beginImmediate) holds the whole
 *   database's write lock from BEGIN to COMMIT.
 * - skipLocked: `FOR UPDATE SKIP LOCKED`: concurrent claimers each take a different free row
 *   instead of queueing on the first (PostgreSQL).
 * - advisoryLock: a named lock held until the transaction ends (PostgreSQL
 *   pg_advisory_xact_lock), for work that has no row to lock yet (first migration, a new key).
 * - beginImmediate: writes take the database write lock at BEGIN (SQLite), so two writers never
 *   interleave and a second process waits at BEGIN instead of failing at its first write.
 * - lateral: `CROSS JOIN LATERAL (subquery)` runs one subquery per row of a list (PostgreSQL):
 *   one statement to plan where SQLite, without LATERAL, is given a UNION ALL of copies.
 */
export interface Capabilities {
  rowLock: boolean;
  skipLocked: boolean;
  advisoryLock: boolean;
  beginImmediate: boolean;
  lateral: boolean;
}

export interface Engine {
  dialect: DialectName;
  caps: Capabilities;
  /** Locks the selected rows until commit where the engine has row locks; otherwise unchanged. */
  forUpdate<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** forUpdate that skips rows another transaction holds (claim queues). */
  forUpdateSkipLocked<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Serialises the transactions that take the same `key` until they end; call inside a write. */
  lockKey(trx: QueryExecutorProvider, key: string): Promise<void>;
  /** Does the (unqualified) table exist where the connection looks for tables? */
  tableExists(db: Kysely<unknown>, table: string): Promise<boolean>;
  /**
   * `column` compared and ordered byte by byte (PostgreSQL: COLLATE "C"; SQLite's default
   * BINARY already is), so orderings agree across engines and locales.
   */
  byteOrder(column: string): RawBuilder<unknown>;
  /**
   * A row's cheapest key for a join back to it: rowid on SQLite (every index holds it, so a
   * filter's own index answers alone), `primaryKey` on PostgreSQL.
   */
  rowKey(table: string, primaryKey: string): RawBuilder<unknown>;
  /**
   * Planner hints, for SQLite's rule-based planner (PostgreSQL plans from statistics and gets the
   * plain query): `indexedBy` names the index to walk (` INDEXED BY name`, to append to a table
   * name); `notIndexed` keeps a condition on `expr` out of index selection (unary +);
   * `notIndexedText` the same for a text column, as `(column || '')` (the same value, NULL stays
   * NULL); `planned` writes a value into the SQL text, where the planner can see it (a bound
   * parameter on PostgreSQL).
   */
  indexedBy(index: string): RawBuilder<unknown>;
  notIndexed(expr: RawBuilder<unknown>): RawBuilder<unknown>;
  notIndexedText(column: string): RawBuilder<unknown>;
  planned(value: string | number): RawBuilder<unknown>;
}

const sqlite: Engine = {
  dialect: "sqlite",
  caps: { rowLock: false, skipLocked: false, advisoryLock: false, beginImmediate: true, lateral: false },
  forUpdate: (q) => q,
  forUpdateSkipLocked: (q) => q,
  // The write transaction already holds SQLite's one write lock (BEGIN IMMEDIATE).
  lockKey: async () => {},
  tableExists: async (db, table) => {
    const r = await sql<{
      n: number;
    }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${table}`.execute(db);
    return Number(r.rows[0]?.n ?? 0) > 0;
  },
  byteOrder: (column) => sql`${sql.ref(column)}`,
  rowKey: (table) => sql.raw(`${table}.rowid`),
  indexedBy: (index) => sql.raw(` INDEXED BY ${index}`),
  notIndexed: (expr) => sql`+${expr}`,
  notIndexedText: (column) => sql`(${sql.ref(column)} || '')`,
  planned: (value) => sql.lit(value),
};

const postgres: Engine = {
  dialect: "postgres",
  caps: { rowLock: true, skipLocked: true, advisoryLock: true, beginImmediate: false, lateral: true },
  forUpdate: (q) => q.forUpdate(),
  forUpdateSkipLocked: (q) => q.forUpdate().skipLocked(),
  // hashtextextended: a 64-bit key from the name; collisions only serialise, never corrupt.
  lockKey: async (trx, key) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  },
  tableExists: async (db, table) => {
    const r = await sql<{ t: string | null }>`SELECT to_regclass(${table})::text AS t`.execute(db);
    return r.rows[0]?.t != null;
  },
  byteOrder: (column) => sql`${sql.ref(column)} COLLATE "C"`,
  rowKey: (table, primaryKey) => sql.ref(`${table}.${primaryKey}`),
  indexedBy: () => sql``,
  notIndexed: (expr) => expr,
  notIndexedText: (column) => sql.ref(column),
  planned: (value) => sql`${value}`,
};

export function engineOf(database: Pick<Database<unknown>, "dialect">): Engine {
  return database.dialect === "postgres" ? postgres : sqlite;
}
