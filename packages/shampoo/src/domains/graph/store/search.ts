import { type DialectName, sql } from "kernel";
import { HEAD_CHARS } from "../rules/search.ts";
import { compiledRows, scopeMarks, scopeShape } from "./compiled.ts";
import {
  type Expansions,
  expansionFor,
  fts5Expr,
  type Limited,
  type PrefixCache,
  probeValues,
  type Tagged,
  tsqueryExpr,
} from "./probes.ts";
import { type Db, type GraphScope, liveSql, visibleSql } from "./rows.ts";

/**
 * The search queries of the knowledge graph, one adapter per engine (see schema.ts for the
 * indexes). Scope is part of every query's WHERE clause, so foreign rows never leave the
 * database. User text never reaches a query language as syntax: terms are word characters
 * only (model.ts parseQuery) and are quoted on top of that.
 *
 * Retrieval never ranks in the database (bm25 / ts_rank cost one row lookup per match, so a
 * common term would cost in proportion to its frequency): each probe streams at most `limit`
 * matches — newest first on SQLite (FTS5 walks its index in descending rowid order), in index
 * order on PostgreSQL — and rules/search.ts ranks that bounded pool. The match expressions
 * are built in probes.ts.
 */

export interface EntityHit {
  id: string;
  name: string;
  name_norm: string;
  entity_type: string;
  project: string | null;
  alias_text: string;
}

export interface ObservationHit extends Omit<EntityHit, "id"> {
  obs_id: string;
  entity_id: string;
  ord: number;
  head: string;
  len: number;
}

const ENTITY_COLS = sql.raw("e.id, e.name, e.name_norm, e.entity_type, e.project, e.alias_text");

type Fragment = ReturnType<typeof sql>;

/**
 * One entity probe's rows (shared by entityHits and poolHits): live visible entities whose
 * document matches `match`, at most `limit`, newest first on SQLite.
 */
function entityProbeSql(sqlite: boolean, cols: Fragment, match: unknown, limit: unknown, ms: GraphScope): Fragment {
  return sqlite
    ? sql`SELECT * FROM (SELECT ${cols}
          FROM shampoo_entities_fts JOIN shampoo_entities e ON e.rid = shampoo_entities_fts.rowid
          WHERE shampoo_entities_fts MATCH ${match} AND e.lifecycle = 'live' AND ${visibleSql("e", ms)}
          ORDER BY shampoo_entities_fts.rowid DESC LIMIT ${limit})`
    : sql`(SELECT ${cols} FROM shampoo_entities e
          WHERE e.search @@ to_tsquery('simple', ${match}) AND e.lifecycle = 'live' AND ${visibleSql("e", ms)}
          LIMIT ${limit})`;
}

/**
 * One observation probe's rows (shared by observationHits and poolHits): live observations of
 * live visible entities that match `match`, at most `limit`, newest first on SQLite.
 */
function observationProbeSql(
  sqlite: boolean,
  cols: Fragment,
  match: unknown,
  limit: unknown,
  ms: GraphScope,
): Fragment {
  return sqlite
    ? sql`SELECT * FROM (SELECT ${cols}
          FROM shampoo_observations_fts
          JOIN shampoo_observations o ON o.rid = shampoo_observations_fts.rowid
          JOIN shampoo_entities e ON e.id = o.entity_id
          WHERE shampoo_observations_fts MATCH ${match}
            AND o.lifecycle = 'live' AND e.lifecycle = 'live' AND ${visibleSql("e", ms)}
          ORDER BY shampoo_observations_fts.rowid DESC LIMIT ${limit})`
    : sql`(SELECT ${cols}
          FROM shampoo_observations o JOIN shampoo_entities e ON e.id = o.entity_id
          WHERE o.search @@ to_tsquery('simple', ${match}) AND o.profile = ${ms.profile}
            AND o.lifecycle = 'live' AND e.lifecycle = 'live' AND ${visibleSql("e", ms)}
          LIMIT ${limit})`;
}

/**
 * Live visible entities whose name, aliases or type match each probe, at most `limit` per probe
 * (newest first on SQLite). All probes run as one statement (UNION ALL of limited subqueries):
 * one round trip, and no probe can starve another. Matches are streamed in index order and never
 * ranked in the database: the cost is bounded by the limits, not by how common a term is.
 */
export async function entityHits(db: Db, dialect: DialectName, s: GraphScope, probes: Limited[], cache?: PrefixCache) {
  if (probes.length === 0) return [];
  const words = dialect === "sqlite" ? await expansionFor(db, "shampoo_entities_fts_vocab", probes, cache) : null;
  const scope = scopeShape(s);
  const values = { ...scope.values, ...probeValues(dialect, probes, words) };
  const rows = await compiledRows<Tagged<EntityHit>>(
    db,
    `entities:${dialect}:${probes.length}:${scope.key}`,
    (m) => {
      const ms = scopeMarks(s, m);
      const sqlite = dialect === "sqlite";
      const one = (_l: Limited, i: number) =>
        entityProbeSql(
          sqlite,
          sqlite ? sql`${ENTITY_COLS}, ${i} AS probe` : sql`${ENTITY_COLS}, ${i}::int AS probe`,
          m[`match${i}`],
          m[`limit${i}`],
          ms,
        );
      return sql`${sql.join(probes.map(one), sql` UNION ALL `)}`;
    },
    values,
  );
  return rows.map((x) => ({ ...x, probe: Number(x.probe) }));
}

/** Probe tags of observation rows in a pool statement: OBS_TAG + the probe's index. */
export const OBS_TAG = 1000;

/** A row of a pool statement: an entity row (obs_id null, probe < OBS_TAG) or an observation row. */
export type PoolRow = Tagged<
  EntityHit & { obs_id: string | null; entity_id: string; ord: number; head: string; len: number }
>;

/**
 * Entity probes and observation probes in ONE statement (UNION ALL of the limited subqueries of
 * entityHits and observationHits, the entity columns padded with NULLs): the same rows, in the
 * same order, as those two functions give, one statement instead of two. Entity probe i is tagged
 * `from + i`, observation probe i `OBS_TAG + from + i`.
 */
export async function poolHits(
  db: Db,
  dialect: DialectName,
  s: GraphScope,
  entityProbes: Limited[],
  obsProbes: Limited[],
  from: number,
  words: Expansions,
): Promise<{ entities: Tagged<EntityHit>[]; observations: Tagged<ObservationHit>[] }> {
  const entities: Tagged<EntityHit>[] = [];
  const observations: Tagged<ObservationHit>[] = [];
  if (entityProbes.length + obsProbes.length === 0) return { entities, observations };
  const scope = scopeShape(s);
  const values: Record<string, unknown> = { ...scope.values, head: HEAD_CHARS };
  const sqlite = dialect === "sqlite";
  entityProbes.forEach((l, i) => {
    values[`ematch${i}`] = sqlite ? fts5Expr(l.probe, words.entities) : tsqueryExpr(l.probe);
    values[`elimit${i}`] = l.limit;
  });
  obsProbes.forEach((l, i) => {
    values[`omatch${i}`] = sqlite ? fts5Expr(l.probe, words.observations) : tsqueryExpr(l.probe);
    values[`olimit${i}`] = l.limit;
  });
  const rows = await compiledRows<PoolRow>(
    db,
    `pool:${dialect}:${entityProbes.length}:${obsProbes.length}:${from}:${scope.key}`,
    (m) => {
      const ms = scopeMarks(s, m);
      const tag = (n: number) => sql.raw(sqlite ? String(n) : `${n}::int`);
      const noObs = sql.raw(
        sqlite
          ? "NULL AS obs_id, NULL AS entity_id, NULL AS ord, NULL AS head, NULL AS len"
          : "NULL::text AS obs_id, NULL::text AS entity_id, NULL::int AS ord, NULL::text AS head, NULL::int AS len",
      );
      const ent = (_l: Limited, i: number) =>
        entityProbeSql(
          sqlite,
          sql`${tag(from + i)} AS probe, ${noObs}, ${ENTITY_COLS}`,
          m[`ematch${i}`],
          m[`elimit${i}`],
          ms,
        );
      const obsCols = (i: number) => sql`${tag(OBS_TAG + from + i)} AS probe, o.id AS obs_id, o.entity_id, o.ord,
          substr(o.content, 1, ${m.head}) AS head, length(o.content) AS len, ${ENTITY_COLS}`;
      const obs = (_l: Limited, i: number) =>
        observationProbeSql(sqlite, obsCols(i), m[`omatch${i}`], m[`olimit${i}`], ms);
      return sql`${sql.join([...entityProbes.map(ent), ...obsProbes.map(obs)], sql` UNION ALL `)}`;
    },
    values,
  );
  for (const r of rows) {
    const probe = Number(r.probe);
    if (probe < OBS_TAG) {
      entities.push({
        id: r.id,
        name: r.name,
        name_norm: r.name_norm,
        entity_type: r.entity_type,
        project: r.project,
        alias_text: r.alias_text,
        probe,
      });
    } else {
      r.probe = probe - OBS_TAG;
      r.len = Number(r.len);
      observations.push(r as Tagged<ObservationHit>);
    }
  }
  return { entities, observations };
}

/** Live observations of live visible entities that match each probe; as entityHits. */
export async function observationHits(
  db: Db,
  dialect: DialectName,
  s: GraphScope,
  probes: Limited[],
  cache?: PrefixCache,
) {
  if (probes.length === 0) return [];
  const words = dialect === "sqlite" ? await expansionFor(db, "shampoo_observations_fts_vocab", probes, cache) : null;
  const scope = scopeShape(s);
  const values = { ...scope.values, head: HEAD_CHARS, ...probeValues(dialect, probes, words) };
  const rows = await compiledRows<Tagged<ObservationHit>>(
    db,
    `observations:${dialect}:${probes.length}:${scope.key}`,
    (m) => {
      const ms = scopeMarks(s, m);
      const cols = (i: number) => sql`o.id AS obs_id, o.entity_id, o.ord, substr(o.content, 1, ${m.head}) AS head,
    length(o.content) AS len, ${ENTITY_COLS}, ${dialect === "sqlite" ? sql`${i}` : sql`${i}::int`} AS probe`;
      const one = (_l: Limited, i: number) =>
        observationProbeSql(dialect === "sqlite", cols(i), m[`match${i}`], m[`limit${i}`], ms);
      return sql`${sql.join(probes.map(one), sql` UNION ALL `)}`;
    },
    values,
  );
  return rows.map((x) => ({ ...x, len: Number(x.len), probe: Number(x.probe) }));
}

export interface HeadRow {
  entity_id: string;
  obs_id: string;
  ord: number;
  head: string;
  len: number;
}

/**
 * The first `n` live observations (heads) of each entity: per entity, an index-only probe of
 * (entity_id, lifecycle, ord) picks the rows, so only those are read, however many an entity has.
 */
export async function firstObservations(
  db: Db,
  dialect: DialectName,
  entityIds: string[],
  n: number,
): Promise<HeadRow[]> {
  if (entityIds.length === 0) return [];
  const rows = await compiledRows<HeadRow>(
    db,
    `heads:${dialect}`,
    (m) => {
      const cols = sql`o.entity_id, o.id AS obs_id, o.ord, substr(o.content, 1, ${m.head}) AS head, length(o.content) AS len`;
      return dialect === "sqlite"
        ? sql`SELECT ${cols} FROM json_each(${m.ids}) j, shampoo_observations o
          WHERE o.rid IN (SELECT o2.rid FROM shampoo_observations o2
            WHERE o2.entity_id = j.value AND o2.lifecycle = 'live' ORDER BY o2.ord LIMIT ${m.n})
          ORDER BY o.entity_id, o.ord`
        : sql`SELECT ${cols} FROM unnest(${m.ids}::text[]) AS j(id)
          CROSS JOIN LATERAL (SELECT * FROM shampoo_observations o2
            WHERE o2.entity_id = j.id AND o2.lifecycle = 'live' ORDER BY o2.ord LIMIT ${m.n}) o
          ORDER BY o.entity_id, o.ord`;
    },
    { head: HEAD_CHARS, ids: dialect === "sqlite" ? JSON.stringify(entityIds) : entityIds, n },
  );
  return rows.map((x) => ({ ...x, len: Number(x.len) }));
}

/** Full texts of observations whose evidence lies past their head. */
export async function fullTexts(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("shampoo_observations").select(["id", "content"]).where("id", "in", ids).execute();
  return new Map(rows.map((r) => [r.id, r.content]));
}

export interface NeighbourRow {
  seed: string;
  id: string;
  name: string;
  name_norm: string;
  entity_type: string;
  project: string | null;
  alias_text: string;
}

/**
 * Live visible entities one live relation away from the seeds (either direction), at most
 * `limit`, ordered by name. One statement; the order is applied here, not in SQL, so that no
 * planner is tempted to walk every entity in name order instead of following the edges.
 */
export async function neighbours(db: Db, s: GraphScope, seeds: string[], limit: number): Promise<NeighbourRow[]> {
  if (seeds.length === 0) return [];
  const scope = scopeShape(s);
  const values: Record<string, unknown> = { ...scope.values, limit: limit * 8 };
  seeds.forEach((id, i) => {
    values[`seed${i}`] = id;
  });
  const rows = await compiledRows<NeighbourRow>(
    db,
    `neighbours:${seeds.length}:${scope.key}`,
    (m) => {
      const ids = sql.join(seeds.map((_, i) => m[`seed${i}`]));
      return sql`
    SELECT n.seed, ${ENTITY_COLS} FROM (
      SELECT r.from_id AS seed, r.to_id AS other FROM shampoo_relations r
        WHERE r.from_id IN (${ids}) AND r.lifecycle = 'live'
      UNION
      SELECT r.to_id AS seed, r.from_id AS other FROM shampoo_relations r
        WHERE r.to_id IN (${ids}) AND r.lifecycle = 'live'
    ) n CROSS JOIN shampoo_entities e
    WHERE e.id = n.other AND e.lifecycle = 'live' AND ${visibleSql("e", scopeMarks(s, m))}
    LIMIT ${m.limit}`;
    },
    values,
  );
  return orderNeighbours(rows, seeds, limit);
}

/**
 * The neighbour rows' answer: by name, then id; an entity next
 * to several seeds is kept once, with its best-ranked seed (seeds come in rank order); at most
 * `limit`.
 */
export function orderNeighbours(rows: NeighbourRow[], seeds: string[], limit: number): NeighbourRow[] {
  const rank = new Map(seeds.map((id, i) => [id, i]));
  const seedRank = (r: NeighbourRow) => rank.get(r.seed) ?? seeds.length;
  const seen = new Set<string>();
  return rows
    .sort(
      (x, y) =>
        (x.name < y.name ? -1 : x.name > y.name ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0) ||
        seedRank(x) - seedRank(y),
    )
    .filter((r) => !seen.has(r.id) && seen.add(r.id) !== undefined)
    .slice(0, limit);
}

/** The first `limit` live visible entities by name (a blank search_nodes query lists them). */
export async function firstByName(db: Db, s: GraphScope, limit: number): Promise<(EntityHit & { id: string })[]> {
  return db
    .selectFrom("shampoo_entities as e")
    .select(["e.id", "e.name", "e.name_norm", "e.entity_type", "e.project", "e.alias_text"])
    .where("e.profile", "=", s.profile)
    .where("e.lifecycle", "=", "live")
    .where(liveSql("e", s))
    .orderBy("e.name")
    .orderBy("e.id")
    .limit(limit)
    .execute();
}
