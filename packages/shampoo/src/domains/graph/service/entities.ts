import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { canWrite, projectValue, scopeDenied } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { invalid } from "../../../platform/errors.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../../platform/lifecycle.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { CreateEntitiesInput, DeleteEntitiesInput } from "../inputs.gen.ts";
import {
  aliasView,
  checkName,
  checkVisibility,
  cleanAliases,
  cleanContents,
  entityView,
  normalizeName,
  type Visibility,
} from "../model.ts";
import { type AliasRow, type Entity, phraseRows } from "../schema.ts";
import { afterGraphWrite } from "../store/merge.ts";
import { entityByNorm, graphScopeOf, insertPhrases, liveByNorms, seesEntity } from "../store/rows.ts";
import { heldAliasNorms, insertAlias, insertEntity } from "../store/writes.ts";
import { changeEntity, record } from "./events.ts";
import { addObservationsTo } from "./observations.ts";

/**
 * create_entities and delete_entities. Every write is one platform write() with one history
 * event per changed row: the whole call commits or nothing does. Nothing is deleted
 * (platform/lifecycle.ts): delete_entities voids rows (lifecycle void, voided_at / voided_by
 * stamps), and a re-create revives the same row (same id, creation stamps untouched,
 * revived_at / revived_by stamped, the void stamps kept as last-void evidence). Entity voids
 * never cascade: observations, relations and aliases stay as they are and simply resolve as
 * absent while their entity is void.
 */

export const ENTITY_NAME_EXISTS = "entity name already exists";

/** One create_entities entry as given. */
export type EntityEntry = CreateEntitiesInput["entities"][number];

export interface EntityInput {
  name: string;
  norm: string;
  entityType: string;
  /** null: not given (or ""), i.e. untagged for a new entity. */
  project: string | null;
  visibility: Visibility | undefined;
  aliases: { alias: string; norm: string }[];
  observations: string[];
}

/** Shape checks of one create_entities entry: run for the whole batch before anything is read. */
export function entityInput(e: EntityEntry): EntityInput {
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

export interface CreateEntitiesResult {
  created: number;
  total_requested: number;
  entity_ids: string[];
  observation_ids: string[];
  [k: string]: unknown;
}

export async function createEntities(ctx: ShampooCtx, a: CreateEntitiesInput): Promise<CreateEntitiesResult> {
  const entries = a.entities.map(entityInput);
  return write(ctx, async (w) => {
    const result = await createEntitiesIn(w, entries);
    afterGraphWrite(w);
    return result;
  });
}

/**
 * The batch inside an open write (create_entities, and the JSONL import's batches). Grants are
 * checked per entry; the first denied entry throws, which rolls the whole batch back.
 */
export async function createEntitiesIn(w: WriteScope, entries: EntityInput[]): Promise<CreateEntitiesResult> {
  const { caller } = w.ctx;
  const at = iso(w.now);
  const lock = w.engine.caps.rowLock;
  const s = graphScopeOf(caller);
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
    let existing = writable ? undefined : await entityByNorm(w.trx, caller.profile, e.norm, lock);
    let fresh = false;
    if (!existing) {
      if (!writable) throw scopeDenied();
      // Insert first: a concurrent creator of the same name makes this a no-op (PostgreSQL
      // waits for it to commit), and the name then resolves to that identity below.
      // The row carries the id of its create event from the start (no second write for it).
      const createEvent = randomUUID();
      const inserted = await insertEntity(w.trx, {
        id: randomUUID(),
        profile: caller.profile,
        project: e.project,
        name: e.name,
        name_norm: e.norm,
        entity_type: e.entityType,
        alias_text: e.aliases.map((x) => x.alias).join("\n"),
        visibility: e.visibility ?? "shared",
        created_at: at,
        created_by: caller.principal,
        updated_at: at,
        last_event_id: createEvent,
        ...NEW_LIFECYCLE,
      });
      if (inserted) {
        await insertPhrases(w.trx, phraseRows(inserted.profile, inserted.id, [inserted.name]));
        await record(w, {
          kind: "entity",
          id: inserted.id,
          action: "create",
          old: null,
          next: inserted,
          view: entityView,
          payload: { name: e.name, entityType: e.entityType, project: e.project, visibility: inserted.visibility },
          eventId: createEvent,
        });
        existing = inserted;
        fresh = true;
        created++;
      } else {
        existing = await entityByNorm(w.trx, caller.profile, e.norm, lock);
        if (!existing) throw new Error("entity name conflict without a row");
      }
    }
    if (!fresh && !seesEntity(s, existing)) {
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

/** Adds aliases not yet held; returns the entity's new alias_text when any was added. */
async function addAliasesTo(
  w: WriteScope,
  entity: Entity,
  aliases: { alias: string; norm: string }[],
): Promise<string | null> {
  if (aliases.length === 0) return null;
  const have = await heldAliasNorms(
    w.trx,
    entity.id,
    aliases.map((a) => a.norm),
  );
  const added: string[] = [];
  for (const a of aliases) {
    if (have.has(a.norm)) continue;
    have.add(a.norm);
    const row: AliasRow = {
      id: randomUUID(),
      entity_id: entity.id,
      profile: entity.profile,
      alias: a.alias,
      alias_norm: a.norm,
      created_at: iso(w.now),
      created_by: w.ctx.caller.principal,
      ...NEW_LIFECYCLE,
    };
    await record(w, { kind: "alias", id: row.id, action: "create", old: null, next: row, view: aliasView });
    await insertAlias(w.trx, row);
    added.push(a.alias);
  }
  if (added.length === 0) return null;
  await insertPhrases(w.trx, phraseRows(entity.profile, entity.id, added));
  return [...(entity.alias_text === "" ? [] : entity.alias_text.split("\n")), ...added].join("\n");
}

export async function deleteEntities(ctx: ShampooCtx, a: DeleteEntitiesInput): Promise<{ deleted: number }> {
  const names = a.entityNames.map(normalizeName);
  return write(ctx, async (w) => {
    const live = await liveByNorms(w.trx, graphScopeOf(ctx.caller), names, w.engine.caps.rowLock);
    let deleted = 0;
    for (const entity of live.values()) {
      await changeEntity(w, entity, lifecycleSet("void", stampOf(w)), "void");
      deleted++;
    }
    afterGraphWrite(w);
    return { deleted };
  });
}
