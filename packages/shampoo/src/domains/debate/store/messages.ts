import { sql } from "kernel";
import type { Engine } from "../../../platform/engine.ts";
import type { MessageRow, RecipientRow } from "../schema.ts";
import type { Db } from "./topics.ts";

/** Queries of messages and their recipients. */

export async function getMessage(db: Db, topicId: string, msgId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("msg_id", "=", msgId)
    .executeTakeFirst();
}

export async function insertRecipients(db: Db, rows: RecipientRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto("shampoo_debate_recipients").values(rows).execute();
}

export interface Window {
  afterSeq: number;
  afterTs?: string | undefined;
  kinds?: string[] | undefined;
  priorities?: string[] | undefined;
  limit: number;
}

/** The transcript after a cursor (seq, or ts), filtered, oldest first; one more than `limit`. */
export async function transcript(db: Db, topicId: string, w: Window): Promise<MessageRow[]> {
  let q = db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("seq", ">", w.afterSeq);
  if (w.afterTs !== undefined) q = q.where("ts", ">", w.afterTs);
  if (w.kinds?.length) q = q.where("kind", "in", w.kinds);
  if (w.priorities?.length) q = q.where("priority", "in", w.priorities);
  return q
    .orderBy("seq")
    .limit(w.limit + 1)
    .execute();
}

/** The newest COMPACTION snapshot of the topic. */
export async function latestCompaction(db: Db, topicId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("kind", "=", "COMPACTION")
    .orderBy("seq", "desc")
    .executeTakeFirst();
}

/**
 * Literal, case-sensitive substring search of the bodies, newest first: instr (SQLite) and
 * strpos (PostgreSQL) take no wildcards at all, so both engines match the same rows. Sealed
 * blind positions never take part (`revealedRound`): a hit or a miss on one would leak it.
 */
export async function searchBodies(
  db: Db,
  engine: Engine,
  topicId: string,
  query: string,
  revealedRound: number,
  limit: number,
): Promise<MessageRow[]> {
  const found =
    engine.dialect === "postgres" ? sql<boolean>`strpos(body, ${query}) > 0` : sql<boolean>`instr(body, ${query}) > 0`;
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where((eb) => eb.or([eb("blind_round", "is", null), eb("blind_round", "<=", revealedRound)]))
    .where(found)
    .orderBy("seq", "desc")
    .limit(limit)
    .execute();
}

/** Messages addressed to a role or a session after a seq, oldest first; one more than `limit`. */
export async function inbox(
  db: Db,
  topicId: string,
  role: string,
  sessionId: string,
  afterSeq: number,
  afterTs: string | undefined,
  limit: number,
): Promise<MessageRow[]> {
  let q = db
    .selectFrom("shampoo_debate_messages as m")
    .selectAll("m")
    .where("m.topic_id", "=", topicId)
    .where("m.seq", ">", afterSeq)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("shampoo_debate_recipients as r")
          .select("r.recipient_id")
          .whereRef("r.msg_id", "=", "m.msg_id")
          .where((e) =>
            e.or([
              e.and([e("r.recipient_kind", "=", "role"), e("r.recipient", "=", role)]),
              e.and([e("r.recipient_kind", "=", "session"), e("r.recipient", "=", sessionId)]),
            ]),
          ),
      ),
    );
  if (afterTs !== undefined) q = q.where("m.ts", ">", afterTs);
  return q
    .orderBy("m.seq")
    .limit(limit + 1)
    .execute();
}

/** Is the message addressed to this role or session? */
export async function addressedTo(db: Db, msgId: string, role: string, sessionId: string): Promise<boolean> {
  const r = await db
    .selectFrom("shampoo_debate_recipients")
    .select("recipient_id")
    .where("msg_id", "=", msgId)
    .where((e) =>
      e.or([
        e.and([e("recipient_kind", "=", "role"), e("recipient", "=", role)]),
        e.and([e("recipient_kind", "=", "session"), e("recipient", "=", sessionId)]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

export async function recipientsOf(db: Db, msgId: string): Promise<RecipientRow[]> {
  return db
    .selectFrom("shampoo_debate_recipients")
    .selectAll()
    .where("msg_id", "=", msgId)
    .orderBy("recipient")
    .execute();
}

/** Delivery progress of a check: seen once more, never consumed. */
export async function markSeen(db: Db, msgIds: string[], role: string, sessionId: string, at: string): Promise<void> {
  if (msgIds.length === 0) return;
  await db
    .updateTable("shampoo_debate_recipients")
    .set((eb) => ({ seen_count: eb("seen_count", "+", 1), last_seen_at: at }))
    .where("msg_id", "in", msgIds)
    .where((e) =>
      e.or([
        e.and([e("recipient_kind", "=", "role"), e("recipient", "=", role)]),
        e.and([e("recipient_kind", "=", "session"), e("recipient", "=", sessionId)]),
      ]),
    )
    .execute();
}

/** A receipt: every entry of this recipient up to `seq` not delivered yet becomes delivered, once. */
export async function markDelivered(
  db: Db,
  topicId: string,
  role: string,
  sessionId: string,
  seq: number,
  at: string,
): Promise<number> {
  const r = await db
    .updateTable("shampoo_debate_recipients")
    .set({ delivered_at: at, delivered_session: sessionId })
    .where("topic_id", "=", topicId)
    .where("seq", "<=", seq)
    .where("delivered_at", "is", null)
    .where((e) =>
      e.or([
        e.and([e("recipient_kind", "=", "role"), e("recipient", "=", role)]),
        e.and([e("recipient_kind", "=", "session"), e("recipient", "=", sessionId)]),
      ]),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

/** Replies to a message (for the Q/A gate and terminal replies). */
export async function repliesTo(db: Db, topicId: string, msgIds: string[]): Promise<MessageRow[]> {
  if (msgIds.length === 0) return [];
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("reply_to", "in", msgIds)
    .orderBy("seq")
    .execute();
}

export async function messagesOfKind(db: Db, topicId: string, kinds: string[]): Promise<MessageRow[]> {
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("kind", "in", kinds)
    .orderBy("seq")
    .execute();
}

/** The blind positions of one round. */
export async function positionsOfRound(db: Db, topicId: string, round: number): Promise<MessageRow[]> {
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("blind_round", "=", round)
    .orderBy("seq")
    .execute();
}

export async function commitments(db: Db, topicId: string): Promise<MessageRow[]> {
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("commitment", "is not", null)
    .orderBy("seq")
    .execute();
}

/** Counts per priority and the newest message of a topic (work queue signals). */
export async function messageSignals(
  db: Db,
  topicId: string,
): Promise<{ peaks: Record<string, number>; latest: MessageRow | undefined }> {
  const rows = await db
    .selectFrom("shampoo_debate_messages")
    .select(["priority", (eb) => eb.fn.countAll<number>().as("n")])
    .where("topic_id", "=", topicId)
    .groupBy("priority")
    .execute();
  const peaks: Record<string, number> = { H: 0, M: 0, L: 0, INFO: 0 };
  for (const r of rows) peaks[r.priority] = Number(r.n);
  const latest = await db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .orderBy("seq", "desc")
    .executeTakeFirst();
  return { peaks, latest };
}

/** The newest message of a topic (its tip). */
export async function tip(db: Db, topicId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom("shampoo_debate_messages")
    .selectAll()
    .where("topic_id", "=", topicId)
    .orderBy("seq", "desc")
    .executeTakeFirst();
}
