import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../../platform/lifecycle.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { AddObservationsInput, DeleteObservationsInput } from "../inputs.gen.ts";
import { cleanContents, contentHash, normalizeName, observationView } from "../model.ts";
import type { Entity, Observation } from "../schema.ts";
import { afterGraphWrite } from "../store/merge.ts";
import { graphScopeOf, liveByNorms } from "../store/rows.ts";
import { insertObservations, maxObservationOrd, observationByHash } from "../store/writes.ts";
import { changeEntity, changeObservationRow, record } from "./events.ts";

/**
 * add_observations and delete_observations, and the observation half of create_entities.
 * An observation is identified by its entity and its exact text (content hash): a duplicate is
 * skipped, a void text given again is revived in place, and a deletion voids it.
 */

export async function addObservations(
  ctx: ShampooCtx,
  a: AddObservationsInput,
): Promise<{ added: number; observation_ids: string[] }> {
  const items = a.observations.map((o) => ({ entityName: String(o.entityName), contents: cleanContents(o.contents) }));
  return write(ctx, async (w) => {
    const live = await liveByNorms(
      w.trx,
      graphScopeOf(ctx.caller),
      items.map((i) => normalizeName(i.entityName)),
      w.engine.caps.rowLock,
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
    for (const id of touched) await changeEntity(w, current.get(id) as Entity, {}, "touch");
    afterGraphWrite(w);
    return { added: ids.length, observation_ids: ids };
  });
}

/**
 * Adds observation texts to an entity (duplicates by content identity skipped, void text
 * revived in place). Returns the ids added or revived, in order. `fresh`: the entity was
 * inserted by this write, so it has no observation yet (nothing to look up or revive).
 */
export async function addObservationsTo(
  w: WriteScope,
  entity: Entity,
  contents: string[],
  fresh = false,
): Promise<string[]> {
  if (contents.length === 0) return [];
  if (fresh) return addToFresh(w, entity, contents);
  const ids: string[] = [];
  let ord = await maxObservationOrd(w.trx, entity.id);
  for (const content of contents) {
    const hash = contentHash(content);
    const found = await observationByHash(w.trx, entity.id, hash);
    if (found?.lifecycle === "live") continue;
    if (found) {
      await changeObservationRow(w, { action: "revive", old: found, set: lifecycleSet("revive", stampOf(w)) });
      ids.push(found.id);
      continue;
    }
    const row = await newObservation(w, entity, content, hash, ++ord);
    await insertObservations(w.trx, [row]);
    ids.push(row.id);
  }
  return ids;
}

/** A new live observation row with its create event recorded (the caller inserts the row). */
async function newObservation(
  w: WriteScope,
  entity: Entity,
  content: string,
  hash: string,
  ord: number,
): Promise<Observation> {
  const row: Observation = {
    id: randomUUID(),
    entity_id: entity.id,
    profile: entity.profile,
    content,
    content_hash: hash,
    ord,
    created_at: iso(w.now),
    created_by: w.ctx.caller.principal,
    last_event_id: "",
    ...NEW_LIFECYCLE,
  };
  row.last_event_id = await record(w, {
    kind: "observation",
    id: row.id,
    action: "create",
    old: null,
    next: row,
    view: observationView,
  });
  return row;
}

/** addObservationsTo for an entity inserted by this write: multi-row INSERTs. */
async function addToFresh(w: WriteScope, entity: Entity, contents: string[]): Promise<string[]> {
  const seen = new Set<string>();
  const rows: Observation[] = [];
  for (const content of contents) {
    const hash = contentHash(content);
    if (seen.has(hash)) continue;
    seen.add(hash);
    rows.push(await newObservation(w, entity, content, hash, rows.length + 1));
  }
  await insertObservations(w.trx, rows);
  return rows.map((r) => r.id);
}

export async function deleteObservations(ctx: ShampooCtx, a: DeleteObservationsInput): Promise<{ deleted: number }> {
  const items = a.deletions.map((d) => ({
    entityName: String(d.entityName),
    texts: Array.isArray(d.observations) ? d.observations.filter((o): o is string => typeof o === "string") : [],
  }));
  return write(ctx, async (w) => {
    const live = await liveByNorms(
      w.trx,
      graphScopeOf(ctx.caller),
      items.map((i) => normalizeName(i.entityName)),
      w.engine.caps.rowLock,
    );
    let deleted = 0;
    for (const item of items) {
      const entity = live.get(normalizeName(item.entityName));
      if (!entity) continue;
      for (const text of item.texts) {
        const found = await observationByHash(w.trx, entity.id, contentHash(text), true);
        if (!found) continue;
        await changeObservationRow(w, { action: "void", old: found, set: lifecycleSet("void", stampOf(w)) });
        deleted++;
      }
    }
    afterGraphWrite(w);
    return { deleted };
  });
}
