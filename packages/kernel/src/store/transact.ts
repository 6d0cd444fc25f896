import type { Database, Kysely, TransactionOptions } from "./db.ts";
import { type Engine, engineOf } from "./engine.ts";

/**
 * The two ways into the store a product's write and read paths are built on (SHAMPOO's
 * platform/write.ts, the Chamber's attempts/write.ts): the transaction comes with the engine
 * adapter at hand, so the code inside asks `engine` (forUpdate, lockKey, caps, …) instead of
 * testing the dialect, and no service opens a transaction itself.
 */

/**
 * Runs `fn` in one write transaction (SQLite BEGIN IMMEDIATE, PostgreSQL READ COMMITTED plus the
 * row or advisory locks `fn` takes through `engine`) and commits, or rolls back if it throws
 * (Database.transaction's contract: never call it again inside `fn`).
 */
export function transact<DB, T>(
  database: Database<DB>,
  fn: (trx: Kysely<DB>, engine: Engine) => Promise<T>,
  opts?: TransactionOptions,
): Promise<T> {
  const engine = engineOf(database);
  return database.transaction((trx) => fn(trx, engine), opts);
}

/** Runs `fn`, which only reads, on one consistent snapshot that never waits for a writer (Database.read). */
export function snapshot<DB, T>(
  database: Database<DB>,
  fn: (db: Kysely<DB>, engine: Engine) => Promise<T>,
): Promise<T> {
  const engine = engineOf(database);
  return database.read((db) => fn(db, engine));
}
