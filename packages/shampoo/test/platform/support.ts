import { type DialectName, ManualClock, openDatabase, sql } from "kernel";
import { openTestDatabase, type TestDb } from "kernel/store/testing.ts";
import { makeCaller } from "../../src/access/caller.ts";
import type { ShampooCtx } from "../../src/context.ts";
import { MODULES } from "../../src/modules.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import type { ShampooDB } from "../../src/store/schema.ts";

/** A migrated fresh database, a manual clock, and contexts for callers of profile "p". */
export async function platformDb(dialect: DialectName): Promise<{
  db: TestDb<ShampooDB>;
  clock: ManualClock;
  ctx(principal?: string, database?: ShampooCtx["database"]): ShampooCtx;
  /**
   * Another PostgreSQL pool (really concurrent transactions). On SQLite the same handle: its one
   * connection serialises whole transactions, which is SQLite's locking strategy in one process
   * (a second handle in the same thread would busy-wait on the event loop while the first one
   * waits for it: cross-process races are the startup test's).
   */
  second(): Promise<ShampooCtx["database"] & { release(): Promise<void> }>;
}> {
  const db = await openTestDatabase<ShampooDB>(dialect);
  await migrateModules(db, MODULES);
  // A table for state-machine tests: the shape a module's row with a lifecycle has.
  await sql`CREATE TABLE t_items (id text PRIMARY KEY, profile text NOT NULL, state text NOT NULL, version integer NOT NULL,
    lifecycle text NOT NULL DEFAULT 'live', voided_at text, voided_by text, void_reason text, revived_at text, revived_by text,
    retired_at text, retired_by text, retire_reason text, note text)`.execute(db.db);
  const clock = new ManualClock("2026-12-01T10:00:00.000Z");
  return {
    db,
    clock,
    ctx: (principal = "alice", database = db) => ({
      caller: makeCaller({ principal, role: "agent", profile: "p", grants: ["*", ""] }),
      source: { tool: "test" },
      clock,
      database,
    }),
    second: async () => {
      if (dialect === "sqlite") return { ...db, release: async () => {} };
      const d = await openDatabase<ShampooDB>(db.target, { pgSchema: db.pgSchema as string, pgPoolSize: 8 });
      return { ...d, release: () => d.close() };
    },
  };
}
