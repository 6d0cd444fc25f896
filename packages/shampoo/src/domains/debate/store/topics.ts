import type { Kysely, Transaction } from "kernel";
import type { Caller } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { BindingRow, TopicRow } from "../schema.ts";

/** Queries of topics, bindings and session ownership. */
export type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** The topic in the caller's profile (any project, sentinel included), locked when `engine` is given. */
export async function getTopic(
  db: Db,
  profile: string,
  topicId: string,
  engine?: Engine,
): Promise<TopicRow | undefined> {
  let q = db
    .selectFrom("shampoo_debate_topics")
    .selectAll()
    .where("profile", "=", profile)
    .where("topic_id", "=", topicId);
  if (engine) q = engine.forUpdate(q);
  return q.executeTakeFirst();
}

export async function updateTopic(db: Db, topicId: string, set: Partial<TopicRow>): Promise<void> {
  await db.updateTable("shampoo_debate_topics").set(set).where("topic_id", "=", topicId).execute();
}

export async function topicsOf(db: Db, profile: string, states: TopicRow["state"][] | null): Promise<TopicRow[]> {
  let q = db.selectFrom("shampoo_debate_topics").selectAll().where("profile", "=", profile);
  if (states) q = q.where("state", "in", states);
  return q.orderBy("topic_id").execute();
}

export async function bindingsOf(db: Db, topicId: string): Promise<BindingRow[]> {
  return db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .orderBy("role")
    .orderBy("generation")
    .orderBy("created_at")
    .execute();
}

/** The active owner of a role, locked when `engine` is given. */
export async function activeBinding(
  db: Db,
  topicId: string,
  role: string,
  engine?: Engine,
): Promise<BindingRow | undefined> {
  let q = db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .where("state", "=", "active");
  if (engine) q = engine.forUpdate(q);
  return q.executeTakeFirst();
}

/** The caller's binding of (topic, role, session) in one of `states`. */
export async function bindingOfSession(
  db: Db,
  topicId: string,
  role: string,
  sessionId: string,
  states: BindingRow["state"][],
): Promise<BindingRow | undefined> {
  return db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .where("session_id", "=", sessionId)
    .where("state", "in", states)
    .orderBy("generation", "desc")
    .executeTakeFirst();
}

export async function maxGeneration(db: Db, topicId: string, role: string): Promise<number> {
  const r = await db
    .selectFrom("shampoo_debate_bindings")
    .select((eb) => eb.fn.max("generation").as("g"))
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .executeTakeFirst();
  return Number(r?.g ?? 0);
}

/**
 * Does the caller take part in the topic? An active or diagnostic binding it owns, or (once the
 * topic closed) a binding the closing transition retired: the closed transcript stays readable.
 */
export async function participates(db: Db, topic: TopicRow, principal: string): Promise<boolean> {
  let q = db
    .selectFrom("shampoo_debate_bindings")
    .select("binding_id")
    .where("topic_id", "=", topic.topic_id)
    .where("owner", "=", principal);
  q =
    topic.state === "RESOLVED" || topic.state === "ARCHIVED"
      ? q.where((eb) => eb.or([eb("state", "in", ["active", "diagnostic"]), eb("retire_reason", "like", "topic_%")]))
      : q.where("state", "in", ["active", "diagnostic"]);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Does the caller own this session id? A SHAMPOO session (session_save) of its own principal in
 * its profile and visible scope, or an identity the debate service minted for it. Star never
 * substitutes for ownership.
 */
export async function ownsSession(db: Db, caller: Caller, sessionId: string): Promise<boolean> {
  const minted = await db
    .selectFrom("shampoo_debate_identities")
    .select("session_id")
    .where("profile", "=", caller.profile)
    .where("session_id", "=", sessionId)
    .where("owner", "=", caller.principal)
    .executeTakeFirst();
  if (minted) return true;
  // The sessions module's table, read only for ownership (dependsOn: sessions).
  const s = await db
    .selectFrom("shampoo_sessions")
    .select(["owner", "project"])
    .where("profile", "=", caller.profile)
    .where("session_id", "=", sessionId)
    .executeTakeFirst();
  if (!s || s.owner !== caller.principal) return false;
  return s.project === null ? caller.untagged : caller.star || caller.projects.has(s.project);
}

export async function insertIdentity(db: Db, row: ShampooDB["shampoo_debate_identities"]): Promise<void> {
  await db.insertInto("shampoo_debate_identities").values(row).execute();
}

/** A binding of a session in the topic (any role) in one of `states`. */
export async function sessionBinding(
  db: Db,
  topicId: string,
  sessionId: string,
  states: BindingRow["state"][],
): Promise<BindingRow | undefined> {
  return db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("session_id", "=", sessionId)
    .where("state", "in", states)
    .executeTakeFirst();
}

export async function bindingsInStates(db: Db, topicId: string, states: BindingRow["state"][]): Promise<BindingRow[]> {
  return db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("state", "in", states)
    .orderBy("role")
    .orderBy("generation")
    .execute();
}

/** One binding by id, locked. */
export async function lockBinding(db: Db, engine: Engine, bindingId: string): Promise<BindingRow | undefined> {
  return engine
    .forUpdate(db.selectFrom("shampoo_debate_bindings").selectAll().where("binding_id", "=", bindingId))
    .executeTakeFirst();
}

export async function updateBinding(db: Db, bindingId: string, set: Partial<BindingRow>): Promise<void> {
  await db.updateTable("shampoo_debate_bindings").set(set).where("binding_id", "=", bindingId).execute();
}

/** The caller's binding of a role that is active, or that the topic's resolution retired. */
export async function activeOrResolvedBinding(
  db: Db,
  topicId: string,
  role: string,
  owner: string,
): Promise<BindingRow | undefined> {
  return db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .where("owner", "=", owner)
    .where((eb) => eb.or([eb("state", "=", "active"), eb("retire_reason", "=", "topic_resolved")]))
    .executeTakeFirst();
}

/** The newest retired binding of a role (whose owner the recovery sweep replaces). */
export async function latestRetired(db: Db, topicId: string, role: string): Promise<BindingRow | undefined> {
  return db
    .selectFrom("shampoo_debate_bindings")
    .selectAll()
    .where("topic_id", "=", topicId)
    .where("role", "=", role)
    .where("state", "=", "retired")
    .orderBy("generation", "desc")
    .executeTakeFirst();
}

/** debate/v1 topics of the profile whose ROUND or ADJUDICATE deadline has passed, locked. */
export async function expiredPhases(db: Db, engine: Engine, profile: string, now: string): Promise<TopicRow[]> {
  return engine
    .forUpdate(
      db
        .selectFrom("shampoo_debate_topics")
        .selectAll()
        .where("profile", "=", profile)
        .where("phase", "in", ["ROUND", "ADJUDICATE"])
        .where("phase_deadline_at", "<=", now)
        .orderBy("topic_id"),
    )
    .execute();
}

/** Open (INIT, ACTIVE) topics with a set project, all or the given ids, locked. */
export async function openTopics(db: Db, engine: Engine, profile: string, ids: string[]): Promise<TopicRow[]> {
  let q = db
    .selectFrom("shampoo_debate_topics")
    .selectAll()
    .where("profile", "=", profile)
    .where("state", "in", ["INIT", "ACTIVE"])
    .where("project_state", "=", "set");
  if (ids.length > 0) q = q.where("topic_id", "in", ids);
  return engine.forUpdate(q.orderBy("topic_id")).execute();
}
