import { type DialectName, sql } from "kernel";
import { adoptLifecycle, type LifecycleColumns } from "../../platform/lifecycle.ts";
import type { Up } from "../../store/schema.ts";
import { LIVE_STATUS_SQL } from "../tasks/store/ready-sql.ts";
import type { RunStatus } from "./rules/vocabulary.ts";
import { BLANK_SQL } from "./store/blank.ts";

/**
 * Reflection tables. Nothing is removed: a discarded run keeps its row, its candidates and its
 * snapshots; candidates are never deleted either. Discarding is the run's retirement in the
 * never-delete vocabulary (platform/lifecycle.ts): the run's status becomes `discarded` (the
 * catalog's run status) and its lifecycle `retired`, with who, when and why in retired_at /
 * retired_by / retire_reason. Run-centric reads see live runs only. `archived_at` is a listing
 * flag, not the lifecycle: an archived run is still read by id.
 *
 * A run is reached through its input project (`project`, null = unfiltered): only callers
 * granted that project see it, and unfiltered runs only star callers ("input-project gate").
 * `created_by` is the catalog's free-text attribution; `principal` is who really called.
 */
export interface ReflectionRunRow extends LifecycleColumns {
  run_id: string;
  profile: string;
  project: string | null;
  status: RunStatus;
  version: string;
  created_by: string;
  principal: string;
  model: string | null;
  instructions: string | null;
  /** JSON: the resolved filter input (project, stale_days, abandoned_inbox_days, limit_per_category). */
  input_json: string;
  /** JSON: the audit summary of the pass, once it ran. */
  summary_json: string | null;
  candidates_persisted: number;
  error_type: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  archived_at: string | null;
  updated_at: string;
  last_event_id: string;
}

export interface ReflectionCandidateRow {
  candidate_id: string;
  run_id: string;
  profile: string;
  /** Position in the run (category order, then the category's own order). */
  ord: number;
  type: string;
  suggested_action: string;
  target_kind: string;
  target_ref: string;
  /** Canonical JSON (RFC 8785) of the evidence. */
  evidence_json: string;
  evidence_project: string | null;
  private_to: string | null;
  confidence: number;
  /** JSON: the target's (and a duplicate's keeper's) last event when the run saw it. */
  fingerprint_json: string;
  decision: string | null;
  decided_by: string | null;
  decided_principal: string | null;
  decided_at: string | null;
  created_at: string;
}

/** One applied candidate: the target before and after, written with the mutation. */
export interface ReflectionSnapshotRow {
  candidate_id: string;
  run_id: string;
  profile: string;
  target_kind: string;
  target_ref: string;
  before_json: string;
  after_json: string;
  applied_by: string;
  applied_principal: string;
  applied_at: string;
  /** The target's history event written by this apply. */
  event_id: string;
}

export interface ReflectionDB {
  shampoo_reflection_runs: ReflectionRunRow;
  shampoo_reflection_candidates: ReflectionCandidateRow;
  shampoo_reflection_snapshots: ReflectionSnapshotRow;
}

export const reflectionMigrations: Record<string, Up> = {
  async "0001_runs"(db, dialect) {
    await db.schema
      .createTable("shampoo_reflection_runs")
      .addColumn("run_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("version", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("principal", "text", (c) => c.notNull())
      .addColumn("model", "text")
      .addColumn("instructions", "text")
      .addColumn("input_json", "text", (c) => c.notNull())
      .addColumn("summary_json", "text")
      .addColumn("candidates_persisted", "integer", (c) => c.notNull())
      .addColumn("error_type", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("started_at", "text")
      .addColumn("finished_at", "text")
      .addColumn("archived_at", "text")
      .addColumn("discarded_at", "text")
      .addColumn("discarded_by", "text")
      .addColumn("discard_reason", "text")
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_reflection_runs_list")
      .on("shampoo_reflection_runs")
      .columns(["profile", "created_at", "run_id"])
      .execute();

    await db.schema
      .createTable("shampoo_reflection_candidates")
      .addColumn("candidate_id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("ord", "integer", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("suggested_action", "text", (c) => c.notNull())
      .addColumn("target_kind", "text", (c) => c.notNull())
      .addColumn("target_ref", "text", (c) => c.notNull())
      .addColumn("evidence_json", "text", (c) => c.notNull())
      .addColumn("evidence_project", "text")
      .addColumn("private_to", "text")
      .addColumn("confidence", "double precision", (c) => c.notNull())
      .addColumn("fingerprint_json", "text", (c) => c.notNull())
      .addColumn("decision", "text")
      .addColumn("decided_by", "text")
      .addColumn("decided_principal", "text")
      .addColumn("decided_at", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_reflection_candidates_run")
      .on("shampoo_reflection_candidates")
      .columns(["run_id", "ord"])
      .execute();

    await db.schema
      .createTable("shampoo_reflection_snapshots")
      // One snapshot per candidate: a second apply of the same candidate cannot insert one.
      .addColumn("candidate_id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("target_kind", "text", (c) => c.notNull())
      .addColumn("target_ref", "text", (c) => c.notNull())
      .addColumn("before_json", "text", (c) => c.notNull())
      .addColumn("after_json", "text", (c) => c.notNull())
      .addColumn("applied_by", "text", (c) => c.notNull())
      .addColumn("applied_principal", "text", (c) => c.notNull())
      .addColumn("applied_at", "text", (c) => c.notNull())
      .addColumn("event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_reflection_snapshots_run")
      .on("shampoo_reflection_snapshots")
      .columns(["run_id"])
      .execute();

    // The audit's reads in their own order (auditIndexes below).
    for (const [name, columns, where] of auditIndexes(dialect, false)) {
      await sql.raw(`CREATE INDEX ${name} ON shampoo_tasks (${columns}) WHERE ${where}`).execute(db);
    }
  },
  /**
   * The same reads for one project (a run with a project, or a caller granted one): each index
   * again with the project after the profile, so a one-project pass reads that project's entries
   * in order instead of walking every project's and testing each row's project (a table lookup).
   */
  async "0002_project_indexes"(db, dialect) {
    for (const [name, columns, where] of auditIndexes(dialect, true)) {
      await sql.raw(`CREATE INDEX ${name}_project ON shampoo_tasks (${columns}) WHERE ${where}`).execute(db);
    }
  },
  /**
   * Runs join the never-delete vocabulary: a discarded run is retired (its status stays
   * `discarded`), and the discard stamps become the retire stamps. No index names a status value.
   */
  async "0003_lifecycle"(db, dialect) {
    await adoptLifecycle(db, dialect, {
      table: "shampoo_reflection_runs",
      state: { column: "status", map: { discarded: "retired" }, keep: true },
      rename: { discarded_at: "retired_at", discarded_by: "retired_by", discard_reason: "retire_reason" },
    });
  },
};

/**
 * The audit's reads in their own order (store/scan.ts), each a partial index over the rows its
 * category can match, so a pass reads about limit_per_category entries a category instead of
 * every live row: at 100,000 tasks the duplicate-title group scan took ~1 s on SQLite without
 * its index, stale ~370 ms, empty notes ~220 ms, orphans ~160 ms. Text keys are COLLATE "C" on
 * PostgreSQL, the byte order the reads sort in. `perProject`: the project right after the
 * profile (migration 0002).
 */
function auditIndexes(dialect: DialectName, perProject: boolean): Array<[string, string, string]> {
  const lead = perProject ? "profile, project" : "profile";
  const c = (col: string) => (dialect === "postgres" ? `${col} COLLATE "C"` : col);
  const live = `status IN ${LIVE_STATUS_SQL}`;
  return [
    [
      "shampoo_reflection_dup",
      perProject ? `profile, project, ${c("title_norm")}, type` : `profile, ${c("title_norm")}, project, type`,
      live,
    ],
    [
      "shampoo_reflection_stale",
      `${lead}, ${c("due_date")}, ${c("created_at")}, ${c("id")}`,
      "status = 'not_started' AND type = 'task' AND due_date IS NOT NULL",
    ],
    [
      "shampoo_reflection_empty",
      `${lead}, ${c("updated_at")}, ${c("id")}`,
      `type = 'note' AND ${live} AND (description IS NULL OR ${BLANK_SQL[dialect]("description")} = '')`,
    ],
    ["shampoo_reflection_orphan", `${lead}, ${c("updated_at")}, ${c("id")}`, `${live} AND parent_id IS NOT NULL`],
    [
      "shampoo_reflection_inbox",
      `${lead}, ${c("updated_at")}, ${c("id")}`,
      "section = 'inbox' AND status = 'not_started'",
    ],
  ];
}
