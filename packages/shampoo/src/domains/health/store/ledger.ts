import { type Kysely, sql } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";

/** The history ledger's own consistency, per profile (ledger section). PostgreSQL counts are text. */
const n = (v: unknown): number => Number(v ?? 0);

/** The profile's clock row and the highest clock its events carry (null: none). */
export async function clockState(
  db: Kysely<ShampooDB>,
  profile: string,
): Promise<{ clock: number | null; top: number | null; events: number }> {
  const c = await db.selectFrom("shampoo_clocks").select("clock").where("profile", "=", profile).executeTakeFirst();
  const h = await sql<{ top: unknown; events: unknown }>`
    SELECT max(clock) AS top, count(*) AS events FROM shampoo_history WHERE profile = ${profile}`.execute(db);
  const row = h.rows[0];
  return {
    clock: c ? n(c.clock) : null,
    top: row?.top === null || row?.top === undefined ? null : n(row.top),
    events: n(row?.events),
  };
}

/** Events of the profile sharing a clock value with another (each clock value is one event). */
export async function duplicateClocks(db: Kysely<ShampooDB>, profile: string): Promise<number> {
  const r = await sql<{ dup: unknown }>`
    SELECT count(*) - count(DISTINCT clock) AS dup FROM shampoo_history WHERE profile = ${profile}`.execute(db);
  return n(r.rows[0]?.dup);
}

/** Events naming a parent event that is not in the ledger (a broken chain). */
export async function brokenChains(db: Kysely<ShampooDB>, profile: string): Promise<number> {
  const r = await sql<{ broken: unknown }>`
    SELECT count(*) AS broken FROM shampoo_history h
    WHERE h.profile = ${profile} AND h.parent_event_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM shampoo_history p WHERE p.event_id = h.parent_event_id)`.execute(db);
  return n(r.rows[0]?.broken);
}

/** The migration ledger: how many rows, per module. */
export async function migrationLedger(db: Kysely<ShampooDB>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("shampoo_module_migrations")
    .select(["module", (eb) => eb.fn.countAll().as("n")])
    .groupBy("module")
    .execute();
  return new Map(rows.map((r) => [r.module, n(r.n)]));
}
