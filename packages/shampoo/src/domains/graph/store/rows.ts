import { type Kysely, sql, type Transaction } from "kernel";
import { type Caller, projectCondition, type Scope, scopeOf } from "../../../access/caller.ts";
import { isLive } from "../../../platform/lifecycle.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { Entity, EntityPhraseRow } from "../schema.ts";

/**
 * Graph queries. As in the task store, scope lives in the WHERE clause: an entity the caller
 * may not see is never loaded by a read, so missing and foreign answer the same. The one
 * exception is the identity lookup of create_entities (`entityByNorm`), which must know that a
 * name is taken; it never returns the foreign row's content to the caller.
 */

export type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
type Raw<T> = ReturnType<typeof sql<T>>;

/** A caller's reach in the graph: the project scope plus who they are (private entities). */
export interface GraphScope extends Scope {
  principal: string;
}

export function graphScopeOf(caller: Caller): GraphScope {
  return { ...scopeOf(caller), principal: caller.principal };
}

/** Can the caller see this entity row (profile, project grant, visibility)? */
export function seesEntity(s: GraphScope, e: Pick<Entity, "profile" | "project" | "visibility" | "created_by">) {
  if (e.profile !== s.profile) return false;
  const inScope =
    e.project === null ? s.untagged : s.projects === null ? true : (s.projects as string[]).includes(e.project);
  return inScope && (e.visibility === "shared" || e.created_by === s.principal);
}

/**
 * The visibility predicate of entity alias `a` as SQL: profile = … AND the shared project rule
 * (access/caller.ts projectCondition: granted projects, any named one with star, NULL only with
 * the untagged grant) AND (visibility = 'shared' OR created_by = principal).
 */
export function visibleSql(a: string, s: GraphScope): Raw<boolean> {
  const c = (col: string) => sql.ref(`${a}.${col}`);
  return sql<boolean>`(${c("profile")} = ${s.profile} AND ${projectCondition(s, `${a}.project`)} AND (${c("visibility")} = 'shared' OR ${c("created_by")} = ${s.principal}))`;
}

/** Visible and live. */
export function liveSql(a: string, s: GraphScope): Raw<boolean> {
  return sql<boolean>`(${isLive(a)} AND ${visibleSql(a, s)})`;
}

/** The entity holding a name in a profile, whatever its project, visibility or lifecycle. */
export async function entityByNorm(db: Db, profile: string, norm: string, lock: boolean): Promise<Entity | undefined> {
  let q = db.selectFrom("shampoo_entities").selectAll().where("profile", "=", profile).where("name_norm", "=", norm);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Live visible entities by identity key (one query for a batch of names). */
export async function liveByNorms(db: Db, s: GraphScope, norms: string[], lock = false): Promise<Map<string, Entity>> {
  const out = new Map<string, Entity>();
  const distinct = [...new Set(norms)];
  for (let i = 0; i < distinct.length; i += 500) {
    let q = db
      .selectFrom("shampoo_entities as e")
      .selectAll("e")
      .where("e.profile", "=", s.profile)
      .where("e.name_norm", "in", distinct.slice(i, i + 500))
      .where(liveSql("e", s));
    if (lock) q = q.orderBy("e.id").forUpdate();
    for (const row of await q.execute()) out.set(row.name_norm, row);
  }
  return out;
}

/** How many live entities the caller sees (read_graph total). */
export async function countVisible(db: Db, s: GraphScope): Promise<number> {
  const count = await db
    .selectFrom("shampoo_entities as e")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("e.profile", "=", s.profile)
    .where(liveSql("e", s))
    .executeTakeFirst();
  return Number(count?.n ?? 0);
}

/** A page of the live visible entities in (name, id) order. */
export async function visiblePage(db: Db, s: GraphScope, limit: number, offset: number): Promise<Entity[]> {
  return db
    .selectFrom("shampoo_entities as e")
    .selectAll("e")
    .where("e.profile", "=", s.profile)
    .where("e.lifecycle", "=", "live")
    .where(liveSql("e", s))
    .orderBy("e.name")
    .orderBy("e.id")
    .limit(limit)
    .offset(offset)
    .execute();
}

/** Entity rows by id (search_by_project loads its pool; scope was applied by the pool). */
export async function entitiesByIds(db: Db, ids: string[]): Promise<Entity[]> {
  return db.selectFrom("shampoo_entities").selectAll().where("id", "in", ids).execute();
}

/** Live observations of the given entities, in order, grouped by entity id. */
export async function observationsOf(db: Db, entityIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const id of entityIds) out.set(id, []);
  for (let i = 0; i < entityIds.length; i += 500) {
    const rows = await db
      .selectFrom("shampoo_observations")
      .select(["entity_id", "content"])
      .where("entity_id", "in", entityIds.slice(i, i + 500))
      .where("lifecycle", "=", "live")
      .orderBy("entity_id")
      .orderBy("ord")
      .execute();
    for (const r of rows) out.get(r.entity_id)?.push(r.content);
  }
  return out;
}

export interface EdgeRow {
  from_id: string;
  to_id: string;
  relation_type: string;
  from_name: string;
  to_name: string;
}

/**
 * Live relations leaving `fromIds` whose other endpoint is live and visible. When `toIds` is
 * given, only edges into that set (open_nodes: edges inside the opened set).
 */
export async function edgesFrom(db: Db, s: GraphScope, fromIds: string[], toIds?: string[]): Promise<EdgeRow[]> {
  const out: EdgeRow[] = [];
  for (let i = 0; i < fromIds.length; i += 500) {
    let q = db
      .selectFrom("shampoo_relations as r")
      .innerJoin("shampoo_entities as f", "f.id", "r.from_id")
      .innerJoin("shampoo_entities as t", "t.id", "r.to_id")
      .select(["r.from_id", "r.to_id", "r.relation_type", "f.name as from_name", "t.name as to_name"])
      .where("r.from_id", "in", fromIds.slice(i, i + 500))
      .where("r.lifecycle", "=", "live")
      .where(liveSql("t", s));
    if (toIds) q = q.where("r.to_id", "in", toIds);
    out.push(...(await q.orderBy("f.name").orderBy("t.name").orderBy("r.relation_type").execute()));
  }
  return out;
}

/** Adds rows to the phrase index of names and aliases (schema.ts, 012), keeping those already there. */
export async function insertPhrases(trx: Transaction<ShampooDB>, rows: EntityPhraseRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto("shampoo_entity_phrases")
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(["profile", "phrase", "entity_id"]).doNothing())
      .execute();
  }
}
