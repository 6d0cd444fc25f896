import type { Engine } from "../../../platform/engine.ts";
import type { MessageClaimRow, ProjectionRow, VerdictRow, WorkerClaimRow } from "../schema.ts";
import type { Db } from "./topics.ts";

/** Queries of worker claims, one-shot message claims, projections and verdicts. */

/** The active worker claims under one parent binding. */
export async function activeClaimsOfParent(
  db: Db,
  topicId: string,
  role: string,
  parent: string,
): Promise<WorkerClaimRow[]> {
  return db
    .selectFrom("shampoo_debate_worker_claims")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .where("parent_session_id", "=", parent)
    .where("state", "=", "active")
    .execute();
}

/** The active claim a worker session receives through. */
export async function activeClaimOfWorker(
  db: Db,
  topicId: string,
  role: string,
  worker: string,
): Promise<WorkerClaimRow | undefined> {
  return db
    .selectFrom("shampoo_debate_worker_claims")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .where("worker_session_id", "=", worker)
    .where("state", "=", "active")
    .executeTakeFirst();
}

/** The one claim of a trigger (topic, role, parent, trigger), locked. */
export async function claimOfTrigger(
  db: Db,
  engine: Engine,
  k: { topicId: string; role: string; parent: string; trigger: string },
): Promise<WorkerClaimRow | undefined> {
  return engine
    .forUpdate(
      db
        .selectFrom("shampoo_debate_worker_claims")
        .selectAll()
        .where("topic_id", "=", k.topicId)
        .where("role", "=", k.role)
        .where("parent_session_id", "=", k.parent)
        .where("trigger_msg_id", "=", k.trigger),
    )
    .executeTakeFirst();
}

/** The active claims of a topic, oldest first; `owner` narrows them to one principal's. */
export async function activeClaimsOfTopic(db: Db, topicId: string, owner: string | null): Promise<WorkerClaimRow[]> {
  let q = db
    .selectFrom("shampoo_debate_worker_claims")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("state", "=", "active");
  if (owner !== null) q = q.where("owner", "=", owner);
  return q.orderBy("claimed_at").orderBy("claim_id").execute();
}

/** The newest message a completed worker claim of the role acknowledged (a cursor to carry). */
export async function newestCompletedAck(
  db: Db,
  topicId: string,
  role: string,
): Promise<{ msg_id: string; ts: string; seq: number } | undefined> {
  return db
    .selectFrom("shampoo_debate_worker_claims as c")
    .innerJoin("shampoo_debate_messages as m", "m.msg_id", "c.ack_msg_id")
    .select(["m.msg_id", "m.ts", "m.seq"])
    .where("c.topic_id", "=", topicId)
    .where("c.role", "=", role)
    .where("c.state", "=", "completed")
    .orderBy("m.seq", "desc")
    .executeTakeFirst();
}

/** How many claims (worker and one-shot) of a topic are active. */
export async function activeClaimCount(db: Db, topicId: string): Promise<number> {
  let n = 0;
  for (const table of ["shampoo_debate_worker_claims", "shampoo_debate_message_claims"] as const) {
    const r = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("topic_id", "=", topicId)
      .where("state", "=", "active")
      .executeTakeFirst();
    n += Number(r?.n ?? 0);
  }
  return n;
}

export async function messageClaim(db: Db, msgId: string, session: string): Promise<MessageClaimRow | undefined> {
  return db
    .selectFrom("shampoo_debate_message_claims")
    .selectAll()
    .where("msg_id", "=", msgId)
    .where("session_id", "=", session)
    .executeTakeFirst();
}

/** A principal's active one-shot claims of a topic, oldest first. */
export async function activeMessageClaims(db: Db, topicId: string, owner: string): Promise<MessageClaimRow[]> {
  return db
    .selectFrom("shampoo_debate_message_claims")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("owner", "=", owner)
    .where("state", "=", "active")
    .orderBy("claimed_at")
    .orderBy("claim_id")
    .execute();
}

/** A receipt completes the session's active one-shot claims on messages up to `seq`. */
export async function completeMessageClaimsUpTo(db: Db, topicId: string, session: string, seq: number, at: string) {
  await db
    .updateTable("shampoo_debate_message_claims")
    .set({ state: "done", updated_at: at })
    .where("topic_id", "=", topicId)
    .where("session_id", "=", session)
    .where("state", "=", "active")
    .where("msg_id", "in", (eb) =>
      eb.selectFrom("shampoo_debate_messages").select("msg_id").where("topic_id", "=", topicId).where("seq", "<=", seq),
    )
    .execute();
}

export async function projectionsOfRound(db: Db, topicId: string, round: number): Promise<ProjectionRow[]> {
  return db
    .selectFrom("shampoo_debate_projections")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("round_no", "=", round)
    .orderBy("order_key")
    .execute();
}

export async function getProjection(db: Db, profile: string, id: string): Promise<ProjectionRow | undefined> {
  return db
    .selectFrom("shampoo_debate_projections")
    .selectAll()
    .where("profile", "=", profile)
    .where("projection_id", "=", id)
    .executeTakeFirst();
}

export async function verdictsOfRound(db: Db, topicId: string, round: number): Promise<VerdictRow[]> {
  return db
    .selectFrom("shampoo_debate_verdicts")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("round_no", "=", round)
    .execute();
}

/** Every verdict of a topic with its projection's order (flip rates). */
export async function verdictsWithOrder(db: Db, topicId: string) {
  return db
    .selectFrom("shampoo_debate_verdicts as v")
    .innerJoin("shampoo_debate_projections as p", "p.projection_id", "v.projection_id")
    .select(["v.judge_role", "v.round_no", "p.order_key", "v.winner_msg_id"])
    .where("v.topic_id", "=", topicId)
    .execute();
}
