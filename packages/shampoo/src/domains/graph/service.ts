import { randomUUID } from "node:crypto";
import { iso, type Prepared, prepared } from "kernel";
import { canWrite, projectValue, scopeDenied } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import type { Engine } from "../../platform/engine.ts";
import { invalid } from "../../platform/errors.ts";
import { LIFECYCLE_AUDIT_COLUMNS, lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../platform/lifecycle.ts";
import { read, type WriteScope, write } from "../../platform/write.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { noteAccess } from "./access.ts";
import { needsMerge, scheduleMerge } from "./fts.ts";
import {
  checkName,
  checkVisibility,
  cleanAliases,
  cleanContents,
  cleanName,
  contentHash,
  normalizeName,
  type Visibility,
} from "./model.ts";
import { type Entity, type GraphLifecycle, type Observation, phraseRows, type RelationRow } from "./schema.ts";
import {
  type Db,
  edgesFrom,
  entityByNorm,
  type GraphScope,
  graphScopeOf,
  insertPhrases,
  liveByNorms,
  liveSql,
  observationsOf,
  seesEntity,
} from "./store.ts";

/**
 * Knowledge-graph rules. Every write is one platform write() (platform/write.ts) with one history
 * event per changed row: the whole call commits or nothing does.
 * Nothing is deleted (platform/lifecycle.ts): delete_* void rows (lifecycle void, voided_at /
 * voided_by stamps), and a re-create revives the same row (same id, creation stamps untouched,
 * revived_at / revived_by stamped, the void stamps kept as last-void evidence). Entity voids
 * never cascade: observations, relations and aliases stay as they are and simply resolve as
 * absent while their entity is void.
 *
 * Every write is O(1) in the size of the graph: rows are found by unique keys, and the search
 * indexes change per row (FTS triggers on SQLite, generated columns on PostgreSQL).
 */

/** One write call's scope (platform write()) with the graph's own: its stamp and the caller's graph scope. */
export interface W extends WriteScope {
  /** iso(now), the stamp every row of the call carries. */
  at: string;
  /** Rows read to be changed are locked until commit (engines with row locks). */
  lock: boolean;
  s: GraphScope;
}

export const ENTITY_NAME_EXISTS = "entity name already exists";

export async function inWrite<T>(ctx: ShampooCtx, fn: (w: W) => Promise<T>): Promise<T> {
  const s = graphScopeOf(ctx.caller);
  return write(ctx, async (scope) => {
    const w: W = Object.assign(scope, { at: iso(scope.now), lock: scope.engine.caps.rowLock, s });
    const result = await fn(w);
    // SQLite: index segments piled up by one-row writes are merged after the commit (fts.ts).
    if (needsMerge(w.trx)) w.afterCommit(() => void scheduleMerge(ctx.database));
    return result;
  });
}

/** Events waiting beyond this are written at once (a bulk import must not hold them all). */
const EVENT_BATCH = 200;

/**
 * A read with its best-effort access note (access.ts): `fn` reads and returns the result with the
 * ids of the entities it returned; the note is queued once the read is done and written with
 * others shortly after, never inside the read.
 */
export async function readNoted<T>(
  ctx: ShampooCtx,
  tool: string,
  fn: (db: Db, engine: Engine) => Promise<{ ids: string[]; result: T }>,
): Promise<T> {
  const out = await read(ctx, fn);
  noteAccess(ctx, tool, out.ids);
  return out.result;
}

/** The lifecycle columns of a graph row, as its history views show them. */
function lifeView(r: GraphLifecycle): Record<string, unknown> {
  return {
    lifecycle: r.lifecycle,
    voided_at: r.voided_at,
    voided_by: r.voided_by,
    void_reason: r.void_reason,
    revived_at: r.revived_at,
    revived_by: r.revived_by,
  };
}

/** The audited public shape of an entity row (history old/new). */
export function entityView(e: Entity): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    entityType: e.entity_type,
    project: e.project,
    visibility: e.visibility,
    aliases: e.alias_text === "" ? [] : e.alias_text.split("\n"),
    created_at: e.created_at,
    created_by: e.created_by,
    updated_at: e.updated_at,
    ...lifeView(e),
  };
}

function observationView(o: Observation): Record<string, unknown> {
  return { id: o.id, entity_id: o.entity_id, content: o.content, ord: o.ord, ...lifeView(o) };
}

function relationView(r: RelationRow): Record<string, unknown> {
  return { id: r.id, from_id: r.from_id, to_id: r.to_id, relationType: r.relation_type, ...lifeView(r) };
}

/**
 * Records one history event of the call and returns its id. The events of a call are queued and
 * written together before its transaction commits (history.ts recordEvents: one clock bump,
 * multi-row INSERTs), with the clock values and content one recordEvent each would have given
 * them; rows can carry the id at once. `eventId` is taken when given (a row inserted with it).
 */
async function event(
  w: W,
  kind: string,
  id: string,
  action: string,
  old: unknown,
  now: unknown,
  parent: string | null,
  payload?: unknown,
  eventId: string = randomUUID(),
): Promise<string> {
  await w.event({
    eventId,
    entityKind: kind,
    entityId: id,
    action,
    old,
    new: now,
    parentEventId: parent,
    ...(payload === undefined ? {} : { payload }),
  });
  if (w.pendingEvents() >= EVENT_BATCH) await w.flushEvents();
  return eventId;
}

/**
 * Applies `set` to an entity row with one event; returns the new row. Only the changed columns
 * are written, so a touch never re-indexes the name/alias/type search documents.
 */
async function changeEntity(w: W, old: Entity, set: Partial<Entity>, action: string): Promise<Entity> {
  const change: Partial<Entity> = { ...set, updated_at: w.at };
  const next: Entity = { ...old, ...change };
  const eventId = await event(w, "entity", old.id, action, entityView(old), entityView(next), old.last_event_id);
  next.last_event_id = eventId;
  await w.trx
    .updateTable("shampoo_entities")
    .set({ ...change, last_event_id: eventId })
    .where("id", "=", old.id)
    .execute();
  return next;
}

/**
 * Adds observation texts to an entity (duplicates by content identity skipped, void text
 * revived in place). Returns the ids added or revived, in order. `fresh`: the entity was
 * inserted by this call, so it has no observation yet (nothing to look up or revive).
 */
async function addObservationsTo(w: W, entity: Entity, contents: string[], fresh = false): Promise<string[]> {
  if (contents.length === 0) return [];
  if (fresh) return addToFresh(w, entity, contents);
  const ids: string[] = [];
  const max = await w.trx
    .selectFrom("shampoo_observations")
    .select((eb) => eb.fn.max("ord").as("m"))
    .where("entity_id", "=", entity.id)
    .executeTakeFirst();
  let ord = Number(max?.m ?? 0);
  for (const content of contents) {
    const hash = contentHash(content);
    const found = await w.trx
      .selectFrom("shampoo_observations")
      .selectAll()
      .where("entity_id", "=", entity.id)
      .where("content_hash", "=", hash)
      .executeTakeFirst();
    if (found?.lifecycle === "live") continue;
    if (found) {
      const revive = lifecycleSet("revive", stampOf(w));
      const next = { ...found, ...revive };
      const eventId = await event(
        w,
        "observation",
        found.id,
        "revive",
        observationView(found),
        observationView(next),
        found.last_event_id,
      );
      await w.trx
        .updateTable("shampoo_observations")
        .set({ ...revive, last_event_id: eventId })
        .where("id", "=", found.id)
        .execute();
      ids.push(found.id);
      continue;
    }
    const row = await newObservation(w, entity, content, hash, ++ord);
    await w.trx.insertInto("shampoo_observations").values(row).execute();
    ids.push(row.id);
  }
  return ids;
}

/** A new live observation row with its create event recorded (the caller inserts the row). */
async function newObservation(w: W, entity: Entity, content: string, hash: string, ord: number): Promise<Observation> {
  const row: Observation = {
    id: randomUUID(),
    entity_id: entity.id,
    profile: entity.profile,
    content,
    content_hash: hash,
    ord,
    created_at: w.at,
    created_by: w.ctx.caller.principal,
    last_event_id: "",
    ...NEW_LIFECYCLE,
  };
  row.last_event_id = await event(w, "observation", row.id, "create", null, observationView(row), null);
  return row;
}

/** addObservationsTo for an entity inserted by this call: one multi-row INSERT. */
async function addToFresh(w: W, entity: Entity, contents: string[]): Promise<string[]> {
  const seen = new Set<string>();
  const rows: Observation[] = [];
  for (const content of contents) {
    const hash = contentHash(content);
    if (seen.has(hash)) continue;
    seen.add(hash);
    rows.push(await newObservation(w, entity, content, hash, rows.length + 1));
  }
  // 19 columns a row: 500 rows stay below SQLite's bound-parameter limit (32,766).
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const insert = insertObservations(chunk.length);
    if (insert) await insert.run(w.trx, observationValues(chunk));
    else await w.trx.insertInto("shampoo_observations").values(chunk).execute();
  }
  return rows.map((r) => r.id);
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
function insertObservations(n: number): Prepared<ShampooDB, Record<string, unknown>, unknown> | undefined {
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

/** Adds aliases not yet held; returns the entity's new alias_text when any was added. */
async function addAliasesTo(w: W, entity: Entity, aliases: { alias: string; norm: string }[]): Promise<string | null> {
  if (aliases.length === 0) return null;
  const held = await w.trx
    .selectFrom("shampoo_aliases")
    .select("alias_norm")
    .where("entity_id", "=", entity.id)
    .where(
      "alias_norm",
      "in",
      aliases.map((a) => a.norm),
    )
    .execute();
  const have = new Set(held.map((h) => h.alias_norm));
  const added: string[] = [];
  for (const a of aliases) {
    if (have.has(a.norm)) continue;
    have.add(a.norm);
    const row = {
      id: randomUUID(),
      entity_id: entity.id,
      profile: entity.profile,
      alias: a.alias,
      alias_norm: a.norm,
      created_at: w.at,
      created_by: w.ctx.caller.principal,
      ...NEW_LIFECYCLE,
    };
    await event(w, "alias", row.id, "create", null, { id: row.id, entity_id: entity.id, alias: a.alias }, null);
    await w.trx.insertInto("shampoo_aliases").values(row).execute();
    added.push(a.alias);
  }
  if (added.length === 0) return null;
  await insertPhrases(w.trx, phraseRows(entity.profile, entity.id, added));
  return [...(entity.alias_text === "" ? [] : entity.alias_text.split("\n")), ...added].join("\n");
}

// ---------------------------------------------------------------------------------------------
// create_entities

export interface EntityInput {
  name: string;
  norm: string;
  entityType: string;
  /** undefined: not given (or ""), i.e. untagged for a new entity. */
  project: string | null;
  visibility: Visibility | undefined;
  aliases: { alias: string; norm: string }[];
  observations: string[];
}

/** Shape checks of one create_entities entry: run for the whole batch before anything is read. */
export function entityInput(e: Record<string, unknown>): EntityInput {
  const name = checkName(String(e.name ?? ""));
  return {
    name,
    norm: normalizeName(name),
    entityType: checkName(String(e.entityType ?? ""), "entityType"),
    project: projectValue(e.project),
    visibility: checkVisibility(e.visibility),
    aliases: cleanAliases(e.aliases, name),
    observations: cleanContents(e.observations),
  };
}

/** A new entity row, or nothing when the name is taken (compiled once per database). */
const insertEntity = prepared<ShampooDB, Entity, Entity>((db, m) =>
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

export interface CreateEntitiesResult {
  created: number;
  total_requested: number;
  entity_ids: string[];
  observation_ids: string[];
  [k: string]: unknown;
}

/**
 * The batch inside an open write transaction. Grants are checked per entry; the first denied
 * entry throws, which rolls the whole batch back.
 */
export async function createEntitiesIn(w: W, entries: EntityInput[]): Promise<CreateEntitiesResult> {
  const { caller } = w.ctx;
  // Named projects are checked before anything is read: a denied project never learns whether
  // the name exists.
  for (const e of entries) if (e.project !== null && !canWrite(caller, e.project)) throw scopeDenied();
  let created = 0;
  const entityIds: string[] = [];
  const observationIds: string[] = [];
  for (const e of entries) {
    // With the write grant the insert comes first (a new name, the usual case, needs no lookup);
    // the holder of a taken name is read below. Without it, only the lookup (the same answers).
    const writable = canWrite(caller, e.project);
    let existing = writable ? undefined : await entityByNorm(w.trx, caller.profile, e.norm, w.lock);
    let fresh = false;
    if (!existing) {
      if (!writable) throw scopeDenied();
      // Insert first: a concurrent creator of the same name makes this a no-op (PostgreSQL
      // waits for it to commit), and the name then resolves to that identity below.
      // The row carries the id of its create event from the start (no second write for it).
      const createEvent = randomUUID();
      const inserted = await insertEntity.first(w.trx, {
        id: randomUUID(),
        profile: caller.profile,
        project: e.project,
        name: e.name,
        name_norm: e.norm,
        entity_type: e.entityType,
        alias_text: e.aliases.map((x) => x.alias).join("\n"),
        visibility: e.visibility ?? "shared",
        created_at: w.at,
        created_by: caller.principal,
        updated_at: w.at,
        last_event_id: createEvent,
        ...NEW_LIFECYCLE,
      });
      if (inserted) {
        await insertPhrases(w.trx, phraseRows(inserted.profile, inserted.id, [inserted.name]));
        await event(
          w,
          "entity",
          inserted.id,
          "create",
          null,
          entityView(inserted),
          null,
          { name: e.name, entityType: e.entityType, project: e.project, visibility: inserted.visibility },
          createEvent,
        );
        existing = inserted;
        fresh = true;
        created++;
      } else {
        existing = await entityByNorm(w.trx, caller.profile, e.norm, w.lock);
        if (!existing) throw new Error("entity name conflict without a row");
      }
    }
    if (!fresh && !seesEntity(w.s, existing)) {
      if (!canWrite(caller, e.project)) throw scopeDenied();
      throw invalid(ENTITY_NAME_EXISTS, "conflict");
    }
    let entity = existing;
    const set: Partial<Entity> = {};
    let action = "touch";
    if (!fresh) {
      if (entity.lifecycle === "void") {
        Object.assign(set, lifecycleSet("revive", stampOf(w)));
        action = "revive";
        created++;
      }
      if (entity.project === null && e.project !== null) {
        set.project = e.project; // backfill: an untagged entity moves into the named project
        if (action === "touch") action = "update";
      }
      if (e.visibility && e.visibility !== entity.visibility && entity.created_by === caller.principal) {
        set.visibility = e.visibility;
        if (action === "touch") action = "update";
      }
    }
    // A new row already carries its aliases in alias_text; the alias rows are written here.
    const aliasText = await addAliasesTo(w, fresh ? { ...entity, alias_text: "" } : entity, e.aliases);
    if (aliasText !== null && !fresh) {
      set.alias_text = aliasText;
      if (action === "touch") action = "update";
    }
    const obs = await addObservationsTo(w, entity, e.observations, fresh);
    observationIds.push(...obs);
    const changed = Object.keys(set).length > 0 || obs.length > 0;
    if (!fresh && changed) entity = await changeEntity(w, entity, set, action);
    entityIds.push(entity.id);
  }
  return { created, total_requested: entries.length, entity_ids: entityIds, observation_ids: observationIds };
}

export async function createEntities(ctx: ShampooCtx, a: Record<string, unknown>): Promise<CreateEntitiesResult> {
  const entries = (a.entities as Record<string, unknown>[]).map(entityInput);
  return inWrite(ctx, (w) => createEntitiesIn(w, entries));
}

// ---------------------------------------------------------------------------------------------
// add_observations

export async function addObservationsIn(
  w: W,
  items: { entityName: string; contents: string[] }[],
): Promise<{ added: number; observation_ids: string[] }> {
  const live = await liveByNorms(
    w.trx,
    w.s,
    items.map((i) => normalizeName(i.entityName)),
    w.lock,
  );
  const ids: string[] = [];
  const touched = new Set<string>();
  const current = new Map<string, Entity>();
  for (const item of items) {
    const found = live.get(normalizeName(item.entityName));
    if (!found) continue; // unknown, void or foreign: zero contribution, same answer
    const entity = current.get(found.id) ?? found;
    current.set(entity.id, entity);
    ids.push(...(await addObservationsTo(w, entity, item.contents)));
    touched.add(entity.id);
  }
  // One refresh of each named entity's timestamp (also when no text was given).
  for (const id of touched) {
    const entity = current.get(id) as Entity;
    await changeEntity(w, entity, {}, "touch");
  }
  return { added: ids.length, observation_ids: ids };
}

export async function addObservations(ctx: ShampooCtx, a: Record<string, unknown>) {
  const items = (a.observations as Record<string, unknown>[]).map((o) => ({
    entityName: String(o.entityName),
    contents: cleanContents(o.contents),
  }));
  return inWrite(ctx, (w) => addObservationsIn(w, items));
}

// ---------------------------------------------------------------------------------------------
// create_relations / delete_relations

export interface Triple {
  from: string;
  to: string;
  relationType: string;
}

export function tripleInput(r: Record<string, unknown>): Triple {
  const relationType = cleanName(String(r.relationType));
  if (!relationType) throw invalid("relationType must not be blank");
  return { from: String(r.from), to: String(r.to), relationType };
}

async function resolveEndpoints(w: W, triples: Triple[]): Promise<Map<string, Entity>> {
  return liveByNorms(
    w.trx,
    w.s,
    triples.flatMap((t) => [normalizeName(t.from), normalizeName(t.to)]),
  );
}

async function findTriple(w: W, from: string, to: string, type: string): Promise<RelationRow | undefined> {
  return w.trx
    .selectFrom("shampoo_relations")
    .selectAll()
    .where("profile", "=", w.ctx.caller.profile)
    .where("from_id", "=", from)
    .where("to_id", "=", to)
    .where("relation_type", "=", type)
    .executeTakeFirst();
}

export async function createRelationsIn(
  w: W,
  triples: Triple[],
): Promise<{ created: number; total_requested: number; relation_ids: string[] }> {
  const ends = await resolveEndpoints(w, triples);
  let created = 0;
  const ids: string[] = [];
  for (const t of triples) {
    const from = ends.get(normalizeName(t.from));
    const to = ends.get(normalizeName(t.to));
    if (!from || !to) continue; // a missing, void or foreign endpoint: silently skipped
    const found = await findTriple(w, from.id, to.id, t.relationType);
    if (found?.lifecycle === "live") {
      ids.push(found.id);
      continue;
    }
    if (found) {
      const revive = lifecycleSet("revive", stampOf(w));
      const next = { ...found, ...revive };
      const eventId = await event(
        w,
        "relation",
        found.id,
        "revive",
        relationView(found),
        relationView(next),
        found.last_event_id,
      );
      await w.trx
        .updateTable("shampoo_relations")
        .set({ ...revive, last_event_id: eventId })
        .where("id", "=", found.id)
        .execute();
      created++;
      ids.push(found.id);
      continue;
    }
    const createEvent = randomUUID();
    const inserted = await w.trx
      .insertInto("shampoo_relations")
      .values({
        id: randomUUID(),
        profile: w.ctx.caller.profile,
        from_id: from.id,
        to_id: to.id,
        relation_type: t.relationType,
        created_at: w.at,
        created_by: w.ctx.caller.principal,
        last_event_id: createEvent,
        ...NEW_LIFECYCLE,
      })
      .onConflict((oc) => oc.columns(["profile", "from_id", "to_id", "relation_type"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) {
      // A concurrent call created the same triple: it is live now, a duplicate.
      const again = await findTriple(w, from.id, to.id, t.relationType);
      if (again) ids.push(again.id);
      continue;
    }
    await event(
      w,
      "relation",
      inserted.id,
      "create",
      null,
      relationView(inserted),
      null,
      { from: from.name, to: to.name, relationType: t.relationType },
      createEvent,
    );
    const row = inserted;
    created++;
    ids.push(row.id);
  }
  return { created, total_requested: triples.length, relation_ids: ids };
}

export async function createRelations(ctx: ShampooCtx, a: Record<string, unknown>) {
  const triples = (a.relations as Record<string, unknown>[]).map(tripleInput);
  return inWrite(ctx, (w) => createRelationsIn(w, triples));
}

export async function deleteRelations(ctx: ShampooCtx, a: Record<string, unknown>) {
  const triples = (a.relations as Record<string, unknown>[]).map(tripleInput);
  return inWrite(ctx, async (w) => {
    const ends = await resolveEndpoints(w, triples);
    let deleted = 0;
    for (const t of triples) {
      const from = ends.get(normalizeName(t.from));
      const to = ends.get(normalizeName(t.to));
      if (!from || !to) continue;
      const found = await findTriple(w, from.id, to.id, t.relationType);
      if (found?.lifecycle !== "live") continue;
      const voided = lifecycleSet("void", stampOf(w));
      const next = { ...found, ...voided };
      const eventId = await event(
        w,
        "relation",
        found.id,
        "void",
        relationView(found),
        relationView(next),
        found.last_event_id,
      );
      await w.trx
        .updateTable("shampoo_relations")
        .set({ ...voided, last_event_id: eventId })
        .where("id", "=", found.id)
        .where("lifecycle", "=", "live")
        .execute();
      deleted++;
    }
    return { deleted };
  });
}

// ---------------------------------------------------------------------------------------------
// delete_entities / delete_observations

export async function deleteEntities(ctx: ShampooCtx, a: Record<string, unknown>) {
  const names = (a.entityNames as string[]).map(normalizeName);
  return inWrite(ctx, async (w) => {
    const live = await liveByNorms(w.trx, w.s, names, w.lock);
    let deleted = 0;
    for (const entity of live.values()) {
      await changeEntity(w, entity, lifecycleSet("void", stampOf(w)), "void");
      deleted++;
    }
    return { deleted };
  });
}

export async function deleteObservations(ctx: ShampooCtx, a: Record<string, unknown>) {
  const items = (a.deletions as Record<string, unknown>[]).map((d) => ({
    entityName: String(d.entityName),
    texts: Array.isArray(d.observations) ? d.observations.filter((o): o is string => typeof o === "string") : [],
  }));
  return inWrite(ctx, async (w) => {
    const live = await liveByNorms(
      w.trx,
      w.s,
      items.map((i) => normalizeName(i.entityName)),
      w.lock,
    );
    let deleted = 0;
    for (const item of items) {
      const entity = live.get(normalizeName(item.entityName));
      if (!entity) continue;
      for (const text of item.texts) {
        const found = await w.trx
          .selectFrom("shampoo_observations")
          .selectAll()
          .where("entity_id", "=", entity.id)
          .where("content_hash", "=", contentHash(text))
          .where("lifecycle", "=", "live")
          .executeTakeFirst();
        if (!found) continue;
        const voided = lifecycleSet("void", stampOf(w));
        const next = { ...found, ...voided };
        const eventId = await event(
          w,
          "observation",
          found.id,
          "void",
          observationView(found),
          observationView(next),
          found.last_event_id,
        );
        await w.trx
          .updateTable("shampoo_observations")
          .set({ ...voided, last_event_id: eventId })
          .where("id", "=", found.id)
          .execute();
        deleted++;
      }
    }
    return { deleted };
  });
}

// ---------------------------------------------------------------------------------------------
// open_nodes / read_graph

export async function openNodes(ctx: ShampooCtx, a: Record<string, unknown>) {
  const s = graphScopeOf(ctx.caller);
  const norms: string[] = [];
  for (const n of a.names as unknown[]) {
    if (typeof n !== "string") continue; // non-string entries are skipped
    const norm = normalizeName(n);
    if (norm && !norms.includes(norm)) norms.push(norm);
  }
  return readNoted(ctx, "open_nodes", async (db) => {
    const live = await liveByNorms(db, s, norms);
    const opened = norms.map((n) => live.get(n)).filter((e): e is Entity => e !== undefined);
    const ids = opened.map((e) => e.id);
    const obs = await observationsOf(db, ids);
    const relations = ids.length >= 2 ? await edgesFrom(db, s, ids, ids) : [];
    return {
      ids,
      result: {
        entities: opened.map((e) => ({
          name: e.name,
          entityType: e.entity_type,
          observations: obs.get(e.id) ?? [],
          ...(e.project === null ? {} : { project: e.project }),
        })),
        relations: relations.map((r) => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type })),
      },
    };
  });
}

export const READ_GRAPH_DEFAULT_LIMIT = 500;
export const READ_GRAPH_MAX_LIMIT = 1000;

export async function readGraph(ctx: ShampooCtx, a: Record<string, unknown>) {
  const s = graphScopeOf(ctx.caller);
  const limit = Math.min(READ_GRAPH_MAX_LIMIT, Math.max(1, Number(a.limit ?? READ_GRAPH_DEFAULT_LIMIT)));
  const offset = Math.max(0, Number(a.offset ?? 0));
  return readNoted(ctx, "read_graph", async (db) => {
    const count = await db
      .selectFrom("shampoo_entities as e")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("e.profile", "=", s.profile)
      .where(liveSql("e", s))
      .executeTakeFirst();
    const total = Number(count?.n ?? 0);
    const page =
      offset >= total
        ? []
        : await db
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
    const ids = page.map((e) => e.id);
    const obs = await observationsOf(db, ids);
    // Each relation is listed once, on the page of its `from` endpoint; its `to` endpoint may be
    // on any page but must be live and visible.
    const relations = await edgesFrom(db, s, ids);
    return {
      ids,
      result: {
        entities: page.map((e) => ({
          name: e.name,
          entityType: e.entity_type,
          project: e.project,
          observations: obs.get(e.id) ?? [],
        })),
        relations: relations.map((r) => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type })),
        total,
        has_more: offset + page.length < total,
      },
    };
  });
}
