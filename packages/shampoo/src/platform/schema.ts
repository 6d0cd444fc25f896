import { sql } from "kernel";
import type { ClockRow, HistoryRow, Up } from "../store/schema.ts";

/**
 * A lease on one resource of a kind (platform/leases/): who holds it, until when, and its fencing
 * token. One row per (profile, kind, resource), ever: a lease moves open → held → done (or back
 * to open on release or reclaim) and is never deleted.
 * - fence: increases by one at every claim, so each holder has a token no earlier holder had;
 *   every later statement of a holder names it, and the statement itself checks it.
 * - expires_ms: milliseconds since the epoch (the injected clock), compared as numbers.
 */
export interface LeaseRow {
  profile: string;
  kind: string;
  resource_id: string;
  state: "open" | "held" | "done";
  holder: string | null;
  fence: number | string;
  expires_ms: number | string | null;
  created_at: string;
  updated_at: string;
}

/** The ledger of applied migrations, one row per `<module>/<name>` (platform/migrate.ts). */
export interface MigrationLedgerRow {
  id: string;
  module: string;
  name: string;
  applied_at: string;
}

export interface PlatformDB {
  shampoo_history: HistoryRow;
  shampoo_clocks: ClockRow;
  shampoo_leases: LeaseRow;
  shampoo_module_migrations: MigrationLedgerRow;
}

/** The platform module's own tables: history, clocks (each profile's logical clock), leases. */
export const platformMigrations: Record<string, Up> = {
  async "0001_history"(db, dialect) {
    let history = db.schema.createTable("shampoo_history");
    history =
      dialect === "postgres"
        ? history.addColumn("seq", "bigserial", (c) => c.primaryKey())
        : history.addColumn("seq", "integer", (c) => c.primaryKey().autoIncrement());
    await history
      .addColumn("event_id", "text", (c) => c.notNull().unique())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("principal", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("session_id", "text")
      .addColumn("clock", "bigint", (c) => c.notNull())
      .addColumn("at", "text", (c) => c.notNull())
      .addColumn("entity_kind", "text", (c) => c.notNull())
      .addColumn("entity_id", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("old_json", "text")
      .addColumn("new_json", "text")
      .addColumn("payload_json", "text")
      .addColumn("parent_event_id", "text")
      .addColumn("source_json", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("shampoo_history_entity").on("shampoo_history").columns(["entity_id", "seq"]).execute();
    await db.schema
      .createTable("shampoo_clocks")
      .addColumn("profile", "text", (c) => c.primaryKey())
      .addColumn("clock", "bigint", (c) => c.notNull())
      .execute();
  },
  async "0002_leases"(db) {
    await db.schema
      .createTable("shampoo_leases")
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("resource_id", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("holder", "text")
      .addColumn("fence", "bigint", (c) => c.notNull())
      .addColumn("expires_ms", "bigint")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("shampoo_leases_pk", ["profile", "kind", "resource_id"])
      .execute();
    // claim-next and reclaim-stale read a kind's open or expired leases, oldest first.
    await sql`CREATE INDEX shampoo_leases_free ON shampoo_leases (profile, kind, state, created_at, resource_id)`.execute(
      db,
    );
  },
};

export const platformLegacy: Record<string, string[]> = { "0001_history": ["001_history_and_tasks"] };
