import { type Kysely, sql } from "kernel";
import { adoptLifecycle } from "../../../platform/lifecycle.ts";
import type { Up } from "../../../store/schema.ts";
import { LIVE_STATUS_SQL } from "../../tasks/store/ready-sql.ts";

/** Context governance migrations (the module ledger records them as governance/NNNN_what). */

type Col = [name: string, type: "text" | "integer" | "double precision", notNull: boolean];

async function table(db: Kysely<unknown>, name: string, cols: Col[], pk: string[]): Promise<void> {
  let t = db.schema.createTable(name);
  for (const [c, type, notNull] of cols) t = t.addColumn(c, type, (b) => (notNull ? b.notNull() : b));
  await t.addPrimaryKeyConstraint(`${name}_pk`, pk as never).execute();
}

const T = (n: string): Col => [n, "text", true];
const Tn = (n: string): Col => [n, "text", false];
const I = (n: string): Col => [n, "integer", true];
const D = (n: string): Col => [n, "double precision", true];

export const governanceMigrations: Record<string, Up> = {
  async "0001_tables"(db) {
    await table(
      db,
      "governance_chunks",
      [T("chunk_id"), T("profile"), Tn("project"), T("source_kind"), T("source_ref"), T("title"), T("source_text")]
        .concat([T("answers_text"), T("source_hash"), T("state"), Tn("state_hash"), Tn("policy"), D("materiality")])
        .concat([
          D("uncertainty"),
          T("signals_json"),
          T("created_at"),
          T("updated_at"),
          Tn("assessed_at"),
          T("last_event_id"),
        ]),
      ["chunk_id"],
    );
    await db.schema
      .createIndex("governance_chunks_source")
      .on("governance_chunks")
      .columns(["profile", "source_kind", "source_ref"])
      .unique()
      .execute();
    await db.schema
      .createIndex("governance_chunks_state")
      .on("governance_chunks")
      .columns(["profile", "state"])
      .execute();
    await table(
      db,
      "governance_annotations",
      [T("annotation_id"), T("profile"), T("chunk_id"), T("kind"), T("body"), T("source_hash"), T("created_at")],
      ["annotation_id"],
    );
    await db.schema
      .createIndex("governance_annotations_chunk")
      .on("governance_annotations")
      .columns(["chunk_id", "kind", "source_hash"])
      .execute();
    await table(
      db,
      "governance_questions",
      [
        T("question_id"),
        T("profile"),
        Tn("project"),
        T("chunk_id"),
        T("type"),
        T("text"),
        T("priority"),
        T("status"),
      ].concat([Tn("answer_text"), Tn("answered_by"), Tn("answered_at"), T("created_at"), T("last_event_id")]),
      ["question_id"],
    );
    await db.schema
      .createIndex("governance_questions_chunk")
      .on("governance_questions")
      .columns(["profile", "chunk_id", "status"])
      .execute();
    await table(
      db,
      "governance_claims",
      [T("claim_id"), T("profile"), Tn("project"), T("chunk_id"), T("subject"), T("subject_norm"), T("predicate")]
        .concat([T("object"), T("object_norm"), T("scope"), D("confidence"), I("requires_human"), T("valid_from")])
        .concat([
          I("evidence_count"),
          T("status"),
          Tn("fact_id"),
          Tn("validation_mode"),
          T("created_at"),
          T("updated_at"),
        ])
        .concat([T("last_event_id")]),
      ["claim_id"],
    );
    await db.schema
      .createIndex("governance_claims_identity")
      .on("governance_claims")
      .columns(["profile", "subject_norm", "predicate", "object_norm", "scope", "status"])
      .execute();
    await table(
      db,
      "governance_evidence",
      [
        T("evidence_id"),
        T("profile"),
        T("claim_id"),
        T("chunk_id"),
        T("source_hash"),
        T("excerpt"),
        D("confidence"),
      ].concat([T("created_at")]),
      ["evidence_id"],
    );
    await db.schema
      .createIndex("governance_evidence_claim")
      .on("governance_evidence")
      .columns(["claim_id", "chunk_id", "source_hash"])
      .unique()
      .execute();
    await table(
      db,
      "governance_facts",
      [T("fact_id"), T("profile"), Tn("project"), T("subject"), T("subject_norm"), T("predicate"), T("object")]
        .concat([T("object_norm"), T("scope"), D("confidence"), I("evidence_count"), I("reinforced_count")])
        .concat([T("validation_mode"), T("source_claim_id"), T("status"), T("valid_from"), Tn("valid_to")])
        .concat([
          Tn("superseded_by"),
          T("contradicts_json"),
          I("contradiction_count"),
          T("recorded_at"),
          T("updated_at"),
        ])
        .concat([T("last_event_id")]),
      ["fact_id"],
    );
    await db.schema
      .createIndex("governance_facts_key")
      .on("governance_facts")
      .columns(["profile", "subject_norm", "predicate", "scope", "status"])
      .execute();
    await db.schema
      .createIndex("governance_facts_updated")
      .on("governance_facts")
      .columns(["profile", "updated_at"])
      .execute();
    await table(
      db,
      "governance_fact_versions",
      [
        T("version_id"),
        T("profile"),
        T("fact_id"),
        T("status"),
        T("valid_from"),
        Tn("valid_to"),
        T("known_from"),
      ].concat([Tn("known_to"), T("event_id")]),
      ["version_id"],
    );
    await db.schema
      .createIndex("governance_fact_versions_fact")
      .on("governance_fact_versions")
      .columns(["profile", "fact_id", "known_from"])
      .execute();
    await table(
      db,
      "governance_decisions",
      [T("decision_id"), T("profile"), T("fact_id"), T("action"), Tn("target_fact_id"), Tn("rationale")].concat([
        T("effective_at"),
        T("decided_by"),
        T("decided_at"),
        T("event_id"),
      ]),
      ["decision_id"],
    );
    await table(
      db,
      "governance_provenance",
      [T("provenance_id"), T("profile"), T("target_kind"), T("target_id"), T("source_kind"), T("source_ref")].concat([
        T("detail_json"),
        T("created_at"),
      ]),
      ["provenance_id"],
    );
    await db.schema
      .createIndex("governance_provenance_target")
      .on("governance_provenance")
      .columns(["profile", "target_kind", "target_id"])
      .execute();
    await table(
      db,
      "governance_impact_links",
      [
        T("profile"),
        T("from_kind"),
        T("from_id"),
        T("to_kind"),
        T("to_id"),
        D("weight"),
        T("rationale"),
        T("created_at"),
      ],
      ["profile", "from_kind", "from_id", "to_kind", "to_id"],
    );
    await table(
      db,
      "governance_pack_summaries",
      [T("pack_id"), T("profile"), T("pack_type"), Tn("target_ref"), Tn("session_id"), D("relevance_score")].concat([
        D("quality_score"),
        I("items_included"),
        T("sections_json"),
        T("summary"),
        T("created_at"),
      ]),
      ["pack_id"],
    );
    await table(
      db,
      "governance_issues",
      [T("issue_id"), T("profile"), Tn("project"), T("kind"), T("target_kind"), T("target_id"), T("detail")].concat([
        T("status"),
        T("first_seen_at"),
        T("last_seen_at"),
        Tn("resolved_at"),
        T("last_event_id"),
      ]),
      ["issue_id"],
    );
    await db.schema
      .createIndex("governance_issues_target")
      .on("governance_issues")
      .columns(["profile", "kind", "target_kind", "target_id"])
      .unique()
      .execute();
    // Stale packs of the same kind are retired: find them by type and target.
    await db.schema
      .createIndex("shampoo_context_packs_kind")
      .on("shampoo_context_packs")
      .columns(["profile", "pack_type", "status"])
      .execute();
  },
  /**
   * The pack's reads in their own order (service/packs.ts), each a partial index over the rows it
   * can return, for every project and per project: the newest live facts, candidate claims and
   * open tasks, so a pack reads its 300 / 200 / 200 rows instead of sorting every live row. At
   * 100,000 tasks and 50,000 facts on SQLite the open-task read sorted 75,000 rows (~700 ms), the
   * fact read ~12 ms (60 ms for one project), each with a temporary b-tree for the id tie-break.
   * Conditions are literal SQL in the reads too (a bound parameter would not prove the partial
   * index's WHERE on SQLite).
   */
  async "0002_pack_indexes"(db) {
    const indexes: Array<[string, string, string, string]> = [
      ["governance_facts_live", "governance_facts", "profile, updated_at DESC, fact_id", "status = 'live'"],
      [
        "governance_facts_live_project",
        "governance_facts",
        "profile, project, updated_at DESC, fact_id",
        "status = 'live'",
      ],
      ["governance_claims_open", "governance_claims", "profile, updated_at DESC, claim_id", "status = 'candidate'"],
      [
        "governance_claims_open_project",
        "governance_claims",
        "profile, project, updated_at DESC, claim_id",
        "status = 'candidate'",
      ],
      ["governance_pack_tasks", "shampoo_tasks", "profile, updated_at DESC, id", `status IN ${LIVE_STATUS_SQL}`],
      [
        "governance_pack_tasks_project",
        "shampoo_tasks",
        "profile, project, updated_at DESC, id",
        `status IN ${LIVE_STATUS_SQL}`,
      ],
    ];
    for (const [name, table, columns, where] of indexes) {
      await sql.raw(`CREATE INDEX ${name} ON ${table} (${columns}) WHERE ${where}`).execute(db);
    }
  },
  /**
   * Context packs join the never-delete vocabulary: their status (active | retired, nothing else)
   * becomes the column `lifecycle` (active → live, retired → retired) with the audit columns
   * beside it. The table is the sessions module's, but this module's 0001 indexed its status
   * (shampoo_context_packs_kind, which follows the rename), so the move runs here, after it.
   */
  async "0003_pack_lifecycle"(db, dialect) {
    await adoptLifecycle(db, dialect, {
      table: "shampoo_context_packs",
      state: { column: "status", map: { retired: "retired" } },
    });
  },
  /**
   * The project an event's row was in when the event happened, on platform's `shampoo_history`
   * (store/history.ts writes it for every event since): before the change when the row had one
   * (a move out of a project is seen by that project's readers, a move in is not seen by the new
   * project's), "" for untagged, NULL when unknown — events recorded before this migration and
   * kinds without a project. replay_memory (this module's) filters on it; NULL falls back to the
   * row's current project, the rule before. Nullable, no backfill. It runs here, not in
   * platform, because the platform's migrations are the first of the plan and must stay those
   * two (test/platform/migrate.test.ts); every module is migrated before any event is written.
   */
  async "0004_history_project"(db) {
    await db.schema.alterTable("shampoo_history").addColumn("project", "text").execute();
  },
};
