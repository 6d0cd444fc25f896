import { type Kysely, prepared, sql, type Transaction } from "kernel";
import type { Scope } from "../../access/caller.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { normalizeName } from "../graph/model.ts";
import type { EntityRow } from "../graph/schema.ts";
import { type GraphScope, liveByNorms, liveSql } from "../graph/store/rows.ts";
import type { TaskRow } from "../tasks/schema.ts";
import type { LinkDecisionRow, TaskLinkRow } from "./schema.ts";

/**
 * Link queries. Scope lives in the WHERE clause on both sides: a task outside the caller's
 * grants and an entity the caller may not see (project grant, private visibility, voided) are
 * never loaded, so missing and foreign answer alike. Entity visibility is the graph's own
 * predicate (graph/store/rows.ts liveSql); the task predicate is this domain's copy of the task
 * store's scope rule.
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
type Raw<T> = ReturnType<typeof sql<T>>;

/** The task scope of alias `a` as SQL (profile, and project IN grants | star named | untagged null). */
export function taskInScope(a: string, s: Scope): Raw<boolean> {
  const c = (col: string) => sql.ref(`${a}.${col}`);
  const ors: Raw<boolean>[] = [];
  if (s.projects === null) ors.push(sql<boolean>`${c("project")} IS NOT NULL`);
  else if (s.projects.length > 0) ors.push(sql<boolean>`${c("project")} IN (${sql.join(s.projects)})`);
  if (s.untagged) ors.push(sql<boolean>`${c("project")} IS NULL`);
  if (ors.length === 0) return sql<boolean>`1 = 0`;
  return sql<boolean>`(${c("profile")} = ${s.profile} AND (${sql.join(ors, sql` OR `)}))`;
}

/** One visible task. `lock` takes a row lock on PostgreSQL: link writes on one task serialise. */
export async function visibleTask(db: Db, s: Scope, id: string, lock: boolean): Promise<TaskRow | undefined> {
  let q = db.selectFrom("shampoo_tasks as t").selectAll("t").where("t.id", "=", id).where(taskInScope("t", s));
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/**
 * A visible task (as visibleTask) and, in the same statement, the most words a name or alias of
 * its profile has (longestPhrase): what link discovery reads first in every task write, one
 * round trip instead of two.
 */
export async function discoveryTask(
  db: Db,
  s: Scope,
  id: string,
): Promise<{ task: TaskRow; longest: number } | undefined> {
  const row = await db
    .selectFrom("shampoo_tasks as t")
    .selectAll("t")
    .select((eb) =>
      eb
        .selectFrom("shampoo_entity_phrases as p")
        .select("p.words")
        .whereRef("p.profile", "=", "t.profile")
        .orderBy("p.words", "desc")
        .limit(1)
        .as("longest_phrase"),
    )
    .where("t.id", "=", id)
    .where(taskInScope("t", s))
    .executeTakeFirst();
  if (!row) return undefined;
  const { longest_phrase, ...task } = row;
  return { task: task as TaskRow, longest: Number(longest_phrase ?? 0) };
}

/** A live entity the caller may see, by name (the graph's identity key). */
export async function visibleEntity(db: Db, gs: GraphScope, name: string) {
  const norm = normalizeName(name);
  return (await liveByNorms(db, gs, [norm])).get(norm);
}

export type EntityLite = Pick<
  EntityRow,
  "id" | "name" | "name_norm" | "entity_type" | "project" | "created_by" | "created_at" | "alias_text"
>;

const LITE_COLUMNS = [
  "e.id",
  "e.name",
  "e.name_norm",
  "e.entity_type",
  "e.project",
  "e.created_by",
  "e.created_at",
  "e.alias_text",
] as const;

/** Every live entity the caller may see in the profile: the scorer's candidate universe. */
export async function visibleEntities(db: Db, gs: GraphScope): Promise<EntityLite[]> {
  return db
    .selectFrom("shampoo_entities as e")
    .select(LITE_COLUMNS)
    .where("e.profile", "=", gs.profile)
    .where(liveSql("e", gs))
    .orderBy("e.id")
    .execute();
}

/** The live entities among `ids` that the caller may see. */
export async function visibleEntitiesByIds(db: Db, gs: GraphScope, ids: string[]): Promise<EntityLite[]> {
  const out: EntityLite[] = [];
  const distinct = [...new Set(ids)];
  for (let i = 0; i < distinct.length; i += 500) {
    out.push(
      ...(await db
        .selectFrom("shampoo_entities as e")
        .select(LITE_COLUMNS)
        .where("e.id", "in", distinct.slice(i, i + 500))
        .where("e.profile", "=", gs.profile)
        .where(liveSql("e", gs))
        .execute()),
    );
  }
  return out;
}

/** The most words a name or alias of the profile has (0 for an empty graph): the phrase index, 012. */
export async function longestPhrase(db: Db, profile: string): Promise<number> {
  return Number((await longestPhraseQuery.first(db, { profile }))?.words ?? 0);
}

// ORDER BY … LIMIT 1 reads one entry of shampoo_entity_phrases_words; max() with a WHERE would
// not use the index's order on SQLite and would read every phrase of the profile.
const longestPhraseQuery = prepared<ShampooDB, { profile: string }, { words: number }>((db, p) =>
  db
    .selectFrom("shampoo_entity_phrases")
    .select("words")
    .where("profile", "=", p.profile)
    .orderBy("words", "desc")
    .limit(1),
);

/**
 * Live entities the caller may see whose name or an alias has one of the phrase keys given (the
 * phrase index, graph/schema.ts 012): one index probe per phrase, whatever the size of the graph.
 */
export async function entitiesByPhrases(db: Db, gs: GraphScope, phrases: string[]): Promise<EntityLite[]> {
  const out = new Map<string, EntityLite>();
  for (let i = 0; i < phrases.length; i += 500) {
    // CROSS JOIN pins the order on SQLite (its planner may not reorder it): the phrase keys
    // first, one index probe each, then each matching entity by id. Started from the entities,
    // the statement would walk every live entity of the profile. PostgreSQL plans it as the
    // inner join it is.
    const rows = await db
      .selectFrom("shampoo_entity_phrases as p")
      .crossJoin("shampoo_entities as e")
      .select(LITE_COLUMNS)
      .whereRef("e.id", "=", "p.entity_id")
      .where("p.profile", "=", gs.profile)
      .where("p.phrase", "in", phrases.slice(i, i + 500))
      .where("e.profile", "=", gs.profile)
      .where(liveSql("e", gs))
      .execute();
    for (const r of rows) out.set(r.id, r);
  }
  return [...out.values()];
}

/**
 * Live observations of visible entities containing any of `terms` (lowercased substring: a cheap
 * prefilter on both engines; the scorer then compares whole folded words).
 */
export async function observationHits(
  db: Db,
  gs: GraphScope,
  terms: string[],
  limit: number,
  entityIds?: string[],
): Promise<{ entity_id: string; content: string }[]> {
  if (terms.length === 0 || entityIds?.length === 0) return [];
  return db
    .selectFrom("shampoo_observations as o")
    .innerJoin("shampoo_entities as e", "e.id", "o.entity_id")
    .select(["o.entity_id", "o.content"])
    .$if(entityIds !== undefined, (q) => q.where("o.entity_id", "in", entityIds as string[]))
    .where("o.profile", "=", gs.profile)
    .where("o.lifecycle", "=", "live")
    .where(liveSql("e", gs))
    .where((eb) => eb.or(terms.map((t) => eb(sql`lower(${sql.ref("o.content")})`, "like", `%${t}%`))))
    .orderBy("o.entity_id")
    .orderBy("o.ord")
    .limit(limit)
    .execute();
}

/**
 * Live relations touching any of `ids` (endpoint visibility is checked by the caller). Written as
 * a UNION of the two endpoint lookups (shampoo_relations_from / _to): with `from_id IN … OR
 * to_id IN …` SQLite walks every relation of the profile instead (a cost that grows with the
 * graph, inside task writes). A relation is one row per triple, so UNION drops nothing.
 */
export async function relationsTouching(
  db: Db,
  profile: string,
  ids: string[],
): Promise<{ from_id: string; to_id: string; relation_type: string }[]> {
  if (ids.length === 0) return [];
  const side = (col: "from_id" | "to_id") =>
    db
      .selectFrom("shampoo_relations")
      .select(["from_id", "to_id", "relation_type"])
      .where(col, "in", ids)
      .where("lifecycle", "=", "live")
      .where("profile", "=", profile);
  return side("from_id").union(side("to_id")).orderBy("relation_type").orderBy("from_id").orderBy("to_id").execute();
}

/** Every link row of a task (live and void). */
export async function linksOfTask(db: Db, profile: string, taskId: string): Promise<TaskLinkRow[]> {
  return linksOfTaskQuery.rows(db, { profile, taskId });
}

export async function linkOf(
  db: Db,
  profile: string,
  taskId: string,
  entityId: string,
): Promise<TaskLinkRow | undefined> {
  return linkOfQuery.first(db, { profile, taskId, entityId });
}

// Fixed-shape lookups of every task write (discovery) compiled once (kernel/store/prepared.ts).
const linksOfTaskQuery = prepared<ShampooDB, { profile: string; taskId: string }, TaskLinkRow>((db, p) =>
  db.selectFrom("shampoo_task_links").selectAll().where("profile", "=", p.profile).where("task_id", "=", p.taskId),
);

const linkOfQuery = prepared<ShampooDB, { profile: string; taskId: string; entityId: string }, TaskLinkRow>((db, p) =>
  db
    .selectFrom("shampoo_task_links")
    .selectAll()
    .where("profile", "=", p.profile)
    .where("task_id", "=", p.taskId)
    .where("entity_id", "=", p.entityId),
);

/** The latest decision of each (task, entity) pair of one task, by entity id. */
/** A decision as read back (seq loaded). */
export type Decision = Omit<LinkDecisionRow, "seq"> & { seq: number };

export async function latestDecisions(db: Db, profile: string, taskId: string): Promise<Map<string, Decision>> {
  const rows = await decisionsOfTaskQuery.rows(db, { profile, taskId });
  const out = new Map<string, Decision>();
  for (const r of rows) out.set(r.entity_id, { ...r, seq: Number(r.seq) });
  return out;
}

const decisionsOfTaskQuery = prepared<ShampooDB, { profile: string; taskId: string }, LinkDecisionRow>((db, p) =>
  db
    .selectFrom("shampoo_link_decisions")
    .selectAll()
    .where("profile", "=", p.profile)
    .where("task_id", "=", p.taskId)
    .orderBy("seq"),
);

/**
 * Evaluation labels so far: the latest decision of every pair whose task and entity the caller
 * may both see (a live entity inside its grants and visibility), counted by decision. A pair
 * with an invisible side is not counted: otherwise the count would move with decisions on
 * entities the caller cannot see (an existence oracle).
 */
export async function labelCounts(db: Db, gs: GraphScope): Promise<{ accepted: number; rejected: number }> {
  const rows = await db
    .selectFrom("shampoo_link_decisions as d")
    .innerJoin("shampoo_tasks as t", (j) => j.onRef("t.id", "=", "d.task_id").onRef("t.profile", "=", "d.profile"))
    .innerJoin("shampoo_entities as e", "e.id", "d.entity_id")
    .select(["d.decision", (eb) => eb.fn.countAll<number>().as("n")])
    .where("d.profile", "=", gs.profile)
    .where(taskInScope("t", gs))
    .where("e.profile", "=", gs.profile)
    .where(liveSql("e", gs))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("shampoo_link_decisions as d2")
            .select("d2.seq")
            .whereRef("d2.profile", "=", "d.profile")
            .whereRef("d2.task_id", "=", "d.task_id")
            .whereRef("d2.entity_id", "=", "d.entity_id")
            .whereRef("d2.seq", ">", "d.seq"),
        ),
      ),
    )
    .groupBy("d.decision")
    .execute();
  const get = (d: string) => Number(rows.find((r) => r.decision === d)?.n ?? 0);
  return { accepted: get("accepted"), rejected: get("rejected") };
}

export async function insertDecision(trx: Transaction<ShampooDB>, row: Omit<LinkDecisionRow, "seq">): Promise<void> {
  await trx.insertInto("shampoo_link_decisions").values(row).execute();
}

/** The live links of a task to live entities the caller may see, oldest first. */
export async function taskLinks(db: Db, gs: GraphScope, taskId: string) {
  return db
    .selectFrom("shampoo_task_links as l")
    .innerJoin("shampoo_entities as e", "e.id", "l.entity_id")
    .select(["l.entity_id", "e.name as entity_name", "e.entity_type", "l.link_type", "l.score", "l.created_at"])
    .where("l.profile", "=", gs.profile)
    .where("l.task_id", "=", taskId)
    .where("l.lifecycle", "=", "live")
    .where(liveSql("e", gs))
    .orderBy("l.created_at")
    .orderBy("e.name")
    .execute();
}

/** Tasks excluded from an entity's task list: no longer live work. */
export const GONE = ["archived", "cancelled"];

/** The live links of an entity to live tasks the caller may see, newest link first. */
export async function entityTasks(db: Db, s: Scope, entityId: string) {
  return db
    .selectFrom("shampoo_task_links as l")
    .innerJoin("shampoo_tasks as t", (j) => j.onRef("t.id", "=", "l.task_id").onRef("t.profile", "=", "l.profile"))
    .select([
      "t.id",
      "t.title",
      "t.status",
      "t.priority",
      "t.section",
      "l.link_type",
      "l.score",
      "l.created_at as linked_at",
    ])
    .where("l.profile", "=", s.profile)
    .where("l.entity_id", "=", entityId)
    .where("l.lifecycle", "=", "live")
    .where("t.status", "not in", GONE)
    .where(taskInScope("t", s))
    .orderBy("l.created_at", "desc")
    .orderBy("t.id")
    .execute();
}
