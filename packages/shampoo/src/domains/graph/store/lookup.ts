import type { DialectName } from "kernel";
import type { FtsMode, LookupCandidate, LookupSource } from "../../../store/lookup-source.ts";
import { fold, parseQuery } from "../model.ts";
import type { EntityRow } from "../schema.ts";
import { type Db, type GraphScope, liveSql, observationsOf } from "./rows.ts";
import { entityHits, observationHits } from "./search.ts";

/**
 * The knowledge graph as a find_by_title source (store/lookup-source.ts LookupSource): live
 * entities the caller may see, with the surfaces name, observations (live ones, in order, one
 * per line), entity_type and project. The graph module contributes it to `lookupSources`
 * (graph/index.ts), and find_by_title searches it next to the task source.
 */

const PROBE_FACTOR = 2;

function candidate(e: EntityRow, observations: string[]): LookupCandidate {
  return {
    id: e.id,
    live: true,
    updatedAt: e.updated_at,
    texts: {
      name: e.name,
      observations: observations.length > 0 ? observations.join("\n") : null,
      entity_type: e.entity_type,
      project: e.project,
    },
    fields: {
      kind: "entity",
      id: e.id,
      title: e.name,
      name: e.name,
      entity_type: e.entity_type,
      project: e.project,
      created_at: e.created_at,
      updated_at: e.updated_at,
    },
  };
}

async function load(db: Db, s: GraphScope, ids: string[]): Promise<LookupCandidate[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("shampoo_entities as e")
    .selectAll("e")
    .where("e.id", "in", ids)
    .where(liveSql("e", s))
    .execute();
  const obs = await observationsOf(
    db,
    rows.map((r) => r.id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids
    .map((id) => byId.get(id))
    .filter((e): e is EntityRow => e !== undefined)
    .map((e) => candidate(e, obs.get(e.id) ?? []));
}

export function entityLookupSource(db: Db, dialect: DialectName, s: GraphScope): LookupSource {
  return {
    name: "entities",
    surfaces: ["name", "observations", "entity_type", "project"],
    async prefilter(terms: string[], raw: string, pool: number, mode: FtsMode) {
      const q = parseQuery(raw);
      const words = [...new Set(terms.map(fold))];
      if (words.length === 0) return [];
      const last = words[words.length - 1] ?? null;
      const probe = { terms: words, forms: q.forms, prefix: last, any: mode === "any" };
      const ents = await entityHits(db, dialect, s, [{ probe, limit: pool }]);
      const obs = await observationHits(db, dialect, s, [{ probe, limit: pool * PROBE_FACTOR }]);
      const ids: string[] = [];
      for (const id of [...ents.map((e) => e.id), ...obs.map((o) => o.entity_id)]) {
        if (!ids.includes(id) && ids.length < pool) ids.push(id);
      }
      return load(db, s, ids);
    },
    async scan(cap: number) {
      const rows = await db
        .selectFrom("shampoo_entities as e")
        .select("e.id")
        .where("e.profile", "=", s.profile)
        .where(liveSql("e", s))
        .orderBy("e.updated_at", "desc")
        .orderBy("e.id")
        .limit(cap)
        .execute();
      return load(
        db,
        s,
        rows.map((r) => r.id),
      );
    },
  };
}
