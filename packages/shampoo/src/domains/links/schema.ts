import type { Generated } from "kernel";
import { adoptLifecycle, type LifecycleColumns } from "../../platform/lifecycle.ts";
import type { Up } from "../../store/schema.ts";

/**
 * Task-entity links and the decisions that label them.
 *
 * One row per (profile, task, entity) pair, ever: a link is never deleted. Its lifecycle is the
 * never-delete vocabulary (platform/lifecycle.ts): unlink voids it (lifecycle `void`,
 * voided_at/voided_by) and keeps a removal marker (JSON of the link as it was); a later
 * link_task_entity revives the same row (lifecycle `live`, revived_at/revived_by), clears the
 * marker and keeps the void stamps as last-removal evidence. A link is never retired.
 * link_type is `manual` (a human linked it, or upgraded an auto link) or `auto` (discovered by
 * the explainable-pairwise-v1 pass, links/service/discovery.ts discoverLinks); `score` is the scorer's
 * score when the link was made or last refreshed.
 */
export interface TaskLinkRow extends LifecycleColumns<"live" | "void"> {
  id: string;
  profile: string;
  task_id: string;
  entity_id: string;
  link_type: "manual" | "auto";
  score: number | null;
  created_at: string;
  created_by: string;
  updated_at: string;
  /** The removal marker: the prior link detail, kept while the link is void. */
  removal_marker: string | null;
  last_event_id: string;
}

/**
 * Append-only decision log: every accepted (link_task_entity) and rejected (unlink of a silent
 * high-confidence auto link) decision, with the score receipt at decision time. The latest
 * decision of a pair is its evaluation label; a rejected latest decision suppresses the pair.
 */
export interface LinkDecisionRow {
  seq: Generated<number>;
  decision_id: string;
  profile: string;
  task_id: string;
  entity_id: string;
  decision: "accepted" | "rejected";
  /** The tool that recorded it: link_task_entity or unlink_task_entity. */
  source: string;
  score: number | null;
  rank_at_decision: number | null;
  model_version: string;
  /** JSON: signals {raw, weights, contributions}, reasons, matched_aliases, shared_keywords. */
  receipt_json: string | null;
  decided_by: string;
  decided_at: string;
}

export interface LinksDB {
  shampoo_task_links: TaskLinkRow;
  shampoo_link_decisions: LinkDecisionRow;
}

export const linksMigrations: Record<string, Up> = {
  async "0001_links"(db, dialect) {
    await db.schema
      .createTable("shampoo_task_links")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("task_id", "text", (c) => c.notNull())
      .addColumn("entity_id", "text", (c) => c.notNull())
      .addColumn("link_type", "text", (c) => c.notNull())
      .addColumn("score", "double precision")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("removed_at", "text")
      .addColumn("removed_by", "text")
      .addColumn("removal_marker", "text")
      .addColumn("revived_at", "text")
      .addColumn("revived_by", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_task_links_pair")
      .on("shampoo_task_links")
      .columns(["profile", "task_id", "entity_id"])
      .unique()
      .execute();
    await db.schema
      .createIndex("shampoo_task_links_entity")
      .on("shampoo_task_links")
      .columns(["profile", "entity_id", "status"])
      .execute();

    let decisions = db.schema.createTable("shampoo_link_decisions");
    decisions =
      dialect === "postgres"
        ? decisions.addColumn("seq", "bigserial", (c) => c.primaryKey())
        : decisions.addColumn("seq", "integer", (c) => c.primaryKey().autoIncrement());
    await decisions
      .addColumn("decision_id", "text", (c) => c.notNull().unique())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("task_id", "text", (c) => c.notNull())
      .addColumn("entity_id", "text", (c) => c.notNull())
      .addColumn("decision", "text", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("score", "double precision")
      .addColumn("rank_at_decision", "integer")
      .addColumn("model_version", "text", (c) => c.notNull())
      .addColumn("receipt_json", "text")
      .addColumn("decided_by", "text", (c) => c.notNull())
      .addColumn("decided_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_link_decisions_pair")
      .on("shampoo_link_decisions")
      .columns(["profile", "task_id", "entity_id", "seq"])
      .execute();
  },
  /**
   * Links onto the never-delete vocabulary: `status` (active | removed) becomes `lifecycle`
   * (live | void), removed_at/removed_by become voided_at/voided_by, and the other audit
   * columns are added (revived_at/revived_by already had their names). The index
   * shampoo_task_links_entity (profile, entity_id, status) follows the rename to (profile,
   * entity_id, lifecycle); no index or trigger names the old values. The removal marker stays.
   */
  async "0002_lifecycle"(db, dialect) {
    await adoptLifecycle(db, dialect, {
      table: "shampoo_task_links",
      state: { column: "status", map: { removed: "void" } },
      rename: { removed_at: "voided_at", removed_by: "voided_by" },
    });
  },
};

/** The names these had in the pre-module ledger (platform/migrate.ts adoptLegacy). */
export const linksLegacy: Record<string, string[]> = { "0001_links": ["003_links"] };
