import type { LIFECYCLE_AUDIT_COLUMNS, LifecycleColumns } from "../../platform/lifecycle.ts";
import type { Up } from "../../store/schema.ts";

/**
 * Session snapshots and the handoff packs resume_context builds from them.
 *
 * A session is owned by the principal that created it (`owner`); ownership never moves. Its
 * state is `live` until close_session moves it to `ended`; a later session_save on an ended
 * session renews it (back to live), keeping closed_at/closed_by as last-close evidence, the way
 * a voided graph row revives with its void stamps kept. Nothing is physically deleted.
 *
 * `ended_at` is the catalog's field: session_save stamps it to "now" on every save (create and
 * update alike), so it reads as "last saved"; closed_at records the close itself.
 */
export interface SessionRow {
  profile: string;
  /** Canonical lowercase 8-4-4-4-12 UUID. */
  session_id: string;
  owner: string;
  project: string | null;
  summary: string | null;
  /** JSON text of a non-empty string array, or null. */
  active_files: string | null;
  state: "live" | "ended";
  started_at: string;
  ended_at: string;
  closed_at: string | null;
  closed_by: string | null;
  /** The principal the owner handed the session to (session_save handoff_to), or null. */
  handed_to: string | null;
  updated_at: string;
  last_event_id: string;
}

/**
 * A persisted context pack. resume_context writes pack_type "handoff"; build_context_pack (context
 * governance) writes the other pack types into the same table. Its lifecycle is the never-delete
 * vocabulary's (platform/lifecycle.ts): live, or retired (with its stamps) once a newer pack of
 * the same kind supersedes it (governance migration 0003 moved the old status active | retired).
 */
export interface ContextPackRow extends LifecycleColumns {
  pack_id: string;
  profile: string;
  pack_type: string;
  session_id: string | null;
  /** The project the pack was scoped to (the session's), null for untagged or unscoped packs. */
  project: string | null;
  token_budget: number;
  token_usage: number;
  freshness_score: number;
  body: string;
  /** JSON text: the references of every item the body includes (provenance). */
  items_json: string;
  created_by: string;
  created_at: string;
  last_event_id: string;
}

/** A pack as it is written: live, its lifecycle stamps not set yet (null). */
export type NewContextPack = Omit<ContextPackRow, (typeof LIFECYCLE_AUDIT_COLUMNS)[number]>;

/** Run history of context tools: one row per resume_context (and later build_context_pack) run. */
export interface ContextRunRow {
  run_id: string;
  profile: string;
  tool: string;
  principal: string;
  session_id: string | null;
  pack_id: string | null;
  status: "completed";
  input_json: string;
  result_json: string;
  started_at: string;
  finished_at: string;
}

export interface SessionsDB {
  shampoo_sessions: SessionRow;
  shampoo_context_packs: ContextPackRow;
  shampoo_context_runs: ContextRunRow;
}

export const sessionsMigrations: Record<string, Up> = {
  async "0001_sessions"(db) {
    await db.schema
      .createTable("shampoo_sessions")
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("summary", "text")
      .addColumn("active_files", "text")
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("ended_at", "text", (c) => c.notNull())
      .addColumn("closed_at", "text")
      .addColumn("closed_by", "text")
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      // Per profile: the same UUID in another profile is another session (no cross-profile oracle).
      .addPrimaryKeyConstraint("shampoo_sessions_pk", ["profile", "session_id"])
      .execute();
    await db.schema
      .createIndex("shampoo_sessions_owner")
      .on("shampoo_sessions")
      .columns(["profile", "owner", "ended_at"])
      .execute();

    await db.schema
      .createTable("shampoo_context_packs")
      .addColumn("pack_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("pack_type", "text", (c) => c.notNull())
      .addColumn("session_id", "text")
      .addColumn("project", "text")
      .addColumn("token_budget", "integer", (c) => c.notNull())
      .addColumn("token_usage", "integer", (c) => c.notNull())
      .addColumn("freshness_score", "double precision", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("items_json", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_context_packs_session")
      .on("shampoo_context_packs")
      .columns(["profile", "session_id", "created_at"])
      .execute();

    await db.schema
      .createTable("shampoo_context_runs")
      .addColumn("run_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("tool", "text", (c) => c.notNull())
      .addColumn("principal", "text", (c) => c.notNull())
      .addColumn("session_id", "text")
      .addColumn("pack_id", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("input_json", "text", (c) => c.notNull())
      .addColumn("result_json", "text", (c) => c.notNull())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("finished_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_context_runs_profile")
      .on("shampoo_context_runs")
      .columns(["profile", "started_at"])
      .execute();
  },
  // Handoff to a named principal (issue 17): who besides the owner may resume and save it.
  async "0002_handoff"(db) {
    await db.schema.alterTable("shampoo_sessions").addColumn("handed_to", "text").execute();
  },
};

/** The names these had in the pre-module ledger (platform/migrate.ts adoptLegacy). */
export const sessionsLegacy: Record<string, string[]> = { "0001_sessions": ["004_sessions"] };
