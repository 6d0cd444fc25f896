import { type Prepared, prepared, type Transaction } from "kernel";
import { LIFECYCLE_AUDIT_COLUMNS } from "../../../platform/lifecycle.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { AliasRow, Entity, Observation, RelationRow } from "../schema.ts";

/**
 * The statements of the graph's writes (service/ calls them inside its write()). Rows are found
 * by unique keys, so every write is O(1) in the size of the graph; the search indexes change per
 * row (FTS triggers on SQLite, generated columns on PostgreSQL).
 */

type Trx = Transaction<ShampooDB>;

/** A new entity row, or nothing when the name is taken (compiled once per database). */
const insertEntityStatement = prepared<ShampooDB, Entity, Entity>((db, m) =>
  db
    .insertInto("shampoo_entities")
    .values({
      id: m.id,
      profile: m.profile,
      project: m.project,
      name: m.name,
      name_norm: m.name_norm,
      entity_type: m.entity_type,
      alias_text: m.alias_text,
      visibility: m.visibility,
      created_at: m.created_at,
      created_by: m.created_by,
      updated_at: m.updated_at,
      last_event_id: m.last_event_id,
      lifecycle: m.lifecycle,
      voided_at: m.voided_at,
      voided_by: m.voided_by,
      void_reason: m.void_reason,
      revived_at: m.revived_at,
      revived_by: m.revived_by,
      retired_at: m.retired_at,
      retired_by: m.retired_by,
      retire_reason: m.retire_reason,
    })
    .onConflict((oc) => oc.columns(["profile", "name_norm"]).doNothing())
    .returningAll(),
);

/** Inserts an entity unless its name is taken in the profile; the row as stored, or undefined. */
export function insertEntity(trx: Trx, row: Entity): Promise<Entity | undefined> {
  return insertEntityStatement.first(trx, row);
}

/** The highest `ord` of an entity's observations (0 when it has none). */
export async function maxObservationOrd(trx: Trx, entityId: string): Promise<number> {
  const max = await trx
    .selectFrom("shampoo_observations")
    .select((eb) => eb.fn.max("ord").as("m"))
    .where("entity_id", "=", entityId)
    .executeTakeFirst();
  return Number(max?.m ?? 0);
}

/** An entity's observation with this content hash (live only when `liveOnly`). */
export async function observationByHash(
  trx: Trx,
  entityId: string,
  hash: string,
  liveOnly = false,
): Promise<Observation | undefined> {
  let q = trx
    .selectFrom("shampoo_observations")
    .selectAll()
    .where("entity_id", "=", entityId)
    .where("content_hash", "=", hash);
  if (liveOnly) q = q.where("lifecycle", "=", "live");
  return q.executeTakeFirst();
}

const OBSERVATION_COLUMNS = [
  "id",
  "entity_id",
  "profile",
  "content",
  "content_hash",
  "ord",
  "created_at",
  "created_by",
  "last_event_id",
  "lifecycle",
  ...LIFECYCLE_AUDIT_COLUMNS,
] as const satisfies readonly (keyof Observation)[];

/** Observation inserts of up to this many rows are compiled once per row count (prepared()). */
const PREPARED_OBSERVATION_ROWS = 16;
const observationInserts = new Map<number, Prepared<ShampooDB, Record<string, unknown>, unknown>>();

/** The compiled multi-row INSERT of `n` observations (values named `c<row>_<column>`), if n is small. */
function insertObservationsStatement(n: number): Prepared<ShampooDB, Record<string, unknown>, unknown> | undefined {
  if (n > PREPARED_OBSERVATION_ROWS) return undefined;
  let p = observationInserts.get(n);
  if (!p) {
    p = prepared<ShampooDB, Record<string, unknown>, unknown>((db, m) =>
      db
        .insertInto("shampoo_observations")
        .values(
          Array.from(
            { length: n },
            (_, r) =>
              Object.fromEntries(OBSERVATION_COLUMNS.map((c) => [c, m[`c${r}_${c}`]])) as unknown as Observation,
          ),
        ),
    );
    observationInserts.set(n, p);
  }
  return p;
}

function observationValues(rows: Observation[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  rows.forEach((row, r) => {
    for (const c of OBSERVATION_COLUMNS) values[`c${r}_${c}`] = row[c];
  });
  return values;
}

/** Inserts observation rows with multi-row INSERTs (compiled once per small row count). */
export async function insertObservations(trx: Trx, rows: Observation[]): Promise<void> {
  // 19 columns a row: 500 rows stay below SQLite's bound-parameter limit (32,766).
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const insert = insertObservationsStatement(chunk.length);
    if (insert) await insert.run(trx, observationValues(chunk));
    else await trx.insertInto("shampoo_observations").values(chunk).execute();
  }
}

/** Which of these alias keys the entity already holds. */
export async function heldAliasNorms(trx: Trx, entityId: string, norms: string[]): Promise<Set<string>> {
  const held = await trx
    .selectFrom("shampoo_aliases")
    .select("alias_norm")
    .where("entity_id", "=", entityId)
    .where("alias_norm", "in", norms)
    .execute();
  return new Set(held.map((h) => h.alias_norm));
}

export async function insertAlias(trx: Trx, row: AliasRow): Promise<void> {
  await trx.insertInto("shampoo_aliases").values(row).execute();
}

/** The relation row of a triple in a profile, whatever its lifecycle. */
export async function findTriple(
  trx: Trx,
  profile: string,
  from: string,
  to: string,
  type: string,
): Promise<RelationRow | undefined> {
  return trx
    .selectFrom("shampoo_relations")
    .selectAll()
    .where("profile", "=", profile)
    .where("from_id", "=", from)
    .where("to_id", "=", to)
    .where("relation_type", "=", type)
    .executeTakeFirst();
}

/** Inserts a relation unless its triple exists (a concurrent creator); the row, or undefined. */
export async function insertRelation(trx: Trx, row: RelationRow): Promise<RelationRow | undefined> {
  return trx
    .insertInto("shampoo_relations")
    .values(row)
    .onConflict((oc) => oc.columns(["profile", "from_id", "to_id", "relation_type"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Voids a live relation (a row voided meanwhile stays as it is). */
export async function voidRelation(
  trx: Trx,
  id: string,
  set: Partial<RelationRow> & { last_event_id: string },
): Promise<void> {
  await trx.updateTable("shampoo_relations").set(set).where("id", "=", id).where("lifecycle", "=", "live").execute();
}
