import { sql } from "kernel";
import { type LifecycleColumns, lifecycleColumns } from "../../platform/lifecycle.ts";
import type { Up } from "../../store/schema.ts";

/**
 * The debate tables. Nothing is ever deleted: topics move forward (INIT → ACTIVE → RESOLVED →
 * ARCHIVED, a compare-and-swap on `version`), messages are append-only, bindings and claims are
 * retired (the never-delete vocabulary's `retired` with its stamps), never removed.
 */

/** A debate topic with its roster, its priority lane and (debate/v1) its protocol micro-state. */
export interface TopicRow {
  topic_id: string;
  profile: string;
  /** null = the untagged enclave (only when project_state is 'set'). */
  project: string | null;
  /** 'set', or 'sentinel': a legacy topic whose project was never set (denies everyone). */
  project_state: "set" | "sentinel";
  title: string;
  state: "INIT" | "ACTIVE" | "RESOLVED" | "ARCHIVED";
  version: number;
  created_by_role: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  resolve_by: string | null;
  archived_at: string | null;
  /** JSON array of the declared role names, in declaration order. */
  roles_json: string;
  metadata_json: string;
  lane: string | null;
  lane_rank: number | null;
  lane_reason: string | null;
  next_action: string | null;
  blocked_by: string | null;
  lane_updated_at: string | null;
  /** '' (legacy) or 'debate/v1'. */
  protocol_version: string;
  /** JSON array of the two blind roles (debate/v1), or null. */
  blind_roles_json: string | null;
  max_rounds: number | null;
  /** ROUND | ADJUDICATE | STOPPED | STALEMATE (debate/v1), or null. */
  phase: string | null;
  round_no: number | null;
  /** The rounds whose blind positions are revealed: 1..revealed_round. */
  revealed_round: number | null;
  stalemate_reason: string | null;
  transition_version: number | null;
  phase_deadline_at: string | null;
  phase_timeout_seconds: number | null;
  protocol_updated_at: string | null;
  /** The seq of the newest message (messages are numbered 1, 2, … per topic). */
  msg_seq: number;
  last_event_id: string;
}

/** A role/session binding: who owns a role, with the last processed cursor of that owner. */
export interface BindingRow extends LifecycleColumns<"live" | "retired"> {
  binding_id: string;
  profile: string;
  topic_id: string;
  role: string;
  session_id: string;
  /** The principal that owns the session (authority comes from this, never from the role). */
  owner: string;
  runtime: string | null;
  state: "active" | "retired" | "diagnostic";
  generation: number;
  reason: string | null;
  bound_by_role: string | null;
  bound_by_msg_id: string | null;
  created_at: string;
  updated_at: string;
  cursor_msg_id: string | null;
  cursor_ts: string | null;
  cursor_seq: number | null;
  last_check_at: string | null;
  cursor_source: string | null;
  last_event_id: string;
}

/** One message: append-only. A blind position also carries its commitment (and nonce). */
export interface MessageRow {
  msg_id: string;
  profile: string;
  topic_id: string;
  seq: number;
  ts: string;
  role: string;
  author: string;
  author_session_id: string | null;
  priority: string;
  kind: string;
  body: string;
  body_mode: string | null;
  payload_json: string | null;
  reply_to: string | null;
  standing: number;
  vehicle: string;
  protocol_version: string;
  round_no: number | null;
  addressed: number;
  /** The round of a blind position (hidden until revealed_round reaches it), else null. */
  blind_round: number | null;
  /** hex sha256 of `${nonce}:${body}` for a blind position. */
  commitment: string | null;
  nonce: string | null;
  last_event_id: string;
}

/** Who an addressed message is for, and whether (and when) that recipient's receipt came. */
export interface RecipientRow {
  recipient_id: string;
  profile: string;
  topic_id: string;
  msg_id: string;
  seq: number;
  recipient_kind: "role" | "session";
  recipient: string;
  diagnostic: number;
  seen_count: number;
  last_seen_at: string | null;
  delivered_at: string | null;
  delivered_session: string | null;
}

/** A worker's claim of one trigger (topic, role, parent, trigger), fenced by a platform lease. */
export interface WorkerClaimRow extends LifecycleColumns<"live" | "retired"> {
  claim_id: string;
  profile: string;
  topic_id: string;
  role: string;
  parent_session_id: string;
  trigger_msg_id: string;
  worker_session_id: string;
  generation: number;
  requeues: number;
  state: "active" | "retired" | "completed" | "exhausted";
  fence: number;
  claimed_at: string;
  heartbeat_at: string;
  completed_at: string | null;
  ack_msg_id: string | null;
  details_json: string | null;
  owner: string;
  last_event_id: string;
}

/** The implicit one-shot claim a recipient takes on a standing=false DECISION when checking. */
export interface MessageClaimRow {
  claim_id: string;
  profile: string;
  topic_id: string;
  msg_id: string;
  role: string;
  session_id: string;
  owner: string;
  state: "active" | "done" | "reclaimed" | "expired";
  claimed_at: string;
  updated_at: string;
  last_event_id: string;
}

/** The immutable AB / BA order-swapped projections of one adjudication. */
export interface ProjectionRow {
  projection_id: string;
  profile: string;
  topic_id: string;
  round_no: number;
  order_key: "AB" | "BA";
  left_msg_id: string;
  right_msg_id: string;
  positions_json: string;
  protocol_version: string;
  created_at: string;
  last_event_id: string;
}

/** A judge's verdict on one projection: immutable. */
export interface VerdictRow {
  verdict_id: string;
  profile: string;
  projection_id: string;
  topic_id: string;
  round_no: number;
  judge_role: string;
  judge_session_id: string;
  winner_msg_id: string;
  decision: string;
  created_at: string;
  last_event_id: string;
}

/** Session identities the debate service mints for a caller (debate_init without session ids). */
export interface IdentityRow {
  profile: string;
  session_id: string;
  owner: string;
  origin: string;
  created_at: string;
}

export interface DebateDB {
  shampoo_debate_topics: TopicRow;
  shampoo_debate_bindings: BindingRow;
  shampoo_debate_messages: MessageRow;
  shampoo_debate_recipients: RecipientRow;
  shampoo_debate_worker_claims: WorkerClaimRow;
  shampoo_debate_message_claims: MessageClaimRow;
  shampoo_debate_projections: ProjectionRow;
  shampoo_debate_verdicts: VerdictRow;
  shampoo_debate_identities: IdentityRow;
}

export const debateMigrations: Record<string, Up> = {
  async "0001_debate"(db) {
    const s = db.schema;
    await s
      .createTable("shampoo_debate_topics")
      .addColumn("topic_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("project_state", "text", (c) => c.notNull())
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("created_by_role", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("resolve_by", "text")
      .addColumn("archived_at", "text")
      .addColumn("roles_json", "text", (c) => c.notNull())
      .addColumn("metadata_json", "text", (c) => c.notNull())
      .addColumn("lane", "text")
      .addColumn("lane_rank", "integer")
      .addColumn("lane_reason", "text")
      .addColumn("next_action", "text")
      .addColumn("blocked_by", "text")
      .addColumn("lane_updated_at", "text")
      .addColumn("protocol_version", "text", (c) => c.notNull())
      .addColumn("blind_roles_json", "text")
      .addColumn("max_rounds", "integer")
      .addColumn("phase", "text")
      .addColumn("round_no", "integer")
      .addColumn("revealed_round", "integer")
      .addColumn("stalemate_reason", "text")
      .addColumn("transition_version", "integer")
      .addColumn("phase_deadline_at", "text")
      .addColumn("phase_timeout_seconds", "integer")
      .addColumn("protocol_updated_at", "text")
      .addColumn("msg_seq", "integer", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await s
      .createIndex("shampoo_debate_topics_state")
      .on("shampoo_debate_topics")
      .columns(["profile", "state"])
      .execute();

    await lifecycleColumns(
      s
        .createTable("shampoo_debate_bindings")
        .addColumn("binding_id", "text", (c) => c.primaryKey())
        .addColumn("profile", "text", (c) => c.notNull())
        .addColumn("topic_id", "text", (c) => c.notNull())
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("runtime", "text")
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("reason", "text")
        .addColumn("bound_by_role", "text")
        .addColumn("bound_by_msg_id", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("cursor_msg_id", "text")
        .addColumn("cursor_ts", "text")
        .addColumn("cursor_seq", "integer")
        .addColumn("last_check_at", "text")
        .addColumn("cursor_source", "text")
        .addColumn("last_event_id", "text", (c) => c.notNull()),
    ).execute();
    await s
      .createIndex("shampoo_debate_bindings_topic")
      .on("shampoo_debate_bindings")
      .columns(["topic_id", "role", "generation"])
      .execute();
    // One active owner per role, enforced by the store itself (a racing second bind fails).
    await s
      .createIndex("shampoo_debate_bindings_one_active")
      .on("shampoo_debate_bindings")
      .columns(["topic_id", "role"])
      .unique()
      .where(sql.ref("state"), "=", "active")
      .execute();

    await s
      .createTable("shampoo_debate_messages")
      .addColumn("msg_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("topic_id", "text", (c) => c.notNull())
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("ts", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("author", "text", (c) => c.notNull())
      .addColumn("author_session_id", "text")
      .addColumn("priority", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("body_mode", "text")
      .addColumn("payload_json", "text")
      .addColumn("reply_to", "text")
      .addColumn("standing", "integer", (c) => c.notNull())
      .addColumn("vehicle", "text", (c) => c.notNull())
      .addColumn("protocol_version", "text", (c) => c.notNull())
      .addColumn("round_no", "integer")
      .addColumn("addressed", "integer", (c) => c.notNull())
      .addColumn("blind_round", "integer")
      .addColumn("commitment", "text")
      .addColumn("nonce", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .addUniqueConstraint("shampoo_debate_messages_seq", ["topic_id", "seq"])
      .execute();
    await s
      .createIndex("shampoo_debate_messages_reply")
      .on("shampoo_debate_messages")
      .columns(["topic_id", "reply_to"])
      .execute();

    await s
      .createTable("shampoo_debate_recipients")
      .addColumn("recipient_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("topic_id", "text", (c) => c.notNull())
      .addColumn("msg_id", "text", (c) => c.notNull())
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("recipient_kind", "text", (c) => c.notNull())
      .addColumn("recipient", "text", (c) => c.notNull())
      .addColumn("diagnostic", "integer", (c) => c.notNull())
      .addColumn("seen_count", "integer", (c) => c.notNull())
      .addColumn("last_seen_at", "text")
      .addColumn("delivered_at", "text")
      .addColumn("delivered_session", "text")
      .execute();
    await s
      .createIndex("shampoo_debate_recipients_to")
      .on("shampoo_debate_recipients")
      .columns(["topic_id", "recipient", "seq"])
      .execute();

    await lifecycleColumns(
      s
        .createTable("shampoo_debate_worker_claims")
        .addColumn("claim_id", "text", (c) => c.primaryKey())
        .addColumn("profile", "text", (c) => c.notNull())
        .addColumn("topic_id", "text", (c) => c.notNull())
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("parent_session_id", "text", (c) => c.notNull())
        .addColumn("trigger_msg_id", "text", (c) => c.notNull())
        .addColumn("worker_session_id", "text", (c) => c.notNull())
        .addColumn("generation", "integer", (c) => c.notNull())
        .addColumn("requeues", "integer", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("fence", "integer", (c) => c.notNull())
        .addColumn("claimed_at", "text", (c) => c.notNull())
        .addColumn("heartbeat_at", "text", (c) => c.notNull())
        .addColumn("completed_at", "text")
        .addColumn("ack_msg_id", "text")
        .addColumn("details_json", "text")
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("last_event_id", "text", (c) => c.notNull())
        .addUniqueConstraint("shampoo_debate_worker_claims_trigger", [
          "topic_id",
          "role",
          "parent_session_id",
          "trigger_msg_id",
        ]),
    ).execute();
    await s
      .createIndex("shampoo_debate_worker_claims_worker")
      .on("shampoo_debate_worker_claims")
      .columns(["worker_session_id"])
      .execute();

    await s
      .createTable("shampoo_debate_message_claims")
      .addColumn("claim_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("topic_id", "text", (c) => c.notNull())
      .addColumn("msg_id", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("claimed_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .addUniqueConstraint("shampoo_debate_message_claims_one", ["msg_id", "session_id"])
      .execute();

    await s
      .createTable("shampoo_debate_projections")
      .addColumn("projection_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("topic_id", "text", (c) => c.notNull())
      .addColumn("round_no", "integer", (c) => c.notNull())
      .addColumn("order_key", "text", (c) => c.notNull())
      .addColumn("left_msg_id", "text", (c) => c.notNull())
      .addColumn("right_msg_id", "text", (c) => c.notNull())
      .addColumn("positions_json", "text", (c) => c.notNull())
      .addColumn("protocol_version", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .addUniqueConstraint("shampoo_debate_projections_order", ["topic_id", "round_no", "order_key"])
      .execute();

    await s
      .createTable("shampoo_debate_verdicts")
      .addColumn("verdict_id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("projection_id", "text", (c) => c.notNull().unique())
      .addColumn("topic_id", "text", (c) => c.notNull())
      .addColumn("round_no", "integer", (c) => c.notNull())
      .addColumn("judge_role", "text", (c) => c.notNull())
      .addColumn("judge_session_id", "text", (c) => c.notNull())
      .addColumn("winner_msg_id", "text", (c) => c.notNull())
      .addColumn("decision", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();

    await s
      .createTable("shampoo_debate_identities")
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("origin", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("shampoo_debate_identities_pk", ["profile", "session_id"])
      .execute();
  },
};
