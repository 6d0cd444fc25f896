import { type Database, iso, type Kysely, systemClock } from "kernel";
import type { ShampooDB } from "../store/schema.ts";
import { type Engine, engineOf } from "./engine.ts";
import { type Module, migrationPlan, type PlannedMigration } from "./module.ts";

/** The ledger: one row per applied `<module>/<name>`. */
export const LEDGER = "shampoo_module_migrations";
/** The single ledger of databases created before modules (Kysely's Migrator table). */
export const LEGACY_LEDGER = "shampoo_migrations";

export interface MigrateOptions {
  /** Run only the planned migrations this accepts (tests that build an older database). */
  only?(m: PlannedMigration): boolean;
  /** How long a SQLite process waits for another one's migration (default 60 s). */
  waitMs?: number;
}

/**
 * Brings the database to the modules' latest migrations. Safe when many processes start at once
 * on a fresh database: the whole check-and-apply runs under one lock (SQLite: BEGIN IMMEDIATE,
 * waiting up to `waitMs` for the process that got there first; PostgreSQL: an advisory lock per
 * schema, taken before anything is created, ledger included), and every DDL statement runs in
 * that transaction, so a process either sees a migration applied or applies it itself, never
 * half. An up-to-date database is recognised by a plain read first, without the lock.
 */
export async function migrateModules(
  database: Database<ShampooDB>,
  modules: readonly Module[],
  opts: MigrateOptions = {},
): Promise<string[]> {
  const plan = migrationPlan(modules).filter((m) => opts.only?.(m) ?? true);
  const engine = engineOf(database);
  const applied = await database.read(async (db) =>
    (await engine.tableExists(db as Kysely<unknown>, LEDGER)) ? await ledgerIds(db) : new Set<string>(),
  );
  if (plan.every((m) => applied.has(m.id))) return [];

  return database.transaction(
    async (trx) => {
      const db = trx as unknown as Kysely<unknown>;
      await engine.lockKey(db, `shampoo-migrations:${database.schema ?? ""}`);
      await db.schema
        .createTable(LEDGER)
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("module", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("applied_at", "text", (c) => c.notNull())
        .execute();
      const done = await ledgerIds(trx);
      if (done.size === 0) await adoptLegacy(trx, engine, plan, done);
      const ran: string[] = [];
      for (const m of plan) {
        if (done.has(m.id)) continue;
        try {
          await m.up(db, database.dialect);
        } catch (e) {
          throw new Error(`migration ${m.id} failed: ${String(e)}`, { cause: e });
        }
        await record(trx, m);
        done.add(m.id);
        ran.push(m.id);
      }
      return ran;
    },
    { busyTimeoutMs: opts.waitMs ?? 60_000 },
  );
}

async function ledgerIds(db: Kysely<ShampooDB>): Promise<Set<string>> {
  const rows = await db.selectFrom("shampoo_module_migrations").select("id").execute();
  return new Set(rows.map((r) => r.id));
}

async function record(trx: Kysely<ShampooDB>, m: PlannedMigration): Promise<void> {
  await trx
    .insertInto("shampoo_module_migrations")
    .values({ id: m.id, module: m.module, name: m.name, applied_at: iso(systemClock.now()) })
    .execute();
}

/**
 * A database from before the module ledger: every planned migration whose old name is in the old
 * ledger was applied by it, so it is recorded here as applied (the old table stays, unread).
 */
async function adoptLegacy(
  trx: Kysely<ShampooDB>,
  engine: Engine,
  plan: PlannedMigration[],
  done: Set<string>,
): Promise<void> {
  const db = trx as unknown as Kysely<unknown>;
  if (!(await engine.tableExists(db, LEGACY_LEDGER))) return;
  const rows = (await db
    .selectFrom(LEGACY_LEDGER as never)
    .select("name" as never)
    .execute()) as Array<{ name: string }>;
  const old = new Set(rows.map((r) => r.name));
  for (const m of plan) {
    if (m.legacy.length > 0 && m.legacy.every((n) => old.has(n))) {
      await record(trx, m);
      done.add(m.id);
    }
  }
}
