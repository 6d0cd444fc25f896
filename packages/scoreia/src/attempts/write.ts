import { type Database, type Engine, type Kysely, transact } from "kernel";
import type { ChamberDB } from "./schema.ts";

/** What a write's function gets: its transaction and the engine adapter. */
export interface ChamberWrite {
  trx: Kysely<ChamberDB>;
  /** Ask it (forUpdate, caps, …) instead of testing the dialect (kernel/src/store/engine.ts). */
  engine: Engine;
}

/**
 * The Chamber's one write path: `fn` runs in one transaction (kernel `transact`: SQLite BEGIN
 * IMMEDIATE, PostgreSQL READ COMMITTED plus the row locks `fn` takes through `w.engine`) and
 * commits, or nothing is kept if it throws. Services and tools never open a transaction
 * themselves, nor test the dialect (test/layout.test.ts in the kernel checks both).
 */
export function write<T>(database: Database<ChamberDB>, fn: (w: ChamberWrite) => Promise<T>): Promise<T> {
  return transact(database, (trx, engine) => fn({ trx, engine }));
}
