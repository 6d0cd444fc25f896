import type { Up } from "../../store/schema.ts";

/**
 * Staged inbound material awaiting review: tasks (t:N) and knowledge — entities (e:N) and
 * relations (r:N). Staged items live only here, so every read path of tasks and the graph is
 * blind to them until an approval creates them through those modules' own creation paths.
 *
 * - item_kind t | e | r and n (per profile and kind, from 1) make the public id `t:N`.
 * - content_json: the item as staged (create_task_or_note's arguments, a create_entities entry,
 *   a create_relations entry); `digest` is the SHA-256 of its canonical JSON, and the pin
 *   inbound_list shows (`t:N@digest`) is what an approval must name: an item re-staged since
 *   (same `stage_key`, new content, revision + 1) no longer matches and fails the approval.
 * - state pending → approved | rejected, with decided_by / decided_at / decide_reason; rows are
 *   never deleted. result_json: what the approval made (the task id) or why an item was skipped.
 */
export interface InboundItemRow {
  profile: string;
  item_kind: "t" | "e" | "r";
  n: number;
  stage_key: string | null;
  state: "pending" | "approved" | "rejected";
  project: string | null;
  quorum_id: string | null;
  content_json: string;
  digest: string;
  revision: number;
  staged_by: string;
  staged_at: string;
  updated_at: string;
  decided_by: string | null;
  decided_at: string | null;
  decide_reason: string | null;
  result_json: string | null;
  last_event_id: string;
}

export interface InboundDB {
  shampoo_inbound_items: InboundItemRow;
}

export const inboundMigrations: Record<string, Up> = {
  async "0001_inbound"(db) {
    await db.schema
      .createTable("shampoo_inbound_items")
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("item_kind", "text", (c) => c.notNull())
      .addColumn("n", "integer", (c) => c.notNull())
      .addColumn("stage_key", "text")
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("quorum_id", "text")
      .addColumn("content_json", "text", (c) => c.notNull())
      .addColumn("digest", "text", (c) => c.notNull())
      .addColumn("revision", "integer", (c) => c.notNull())
      .addColumn("staged_by", "text", (c) => c.notNull())
      .addColumn("staged_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("decided_by", "text")
      .addColumn("decided_at", "text")
      .addColumn("decide_reason", "text")
      .addColumn("result_json", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("shampoo_inbound_items_pk", ["profile", "item_kind", "n"])
      .execute();
    await db.schema
      .createIndex("shampoo_inbound_items_state")
      .on("shampoo_inbound_items")
      .columns(["profile", "state", "item_kind", "n"])
      .execute();
    await db.schema
      .createIndex("shampoo_inbound_items_key")
      .on("shampoo_inbound_items")
      .columns(["profile", "item_kind", "stage_key"])
      .execute();
  },
};
