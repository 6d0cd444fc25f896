import { type DialectName, directStatements, type Kysely, sql } from "kernel";
import type { ShampooDB } from "../../store/schema.ts";
import { fts5Quote, tsqueryQuote } from "../../store/search-quote.ts";
import { compiledRows, scopeMarks, scopeShape } from "./compiled.ts";
import { fold } from "./model.ts";
import { PG_ENTITY_DOC, pgFold } from "./schema.ts";
import { type Db, type GraphScope, visibleSql } from "./store.ts";

/**
 * The search queries of the knowledge graph, one adapter per engine (see schema.ts for the
 * indexes). Scope is part of every query's WHERE clause, so foreign rows never leave the
 * database. User text never reaches a query language as syntax: terms are word characters
 * only (model.ts parseQuery) and are quoted on top of that.
 *
 * Retrieval never ranks in the database (bm25 / ts_rank cost one row lookup per match, so a
 * common term would cost in proportion to its frequency): each probe streams at most `limit`
 * matches — newest first on SQLite (FTS5 walks its index in descending rowid order), in index
 * order on PostgreSQL — and search.ts ranks that bounded pool.
 */

/** How many characters of an observation a search reads first (see `refills`). */
export const HEAD_CHARS = 500;

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

/**
 * One full-text probe: the terms that must all match (AND; one term is the per-term probe),
 * the spellings of each, and the term that may match as a prefix.
 */
export interface Probe {
  terms: string[];
  forms: Record<string, string[]>;
  prefix: string | null;
}

/**
 * An FTS5 MATCH expression: each term quoted, AND-ed; the prefix term starred — or, when
 * `expansion` lists the indexed words it covers, those words OR-ed (the same rows: see
 * prefixWords).
 */
export function fts5Expr(p: Probe, expansion?: string[] | null): string {
  return p.terms
    .map((t) => {
      if (t !== p.prefix) return fts5Quote(t);
      if (!expansion) return `${fts5Quote(t)}*`;
      return expansion.length === 1 ? fts5Quote(t) : `(${expansion.map(fts5Quote).join(" OR ")})`;
    })
    .join(" AND ");
}

/** At most this many indexed words replace a prefix term; more, and the `*` query runs instead. */
export const PREFIX_WORDS = 4;
const ASCII_WORD = /^[a-z0-9]+$/;

/**
 * The words of a SQLite FTS5 index that a prefix term covers, read from its fts5vocab table
 * (migration 007): the term itself plus every longer indexed word that starts with it, at most
 * PREFIX_WORDS; null when there are more, or when the term is not plain ASCII (then the index's
 * own token form could differ from ours, and the `*` query is used unchanged).
 *
 * Why: FTS5 answers `"word"*` by merging the whole doclist of every word in the range into
 * memory before it can return its first row — a word found in most observations costs tens of
 * milliseconds even under LIMIT — while an exact word streams. OR-ing the covered words returns
 * exactly the rows the prefix query returns. The vocabulary range starts just after the term
 * (at term + U+0001, which no token contains: with `term > ?` fts5vocab would still visit, and
 * count, the term's own possibly huge doclist).
 */
export async function prefixWords(db: Db, vocab: string, prefix: string): Promise<string[] | null> {
  if (!ASCII_WORD.test(prefix)) return null;
  const rows = await compiledRows<{ term: string }>(
    db,
    `vocab:${vocab}`,
    (m) => sql`SELECT term FROM ${sql.table(vocab)} WHERE term >= ${m.from} AND term < ${m.to} LIMIT ${m.limit}`,
    { from: `${prefix}\u0001`, to: `${prefix}\u{10FFFF}`, limit: PREFIX_WORDS },
  );
  if (rows.length >= PREFIX_WORDS) return null;
  return [prefix, ...rows.map((x) => x.term)];
}

/**
 * Prefix expansions already read in one search (vocabulary table + prefix → words), so that
 * the several statements of one search read each at most once.
 */
export type PrefixCache = Map<string, Promise<string[] | null>>;

/** The prefix expansion of a batch of probes (they share one query's prefix term). */
function expansionFor(db: Db, vocab: string, probes: Limited[], cache?: PrefixCache): Promise<string[] | null> {
  const prefix = probes.find((l) => l.probe.prefix !== null && l.probe.terms.includes(l.probe.prefix))?.probe.prefix;
  if (!prefix) return Promise.resolve(null);
  const key = `${vocab}\u0000${prefix}`;
  let words = cache?.get(key);
  if (!words) {
    words = prefixWords(db, vocab, prefix);
    cache?.set(key, words);
  }
  return words;
}

/**
 * A to_tsquery text: per term its spellings OR-ed (the prefix term with :*), terms AND-ed.
 * Spellings without a letter or digit (a lone combining mark, say) are dropped: PostgreSQL's
 * parser reads them as empty lexemes and rejects the whole query. No terms left → "" (matches nothing).
 */
export function tsqueryExpr(p: Probe): string {
  const lexeme = (x: string, star: boolean) => `${tsqueryQuote(x)}${star ? ":*" : ""}`;
  const wordy = (x: string) => /[\p{L}\p{N}]/u.test(x);
  return p.terms
    .map((t) => (p.forms[t] ?? [t]).filter(wordy).map((f) => lexeme(f, t === p.prefix)))
    .filter((alts) => alts.length > 0)
    .map((alts) => `(${alts.join(" | ")})`)
    .join(" & ");
}

/** Pages of FTS5 merge work per step, and at most per tidySearchIndexes call. */
const MERGE_STEP_PAGES = 500;
export const TIDY_MAX_PAGES = 4000;

/**
 * SQLite: merges the word indexes' segments (FTS5 'merge' with usermerge 2, migration 007)
 * until no level holds two segments or `maxPages` pages were written per index, whichever
 * comes first.
 * FTS5's own automerge keeps up to three segments per level as rows are written; a term lookup
 * probes every segment, so search gets slower as they pile up (bulk writes pile up the most).
 * Bounded work, resumable: FTS5 keeps the state of an unfinished merge, so the next call goes
 * on where this one stopped. Run at open (app.ts) and after a bulk import. A no-op on
 * PostgreSQL, whose GIN indexes need no such care.
 */
export async function tidySearchIndexes(db: Db, dialect: DialectName, maxPages = TIDY_MAX_PAGES): Promise<void> {
  if (dialect !== "sqlite") return;
  const changes = async () =>
    Number((await sql<{ n: number }>`SELECT total_changes() AS n`.execute(db)).rows[0]?.n ?? 0);
  for (const t of WORD_INDEXES) {
    for (let pages = 0; pages < maxPages; pages += MERGE_STEP_PAGES) {
      const before = await changes();
      await sql`INSERT INTO ${sql.table(t)}(${sql.ref(t)}, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`.execute(db);
      // The command itself counts one change; more means it merged something (maybe not all).
      if ((await changes()) - before <= 1) break;
    }
  }
}

/** The word indexes of search_nodes (the trigram ones serve search_by_project only). */
const WORD_INDEXES = ["shampoo_entities_fts", "shampoo_observations_fts"] as const;

/** Pages of FTS5 merge work per word index and merge (scheduleMerge). */
export const WRITE_MERGE_PAGES = 8;
/**
 * A write has the word indexes merged once one has this many segments (needsMerge). From 4
 * on, one-entity creates sent back to back were 6–14 % slower at 1,000 entities (the merge
 * runs before the next request is read); from 8, merges are 2–3× rarer and take more segments
 * at once, and a search still probes far fewer than the dozen and more writes leave.
 */
export const MERGE_FROM_SEGMENTS = 8;

/**
 * The number of segments in an FTS5 structure record (the `%_data` row with id 10): a 4-byte
 * cookie, the 4-byte marker of the version 2 format when present, then the number of levels
 * and the number of segments as SQLite varints (fts5_index.c, "structure record"). Null when
 * the record does not read as one.
 */
export function structureSegments(block: Uint8Array): number | null {
  let i = 4;
  if (block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1) i += 4;
  const varint = (): number | null => {
    let v = 0;
    for (let k = 0; k < 9; k++) {
      const b = block[i++];
      if (b === undefined) return null;
      if (k === 8) return v * 256 + b;
      v = v * 128 + (b & 0x7f);
      if (b < 0x80) return v;
    }
    return null;
  };
  return varint() === null ? null : varint();
}

/**
 * SQLite: does a word index have MERGE_FROM_SEGMENTS segments or more? Read inside a write
 * transaction (directStatements), from the structure records; false on PostgreSQL.
 *
 * Every transaction that changes a word index flushes a new small segment. FTS5's own
 * automerge works in units of 64 leaf pages written, so one-row writes (create_entities with
 * one entity, add_observations) pile up a dozen segments and more before it merges any — and
 * every term lookup of every search probes each one (at 1,000 entities, after 210 one-entity
 * creates: 13 entity-index segments, an entity probe 3–6× slower than on one segment; at
 * 100,000 after 300 creates 21 and 15). A write that leaves this many has its indexes merged
 * right after it (scheduleMerge). PostgreSQL's GIN indexes need no such care (their pending
 * lists are kept small instead: schema.ts).
 */
export function needsMerge(db: Db): boolean {
  const direct = directStatements(db as Kysely<unknown>);
  if (!direct) return false;
  return WORD_INDEXES.some((t) => mergeDue(direct, t));
}

/** Has word index `t` MERGE_FROM_SEGMENTS segments or more (or a structure record that does not read)? */
function mergeDue(direct: NonNullable<ReturnType<typeof directStatements>>, t: string): boolean {
  const row = direct.prepare(`SELECT block FROM ${t}_data WHERE id = 10`).all([])[0] as
    | { block: Uint8Array }
    | undefined;
  const segments = row ? structureSegments(row.block) : null;
  return segments === null || segments >= MERGE_FROM_SEGMENTS;
}

/** The database a merge runs on (the graph's own, ctx.database). */
interface MergeTarget {
  transaction<T>(fn: (db: Kysely<ShampooDB>) => Promise<T>): Promise<T>;
}

const merges = new WeakMap<MergeTarget, Promise<void>>();

/**
 * SQLite: a bounded FTS5 'merge' (usermerge 2, at most WRITE_MERGE_PAGES pages) of each word
 * index with MERGE_FROM_SEGMENTS segments or more, in a transaction of its own that starts
 * once the current turn of the event loop is over — after the write that asked for it has
 * committed and its answer has been sent. The merge's CPU is spent all the same, but not
 * inside the write's latency (in a transaction of the write, it cost create_entities ~0.2 ms
 * at 1,000 entities: +13–15 % CPU). Bounded and resumable (an unfinished merge goes on at the
 * next one), so no merge is ever a whole-index rewrite; one at a time per database (writes in
 * the meantime join it); best effort: a failure (a closed database, a busy lock) is dropped,
 * and a later write asks again.
 */
export function scheduleMerge(database: MergeTarget): Promise<void> {
  const pending = merges.get(database);
  if (pending) return pending;
  const run = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() =>
      database.transaction(async (db) => {
        const direct = directStatements(db as Kysely<unknown>);
        if (!direct) return;
        for (const t of WORD_INDEXES) {
          if (mergeDue(direct, t))
            direct.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('merge', ${WRITE_MERGE_PAGES})`).run([]);
        }
      }),
    )
    .catch(() => {})
    .finally(() => merges.delete(database));
  merges.set(database, run);
  return run;
}

/** The merge scheduled or running on this database, if any (tests wait for it). */
export function pendingMerge(database: MergeTarget): Promise<void> {
  return merges.get(database) ?? Promise.resolve();
}

const ENTITY_COLS = sql.raw("e.id, e.name, e.name_norm, e.entity_type, e.project, e.alias_text");

/** One probe of a batch, with its own row limit. */
export interface Limited {
  probe: Probe;
  limit: number;
}

/** Rows of a batch of probes, tagged with the index of the probe that found them. */
export type Tagged<T> = T & { probe: number };

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

/** The prefix expansions of one search: per index, the words its prefix term covers (see prefixWords). */
export interface Expansions {
  entities: string[] | null;
  observations: string[] | null;
}

/** No prefix expansion in either index (no prefix term, PostgreSQL, or a non-ASCII prefix). */
export const NO_EXPANSIONS: Expansions = { entities: null, observations: null };

/**
 * SQLite: the prefix expansions of both word indexes in one statement (the entity index's, and
 * the observation index's when `observations`), exactly what prefixWords gives for each. Null
 * expansions when there is no prefix term, on PostgreSQL, or for a non-ASCII prefix.
 */
export async function prefixExpansions(
  db: Db,
  dialect: DialectName,
  prefix: string | null,
  observations: boolean,
): Promise<Expansions> {
  if (dialect !== "sqlite" || prefix === null || !ASCII_WORD.test(prefix)) return NO_EXPANSIONS;
  const rows = await compiledRows<{ v: number; term: string }>(
    db,
    `vocab2:${observations ? 2 : 1}`,
    (m) => {
      const one = (v: number, vocab: string) =>
        sql`SELECT ${sql.raw(String(v))} AS v, term FROM (SELECT term FROM ${sql.table(vocab)}
          WHERE term >= ${m.from} AND term < ${m.to} LIMIT ${m.limit})`;
      return observations
        ? sql`${one(0, "shampoo_entities_fts_vocab")} UNION ALL ${one(1, "shampoo_observations_fts_vocab")}`
        : one(0, "shampoo_entities_fts_vocab");
    },
    { from: `${prefix}\u0001`, to: `${prefix}\u{10FFFF}`, limit: PREFIX_WORDS },
  );
  const words = (v: number): string[] | null => {
    const covered = rows.filter((r) => Number(r.v) === v).map((r) => r.term);
    return covered.length >= PREFIX_WORDS ? null : [prefix, ...covered];
  };
  return { entities: words(0), observations: observations ? words(1) : null };
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

/** The bound values of a batch of probes: each one's match expression and row limit. */
function probeValues(dialect: DialectName, probes: Limited[], words: string[] | null): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  probes.forEach((l, i) => {
    values[`match${i}`] = dialect === "sqlite" ? fts5Expr(l.probe, words) : tsqueryExpr(l.probe);
    values[`limit${i}`] = l.limit;
  });
  return values;
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

// ------------------------------------------------------------------------------------------------
// search_by_project: the substring pool of one project

/** `%…%` LIKE pattern of a literal, with `\` as the escape character. */
export function likeAny(text: string): string {
  return `%${text.replaceAll("\\", "\\\\").replaceAll("%", "\\%").replaceAll("_", "\\_")}%`;
}

function projectIs(a: string, project: string | null) {
  return project === null ? sql`${sql.ref(`${a}.project`)} IS NULL` : sql`${sql.ref(`${a}.project`)} = ${project}`;
}

/**
 * Ids of live visible entities of one project whose name, aliases, type or a live observation
 * contains one of the substrings (case- and accent-insensitive). SQLite answers from its trigram
 * indexes when every substring has three characters or more (the trigram minimum) and scans
 * the project with LIKE otherwise (ASCII case folding only there); PostgreSQL uses LIKE on the
 * folded expressions, which its pg_trgm indexes accelerate where the extension is installed.
 */
export async function substringPool(
  db: Db,
  dialect: DialectName,
  s: GraphScope,
  project: string | null,
  subs: string[],
  limit: number,
): Promise<string[]> {
  const where = sql`e.lifecycle = 'live' AND ${projectIs("e", project)} AND ${visibleSql("e", s)}`;
  let entityRows: { id: string }[];
  let obsRows: { id: string }[];
  if (dialect === "sqlite" && subs.every((x) => [...x].length >= 3)) {
    const match = subs.map(fts5Quote).join(" OR ");
    entityRows = (
      await sql<{ id: string }>`SELECT e.id FROM shampoo_entities_tri t JOIN shampoo_entities e ON e.rid = t.rowid
        WHERE shampoo_entities_tri MATCH ${match} AND ${where} LIMIT ${limit}`.execute(db)
    ).rows;
    obsRows = (
      await sql<{ id: string }>`SELECT DISTINCT e.id FROM shampoo_observations_tri t
        JOIN shampoo_observations o ON o.rid = t.rowid JOIN shampoo_entities e ON e.id = o.entity_id
        WHERE shampoo_observations_tri MATCH ${match} AND o.lifecycle = 'live' AND ${where} LIMIT ${limit}`.execute(db)
    ).rows;
  } else {
    // SQLite LIKE folds ASCII case; PostgreSQL compares the folded, lowercased expressions that
    // its trigram indexes are built on (schema.ts pgFold), with folded substrings.
    const sqlite = dialect === "sqlite";
    const esc = sql.raw(" ESCAPE '\\'");
    const entityDoc = sql.raw(
      sqlite ? "(e.name || char(10) || e.alias_text || char(10) || e.entity_type)" : pgFold(PG_ENTITY_DOC),
    );
    const obsDoc = sql.raw(sqlite ? "o.content" : pgFold("content"));
    const pats = sqlite ? subs : [...new Set(subs.map(fold))];
    const anyOf = (doc: typeof entityDoc) =>
      sql.join(
        pats.map((x) => sql`${doc} LIKE ${likeAny(x)}${esc}`),
        sql` OR `,
      );
    entityRows = (
      await sql<{ id: string }>`SELECT e.id FROM shampoo_entities e
        WHERE e.profile = ${s.profile} AND (${anyOf(entityDoc)}) AND ${where} LIMIT ${limit}`.execute(db)
    ).rows;
    obsRows = (
      await sql<{
        id: string;
      }>`SELECT DISTINCT e.id FROM shampoo_observations o JOIN shampoo_entities e ON e.id = o.entity_id
        WHERE e.profile = ${s.profile} AND o.lifecycle = 'live' AND (${anyOf(obsDoc)}) AND ${where}
        LIMIT ${limit}`.execute(db)
    ).rows;
  }
  const ids: string[] = [];
  for (const r of [...entityRows, ...obsRows]) if (!ids.includes(r.id) && ids.length < limit) ids.push(r.id);
  return ids;
}

/** The first `limit` live visible entities of a project by name (blank search_by_project). */
export async function projectListing(db: Db, s: GraphScope, project: string | null, limit: number): Promise<string[]> {
  const r = await sql<{ id: string }>`SELECT e.id FROM shampoo_entities e
    WHERE e.profile = ${s.profile} AND e.lifecycle = 'live' AND ${projectIs("e", project)} AND ${visibleSql("e", s)}
    ORDER BY e.name, e.id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => x.id);
}
