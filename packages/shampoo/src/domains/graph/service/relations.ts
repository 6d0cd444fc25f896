import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { invalid } from "../../../platform/errors.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../../platform/lifecycle.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { CreateRelationsInput, DeleteRelationsInput } from "../inputs.gen.ts";
import { cleanName, normalizeName, relationView } from "../model.ts";
import type { Entity } from "../schema.ts";
import { afterGraphWrite } from "../store/merge.ts";
import { graphScopeOf, liveByNorms } from "../store/rows.ts";
import { findTriple, insertRelation, voidRelation } from "../store/writes.ts";
import { changeRelationRow, record } from "./events.ts";

/**
 * create_relations and delete_relations. A relation is its triple (from, to, relationType)
 * between live entities the caller sees; a missing, void or foreign endpoint skips the triple
 * silently. A void triple created again is revived (same id).
 */

export interface Triple {
  from: string;
  to: string;
  relationType: string;
}

/** One relation as the tools (and the JSONL import) give it. */
export type RelationEntry = CreateRelationsInput["relations"][number];

export function tripleInput(r: RelationEntry): Triple {
  const relationType = cleanName(String(r.relationType));
  if (!relationType) throw invalid("relationType must not be blank");
  return { from: String(r.from), to: String(r.to), relationType };
}

/** The live visible endpoints of a batch of triples, by identity key. */
function resolveEndpoints(w: WriteScope, triples: Triple[]): Promise<Map<string, Entity>> {
  return liveByNorms(
    w.trx,
    graphScopeOf(w.ctx.caller),
    triples.flatMap((t) => [normalizeName(t.from), normalizeName(t.to)]),
  );
}

export interface CreateRelationsResult {
  created: number;
  total_requested: number;
  /**
   * What was not created and why, by position in the request: an endpoint that names no entity
   * the caller can see (missing and foreign read the same), or a triple already live (its id is
   * in relation_ids). Absent when nothing was skipped.
   */
  skipped?: Array<{ index: number; reason: string }>;
  relation_ids: string[];
  [k: string]: unknown;
}

export async function createRelations(ctx: ShampooCtx, a: CreateRelationsInput): Promise<CreateRelationsResult> {
  const triples = a.relations.map(tripleInput);
  return write(ctx, async (w) => {
    const result = await createRelationsIn(w, triples);
    afterGraphWrite(w);
    return result;
  });
}

/** The batch inside an open write (create_relations, and the JSONL import's batches). */
export async function createRelationsIn(w: WriteScope, triples: Triple[]): Promise<CreateRelationsResult> {
  const profile = w.ctx.caller.profile;
  const ends = await resolveEndpoints(w, triples);
  let created = 0;
  const ids: string[] = [];
  const skipped: Array<{ index: number; reason: string }> = [];
  for (const [index, t] of triples.entries()) {
    const from = ends.get(normalizeName(t.from));
    const to = ends.get(normalizeName(t.to));
    if (!from || !to) {
      // a missing, void or foreign endpoint: one wording for all three (no existence oracle)
      const which = [!from ? "from" : null, !to ? "to" : null].filter(Boolean).join(" and ");
      skipped.push({ index, reason: `${which}: no entity of that name that you can see` });
      continue;
    }
    const found = await findTriple(w.trx, profile, from.id, to.id, t.relationType);
    if (found?.lifecycle === "live") {
      ids.push(found.id);
      skipped.push({ index, reason: "already exists: the live relation's id is in relation_ids" });
      continue;
    }
    if (found) {
      await changeRelationRow(w, { action: "revive", old: found, set: lifecycleSet("revive", stampOf(w)) });
      created++;
      ids.push(found.id);
      continue;
    }
    const createEvent = randomUUID();
    const inserted = await insertRelation(w.trx, {
      id: randomUUID(),
      profile,
      from_id: from.id,
      to_id: to.id,
      relation_type: t.relationType,
      created_at: iso(w.now),
      created_by: w.ctx.caller.principal,
      last_event_id: createEvent,
      ...NEW_LIFECYCLE,
    });
    if (!inserted) {
      // A concurrent call created the same triple: it is live now, a duplicate.
      const again = await findTriple(w.trx, profile, from.id, to.id, t.relationType);
      if (again) ids.push(again.id);
      skipped.push({ index, reason: "already exists: the live relation's id is in relation_ids" });
      continue;
    }
    await record(w, {
      kind: "relation",
      id: inserted.id,
      action: "create",
      old: null,
      next: inserted,
      view: relationView,
      payload: { from: from.name, to: to.name, relationType: t.relationType },
      eventId: createEvent,
    });
    created++;
    ids.push(inserted.id);
  }
  return { created, total_requested: triples.length, relation_ids: ids, ...(skipped.length > 0 ? { skipped } : {}) };
}

export async function deleteRelations(ctx: ShampooCtx, a: DeleteRelationsInput): Promise<{ deleted: number }> {
  const triples = a.relations.map(tripleInput);
  return write(ctx, async (w) => {
    const ends = await resolveEndpoints(w, triples);
    let deleted = 0;
    for (const t of triples) {
      const from = ends.get(normalizeName(t.from));
      const to = ends.get(normalizeName(t.to));
      if (!from || !to) continue;
      const found = await findTriple(w.trx, ctx.caller.profile, from.id, to.id, t.relationType);
      if (found?.lifecycle !== "live") continue;
      // The UPDATE keeps its own live condition (a row voided meanwhile keeps its stamps):
      // the event is recorded first, then the row written (recordChange, not changeRow).
      const voided = lifecycleSet("void", stampOf(w));
      const eventId = await record(w, {
        kind: "relation",
        id: found.id,
        action: "void",
        old: found,
        next: { ...found, ...voided },
        view: relationView,
      });
      await voidRelation(w.trx, found.id, { ...voided, last_event_id: eventId });
      deleted++;
    }
    afterGraphWrite(w);
    return { deleted };
  });
}
