import { type Kysely, sql } from "kernel";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";

/**
 * The tables of this database and their columns, read from the engine's own catalog (SQLite:
 * sqlite_master with pragma_table_info; PostgreSQL: information_schema of the connection's
 * schema). The doctor finds its audited tables here instead of naming other modules' tables, so
 * a module added later is checked without the health module knowing it.
 */
export type Catalog = ReadonlyMap<string, ReadonlySet<string>>;

export async function catalogOf(db: Kysely<ShampooDB>, engine: Engine): Promise<Catalog> {
  const rows =
    engine.dialect === "postgres"
      ? await sql<{ table_name: string; column_name: string }>`
          SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`.execute(db)
      : await sql<{ table_name: string; column_name: string }>`
          SELECT m.name AS table_name, p.name AS column_name
          FROM sqlite_master m, pragma_table_info(m.name) p
          WHERE m.type = 'table' ORDER BY m.name, p.cid`.execute(db);
  const out = new Map<string, Set<string>>();
  for (const r of rows.rows) {
    const cols = out.get(r.table_name) ?? new Set<string>();
    cols.add(r.column_name);
    out.set(r.table_name, cols);
  }
  return out;
}

/** The tables whose rows carry `last_event_id` (audited rows, platform/rows.ts), name order. */
export function auditedTables(catalog: Catalog): string[] {
  return [...catalog.entries()]
    .filter(([, cols]) => cols.has("last_event_id") && cols.has("profile"))
    .map(([name]) => name)
    .sort();
}
