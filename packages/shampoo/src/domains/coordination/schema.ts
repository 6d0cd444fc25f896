import type { Up } from "../../store/schema.ts";

/**
 * Coordination (Mind Quorum layering): a quorum holds what was agreed, a lane carries one
 * coordinated stream under it, a job is one executable unit. Nothing is deleted: each row has its
 * own standing (quorum open → resolved | cancelled; lane execution / review / merge axes; job
 * queued → claimed → completed | failed) and every change is a history event (`last_event_id`).
 * Every row carries its profile; ids are UUIDs, looked up with the profile beside them.
 */
export interface QuorumRow {
  id: string;
  profile: string;
  project: string;
  status: "open" | "resolved" | "cancelled";
  primary_topic_id: string | null;
  decision_ref: string | null;
  result_ref: string | null;
  created_by: string;
  created_at: string;
  resolved_at: string | null;
  resolved_by: string | null;
  last_event_id: string;
}

/** One participant of a quorum: (kind, ref) is its identity; state moves forward only. */
export interface QuorumParticipantRow {
  profile: string;
  quorum_id: string;
  kind: "client" | "role";
  ref: string;
  state: "pending" | "joined" | "fulfilled" | "withdrawn";
  created_at: string;
  updated_at: string;
  last_event_id: string;
}

/**
 * A lane: three independent axes, each moved only by its own tool under compare-and-swap on its
 * own version column. `review_commit` is the commit digest submitted for review; an approval
 * binds to it, and lane_merge needs it equal to the merge's result commit.
 */
export interface LaneRow {
  id: string;
  profile: string;
  quorum_id: string;
  project: string;
  state: "open" | "in_progress" | "done" | "failed" | "cancelled";
  state_version: number;
  review_state: "" | "pending" | "approved" | "changes_requested";
  review_commit: string | null;
  review_version: number;
  merge_state: "" | "merged" | "conflicted" | "skipped";
  result_commit: string | null;
  merge_version: number;
  assignee: string | null;
  task_id: string | null;
  depends_on: string | null;
  repo: string | null;
  branch: string | null;
  base_ref: string | null;
  worktree: string | null;
  created_by: string;
  created_at: string;
  changed_at: string;
  last_event_id: string;
}

/**
 * A job under a fenced lease: `fence` rises by one at each claim and every later statement of a
 * holder (complete, release) names it in its WHERE, so a holder whose lease expired and was taken
 * over can never change the job again. `lease_until_ms` is the injected clock's milliseconds.
 * `reclaimed` counts expired-lease takeovers; `attempts` counts claims (bounded at 5).
 */
export interface JobRow {
  id: string;
  profile: string;
  project: string | null;
  lane_id: string | null;
  kind: string;
  payload: string;
  state: "queued" | "claimed" | "completed" | "failed";
  owner: string | null;
  fence: number | string;
  lease_until_ms: number | string | null;
  attempts: number;
  reclaimed: number;
  result_ref: string | null;
  completed_by: string | null;
  completed_fence: number | string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  last_event_id: string;
}

export interface CoordinationDB {
  shampoo_quorums: QuorumRow;
  shampoo_quorum_participants: QuorumParticipantRow;
  shampoo_lanes: LaneRow;
  shampoo_jobs: JobRow;
}

export const coordinationMigrations: Record<string, Up> = {
  async "0001_coordination"(db) {
    await db.schema
      .createTable("shampoo_quorums")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("project", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("primary_topic_id", "text")
      .addColumn("decision_ref", "text")
      .addColumn("result_ref", "text")
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("resolved_at", "text")
      .addColumn("resolved_by", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_quorums_list")
      .on("shampoo_quorums")
      .columns(["profile", "created_at"])
      .execute();

    await db.schema
      .createTable("shampoo_quorum_participants")
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("quorum_id", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("ref", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("shampoo_quorum_participants_pk", ["profile", "quorum_id", "kind", "ref"])
      .execute();
    await db.schema
      .createIndex("shampoo_quorum_participants_ref")
      .on("shampoo_quorum_participants")
      .columns(["profile", "kind", "ref"])
      .execute();

    await db.schema
      .createTable("shampoo_lanes")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("quorum_id", "text", (c) => c.notNull())
      .addColumn("project", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("state_version", "integer", (c) => c.notNull())
      .addColumn("review_state", "text", (c) => c.notNull())
      .addColumn("review_commit", "text")
      .addColumn("review_version", "integer", (c) => c.notNull())
      .addColumn("merge_state", "text", (c) => c.notNull())
      .addColumn("result_commit", "text")
      .addColumn("merge_version", "integer", (c) => c.notNull())
      .addColumn("assignee", "text")
      .addColumn("task_id", "text")
      .addColumn("depends_on", "text")
      .addColumn("repo", "text")
      .addColumn("branch", "text")
      .addColumn("base_ref", "text")
      .addColumn("worktree", "text")
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("changed_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_lanes_quorum")
      .on("shampoo_lanes")
      .columns(["profile", "quorum_id", "state"])
      .execute();

    await db.schema
      .createTable("shampoo_jobs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("lane_id", "text")
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("owner", "text")
      .addColumn("fence", "bigint", (c) => c.notNull())
      .addColumn("lease_until_ms", "bigint")
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("reclaimed", "integer", (c) => c.notNull())
      .addColumn("result_ref", "text")
      .addColumn("completed_by", "text")
      .addColumn("completed_fence", "bigint")
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    // The claim queue: claimable rows of a profile (and kind) in creation order.
    await db.schema
      .createIndex("shampoo_jobs_claim")
      .on("shampoo_jobs")
      .columns(["profile", "state", "kind", "created_at"])
      .execute();
  },
};
