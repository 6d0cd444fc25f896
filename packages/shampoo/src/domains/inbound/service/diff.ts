import type { Kysely, Transaction } from "kernel";
import type { Caller } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { normalizeName } from "../../graph/model.ts";
import { graphScopeOf, liveByNorms, observationsOf } from "../../graph/store/rows.ts";

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

export interface StagedEntity {
  name: string;
  entityType: string;
  observations?: string[];
}
export interface StagedRelation {
  from: string;
  to: string;
  relationType: string;
}

export type EntityDiff =
  | { diff: "new_entity" }
  | { diff: "merge"; new_observations: string[] }
  | { diff: "type_conflict"; live_type: string };

/**
 * Set differences against the live graph the caller sees: a staged entity is new, merges (only
 * the observations the live entity lacks are new), or conflicts on its type (skipped on approval:
 * a merge only adds, it never changes or removes what is there).
 */
export async function entityDiffs(db: Db, caller: Caller, items: StagedEntity[]): Promise<EntityDiff[]> {
  const live = await liveByNorms(
    db,
    graphScopeOf(caller),
    items.map((e) => normalizeName(e.name)),
  );
  const obs = await observationsOf(db, [...new Set([...live.values()].map((e) => e.id))]);
  return items.map((e) => {
    const found = live.get(normalizeName(e.name));
    if (!found) return { diff: "new_entity" };
    if (found.entity_type !== e.entityType) return { diff: "type_conflict", live_type: found.entity_type };
    const have = new Set(obs.get(found.id) ?? []);
    return { diff: "merge", new_observations: [...new Set((e.observations ?? []).filter((o) => !have.has(o)))] };
  });
}

/** Whether each relation's endpoints are live entities the caller sees. */
export async function endpointFlags(
  db: Db,
  caller: Caller,
  items: StagedRelation[],
): Promise<Array<{ from_present: boolean; to_present: boolean }>> {
  const live = await liveByNorms(
    db,
    graphScopeOf(caller),
    items.flatMap((r) => [normalizeName(r.from), normalizeName(r.to)]),
  );
  return items.map((r) => ({
    from_present: live.has(normalizeName(r.from)),
    to_present: live.has(normalizeName(r.to)),
  }));
}
