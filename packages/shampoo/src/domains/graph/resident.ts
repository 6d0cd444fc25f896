import { directStatements, type Kysely, logger } from "kernel";
import type { SqliteDatabase } from "kysely";
import type { EntityHit, HeadRow, NeighbourRow, ObservationHit, Probe, Tagged } from "./fts.ts";
import { HEAD_CHARS, orderNeighbours } from "./fts.ts";
import type { Visibility } from "./model.ts";
import { type Db, type GraphScope, seesEntity } from "./store.ts";

/**
 * The resident search index (SQLite): a small profile's searchable graph held in memory, so
 * that search_nodes reads its pool, first observations and neighbours without a statement each.
 *
 * Why: on a small graph a search spends most of its time in the fixed cost of its five or six
 * statements (FTS5 set-up, joins, row objects), not in finding matches — about 1.3 ms of the
 * 2 ms a search took at 1,000 entities. In memory the same answers take microseconds.
 *
 * Same answers, by construction:
 * - **Tokens are FTS5's.** ASCII text is cut here into runs of [a-z0-9] (what unicode61 makes of
 *   ASCII); any other text is tokenized by FTS5 itself, through a temporary FTS5 table with the
 *   word indexes' tokenizer, read back with fts5vocab. Queries with a non-ASCII term are left to
 *   the SQL path (FTS5 would re-tokenize the quoted term itself).
 * - **Pools are the SQL probes' pools:** per probe, the rows holding every term (the prefix term:
 *   any indexed word starting with it), live and visible to the caller, newest first (highest
 *   rowid: FTS5's order), at most the probe's limit; probes in the same order (fts.ts poolHits).
 * - **Fresh at every search.** Every graph write records, in its own transaction, a history
 *   event naming the row it changed (an entity, observation or relation: each row's
 *   last_event_id is one), whatever tool, import or process made it. Each search reads the
 *   history's last seq inside its own transaction and re-reads the rows named by the graph events
 *   past the last one it applied, before answering. Bulk changes rebuild.
 *
 * Scope: a profile with at most RESIDENT_MAX_OBSERVATIONS live observations; a larger one keeps
 * the SQL path (its cost is flat in the graph's size already) and is looked at again after
 * RECHECK_CHANGES more history events. Memory: the resident profile's names, types, aliases, the first
 * HEAD_CHARS characters of each observation and the distinct words of each row.
 */

/** Largest profile (live observations) kept resident. */
export const RESIDENT_MAX_OBSERVATIONS = 10_000;
/** More pending graph events than this: rebuild instead of applying them one by one. */
const REBUILD_AFTER = 5_000;
/** A profile found too large is looked at again after this many more history events. */
const RECHECK_CHANGES = 10_000;
const NON_ASCII = /[\u0080-\uffff]/;
const ASCII_TERM = /^[a-z0-9]+$/;
const ASCII_WORDS = /[a-z0-9]+/g;

/** The history's kinds of graph events (graph/service.ts event()). */
const GRAPH_EVENTS = ["entity", "observation", "relation"] as const;
type GraphEvent = (typeof GRAPH_EVENTS)[number];

interface REntity extends EntityHit {
  rid: number;
  profile: string;
  visibility: Visibility;
  created_by: string;
  /** The row's distinct words, space-separated (one string per row: less memory than an array). */
  words: string;
}

interface RObservation {
  rid: number;
  id: string;
  entity_id: string;
  ord: number;
  head: string;
  len: number;
  /** As REntity.words. */
  words: string;
}

interface RRelation {
  id: string;
  from_id: string;
  to_id: string;
}

/**
 * Word → its rowids in ascending order, with the words kept sorted for prefix ranges. Rows are
 * visited highest rowid first, as FTS5 returns them, and a probe stops at its limit.
 */
class Postings {
  private readonly map = new Map<string, number[]>();
  private sorted: string[] = [];
  /** Words added since `sorted` was last complete (sorted in on the next prefix lookup). */
  private fresh: string[] = [];

  add(rid: number, words: string[]): void {
    for (const w of words) {
      let list = this.map.get(w);
      if (!list) {
        list = [];
        this.map.set(w, list);
        this.fresh.push(w);
      }
      // New rows have the highest rowid: appended, the common case.
      if (list.length === 0 || (list[list.length - 1] as number) < rid) list.push(rid);
      else {
        const at = lowerBound(list, rid);
        if (list[at] !== rid) list.splice(at, 0, rid);
      }
    }
  }

  remove(rid: number, words: string[]): void {
    for (const w of words) {
      const list = this.map.get(w);
      if (!list) continue;
      const at = lowerBound(list, rid);
      if (list[at] === rid) list.splice(at, 1);
      if (list.length === 0) {
        this.map.delete(w);
        this.settle();
        const i = lowerBound(this.sorted, w);
        if (this.sorted[i] === w) this.sorted.splice(i, 1);
      }
    }
  }

  /** Sorts the words added since into `sorted`: all at once after a load, one by one after a write. */
  private settle(): void {
    if (this.fresh.length === 0) return;
    if (this.fresh.length > 64) this.sorted = [...this.sorted, ...this.fresh].sort();
    else for (const w of this.fresh) this.sorted.splice(lowerBound(this.sorted, w), 0, w);
    this.fresh = [];
  }

  /** The rowid lists a term matches: its own, or for the prefix term every word starting with it. */
  private lists(term: string, prefix: boolean): number[][] {
    if (!prefix) {
      const list = this.map.get(term);
      return list ? [list] : [];
    }
    const out: number[][] = [];
    this.settle();
    for (let i = lowerBound(this.sorted, term); i < this.sorted.length; i++) {
      const w = this.sorted[i] as string;
      if (!w.startsWith(term)) break;
      out.push(this.map.get(w) as number[]);
    }
    return out;
  }

  /**
   * Visits the rowids holding every term (AND; the prefix term as above), highest first, until
   * `visit` returns false. The term with the fewest rows drives; the others are looked up.
   */
  each(terms: string[], prefix: string | null, visit: (rid: number) => boolean): void {
    const groups = terms.map((t) => this.lists(t, t === prefix));
    if (groups.some((g) => g.length === 0)) return;
    const size = (g: number[][]) => g.reduce((n, l) => n + l.length, 0);
    groups.sort((a, b) => size(a) - size(b));
    const [first, ...rest] = groups as [number[][], ...number[][][]];
    const driver = first.length === 1 ? (first[0] as number[]) : [...new Set(first.flat())].sort((a, b) => a - b);
    for (let i = driver.length - 1; i >= 0; i--) {
      const rid = driver[i] as number;
      if (rest.every((g) => g.some((l) => l[lowerBound(l, rid)] === rid)) && !visit(rid)) return;
    }
  }
}

/** The entity columns every probe row carries (fts.ts ENTITY_COLS, less the id). */
function described(e: REntity): Omit<EntityHit, "id"> {
  return {
    name: e.name,
    name_norm: e.name_norm,
    entity_type: e.entity_type,
    project: e.project,
    alias_text: e.alias_text,
  };
}

/** A row's words (REntity.words). */
const splitWords = (words: string): string[] => (words === "" ? [] : words.split(" "));

/** The first index whose element is not below `x`, in an ascending array. */
function lowerBound<T extends string | number>(xs: T[], x: T): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as T) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What SQLite's length() and substr(…, 1, HEAD_CHARS) give for a text (code points). */
function headOf(text: string): { head: string; len: number } {
  if (!/[\uD800-\uDFFF]/.test(text)) return { head: text.slice(0, HEAD_CHARS), len: text.length };
  const cps = Array.from(text);
  return { head: cps.slice(0, HEAD_CHARS).join(""), len: cps.length };
}

/**
 * The distinct words FTS5's word indexes make of each text: ASCII texts here, the others by
 * FTS5 itself (a temporary table with the same tokenizer, read back through fts5vocab).
 */
export function wordsOf(raw: SqliteDatabase, texts: string[]): string[][] {
  const out: string[][] = new Array(texts.length);
  const others: number[] = [];
  texts.forEach((t, i) => {
    if (!NON_ASCII.test(t)) out[i] = [...new Set(t.toLowerCase().match(ASCII_WORDS) ?? [])];
    else others.push(i);
  });
  if (others.length === 0) return out;
  raw
    .prepare(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.shampoo_resident_words USING fts5(t, tokenize='unicode61 remove_diacritics 2')",
    )
    .run([]);
  raw
    .prepare(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.shampoo_resident_words_v USING fts5vocab(temp, shampoo_resident_words, instance)",
    )
    .run([]);
  const insert = raw.prepare("INSERT INTO temp.shampoo_resident_words(rowid, t) VALUES (?, ?)");
  for (let k = 0; k < others.length; k++) insert.run([k + 1, texts[others[k] as number]]);
  const words = others.map(() => new Set<string>());
  const rows = raw.prepare("SELECT term, doc FROM temp.shampoo_resident_words_v").all([]) as {
    term: string;
    doc: number;
  }[];
  for (const r of rows) words[Number(r.doc) - 1]?.add(r.term);
  raw.prepare("DELETE FROM temp.shampoo_resident_words").run([]);
  others.forEach((i, k) => {
    out[i] = [...(words[k] as Set<string>)];
  });
  return out;
}

interface EntityRowIn {
  rid: number;
  id: string;
  profile: string;
  name: string;
  name_norm: string;
  entity_type: string;
  project: string | null;
  alias_text: string;
  visibility: Visibility;
  created_by: string;
  status: string;
}

interface ObservationRowIn {
  rid: number;
  id: string;
  entity_id: string;
  profile: string;
  ord: number;
  content: string;
  status: string;
}

interface RelationRowIn {
  id: string;
  from_id: string;
  to_id: string;
  profile: string;
  status: string;
}

const ENTITY_COLS =
  "rid, id, profile, name, name_norm, entity_type, project, alias_text, visibility, created_by, status";
const OBSERVATION_COLS = "rid, id, entity_id, profile, ord, content, status";
const RELATION_COLS = "id, from_id, to_id, profile, status";

/** The history's last seq (0 when empty): every write of any kind moves it. */
function lastChange(raw: SqliteDatabase): number {
  const row = raw.prepare("SELECT max(seq) AS m FROM shampoo_history").all([])[0] as { m: number | null };
  return Number(row?.m ?? 0);
}

/** One profile's searchable graph (see the module comment). */
export class Resident {
  /** The history seq it is current with. */
  seq = 0;
  private readonly entities = new Map<number, REntity>();
  private readonly entityById = new Map<string, REntity>();
  private readonly observations = new Map<number, RObservation>();
  private readonly observationsOf = new Map<string, RObservation[]>();
  private readonly relations = new Map<string, RRelation>();
  private readonly relationsOf = new Map<string, Set<RRelation>>();
  private readonly entityWords = new Postings();
  private readonly observationWords = new Postings();
  liveObservations = 0;

  constructor(readonly profile: string) {}

  /** Loads the profile's live rows; false (and nothing kept) when it has more than `max` observations. */
  load(raw: SqliteDatabase, max: number): boolean {
    this.seq = lastChange(raw);
    const count = raw
      .prepare(
        "SELECT count(*) AS n FROM (SELECT 1 FROM shampoo_observations WHERE profile = ? AND status = 'active' LIMIT ?)",
      )
      .all([this.profile, max + 1])[0] as { n: number };
    if (Number(count.n) > max) return false;
    const where = "WHERE profile = ? AND status = 'active'";
    this.putEntities(
      raw,
      raw.prepare(`SELECT ${ENTITY_COLS} FROM shampoo_entities ${where}`).all([this.profile]) as EntityRowIn[],
    );
    this.putObservations(
      raw,
      raw
        .prepare(`SELECT ${OBSERVATION_COLS} FROM shampoo_observations ${where}`)
        .all([this.profile]) as ObservationRowIn[],
    );
    this.putRelations(
      raw.prepare(`SELECT ${RELATION_COLS} FROM shampoo_relations ${where}`).all([this.profile]) as RelationRowIn[],
    );
    return true;
  }

  /**
   * Applies the graph events past `seq` up to `last`. False when there are more than
   * `rebuildAfter` (loading anew is cheaper) or the profile has outgrown `max` live observations.
   */
  refresh(raw: SqliteDatabase, last: number, max: number, rebuildAfter: number): boolean {
    const rows = raw
      .prepare(
        `SELECT entity_kind AS kind, entity_id AS id FROM shampoo_history
          WHERE seq > ? AND seq <= ? AND profile = ? AND entity_kind IN (${GRAPH_EVENTS.map((k) => `'${k}'`).join(", ")})
          LIMIT ?`,
      )
      .all([this.seq, last, this.profile, rebuildAfter + 1]) as { kind: string; id: string }[];
    if (rows.length > rebuildAfter) return false;
    const ids: Record<GraphEvent, Set<string>> = {
      entity: new Set(),
      observation: new Set(),
      relation: new Set(),
    };
    for (const r of rows) ids[r.kind as GraphEvent].add(r.id);
    const read = <T>(table: string, cols: string, set: Set<string>): T[] =>
      set.size === 0
        ? []
        : (raw
            .prepare(`SELECT ${cols} FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`)
            .all([JSON.stringify([...set])]) as T[]);
    const live = (x: { status: string; profile: string }) => x.status === "active" && x.profile === this.profile;
    const ents = read<EntityRowIn>("shampoo_entities", ENTITY_COLS, ids.entity);
    for (const e of ents) this.dropEntity(Number(e.rid));
    this.putEntities(raw, ents.filter(live));
    const obs = read<ObservationRowIn>("shampoo_observations", OBSERVATION_COLS, ids.observation);
    for (const o of obs) this.dropObservation(Number(o.rid));
    this.putObservations(raw, obs.filter(live));
    const rels = read<RelationRowIn>("shampoo_relations", RELATION_COLS, ids.relation);
    for (const r of rels) this.dropRelation(r.id);
    this.putRelations(rels.filter(live));
    this.seq = last;
    return this.liveObservations <= max;
  }

  private putEntities(raw: SqliteDatabase, rows: EntityRowIn[]): void {
    const words = wordsOf(
      raw,
      rows.map((e) => `${e.name}\n${e.alias_text}\n${e.entity_type}`),
    );
    rows.forEach((e, i) => {
      const r: REntity = {
        rid: Number(e.rid),
        id: e.id,
        profile: e.profile,
        name: e.name,
        name_norm: e.name_norm,
        entity_type: e.entity_type,
        project: e.project,
        alias_text: e.alias_text,
        visibility: e.visibility,
        created_by: e.created_by,
        words: (words[i] as string[]).join(" "),
      };
      this.entities.set(r.rid, r);
      this.entityById.set(r.id, r);
      this.entityWords.add(r.rid, splitWords(r.words));
    });
  }

  private dropEntity(rid: number): void {
    const e = this.entities.get(rid);
    if (!e) return;
    this.entities.delete(rid);
    this.entityById.delete(e.id);
    this.entityWords.remove(rid, splitWords(e.words));
  }

  private putObservations(raw: SqliteDatabase, rows: ObservationRowIn[]): void {
    const words = wordsOf(
      raw,
      rows.map((o) => o.content),
    );
    rows.forEach((o, i) => {
      const r: RObservation = {
        rid: Number(o.rid),
        id: o.id,
        entity_id: o.entity_id,
        ord: Number(o.ord),
        ...headOf(o.content),
        words: (words[i] as string[]).join(" "),
      };
      this.observations.set(r.rid, r);
      // Kept in `ord` order: heads are the first ones. Rows mostly come in that order.
      const list = this.observationsOf.get(r.entity_id) ?? [];
      if (list.length === 0 || (list[list.length - 1] as RObservation).ord < r.ord) list.push(r);
      else {
        const after = list.findIndex((x) => x.ord > r.ord);
        list.splice(after < 0 ? list.length : after, 0, r);
      }
      this.observationsOf.set(r.entity_id, list);
      this.observationWords.add(r.rid, splitWords(r.words));
      this.liveObservations++;
    });
  }

  private dropObservation(rid: number): void {
    const o = this.observations.get(rid);
    if (!o) return;
    this.observations.delete(rid);
    const list = this.observationsOf.get(o.entity_id) ?? [];
    const at = list.indexOf(o);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.observationsOf.delete(o.entity_id);
    this.observationWords.remove(rid, splitWords(o.words));
    this.liveObservations--;
  }

  private putRelations(rows: RelationRowIn[]): void {
    for (const x of rows) {
      const r: RRelation = { id: x.id, from_id: x.from_id, to_id: x.to_id };
      this.relations.set(r.id, r);
      for (const id of new Set([r.from_id, r.to_id])) {
        const set = this.relationsOf.get(id) ?? new Set();
        set.add(r);
        this.relationsOf.set(id, set);
      }
    }
  }

  private dropRelation(id: string): void {
    const r = this.relations.get(id);
    if (!r) return;
    this.relations.delete(id);
    for (const id of [r.from_id, r.to_id]) {
      const set = this.relationsOf.get(id);
      set?.delete(r);
      if (set?.size === 0) this.relationsOf.delete(id);
    }
  }

  /** A live entity the caller may see. */
  private visible(s: GraphScope, id: string): REntity | undefined {
    const e = this.entityById.get(id);
    return e && seesEntity(s, e) ? e : undefined;
  }

  /** Can this index answer the probes of a query? (Only ASCII terms: see the module comment.) */
  static serves(p: Probe): boolean {
    return p.terms.every((t) => ASCII_TERM.test(t));
  }

  /** An entity probe's rows, as fts.ts entityProbeSql gives them. */
  entityProbe(s: GraphScope, p: Probe, limit: number, tag: number): Tagged<EntityHit>[] {
    const out: Tagged<EntityHit>[] = [];
    if (limit <= 0) return out;
    this.entityWords.each(p.terms, p.prefix, (rid) => {
      const e = this.entities.get(rid) as REntity;
      if (seesEntity(s, e)) out.push({ id: e.id, ...described(e), probe: tag });
      return out.length < limit;
    });
    return out;
  }

  /** An observation probe's rows, as fts.ts observationProbeSql gives them. */
  observationProbe(s: GraphScope, p: Probe, limit: number, tag: number): Tagged<ObservationHit>[] {
    const out: Tagged<ObservationHit>[] = [];
    if (limit <= 0) return out;
    this.observationWords.each(p.terms, p.prefix, (rid) => {
      const o = this.observations.get(rid) as RObservation;
      const e = this.visible(s, o.entity_id);
      if (e) {
        out.push({
          obs_id: o.id,
          entity_id: o.entity_id,
          ord: o.ord,
          head: o.head,
          len: o.len,
          ...described(e),
          probe: tag,
        });
      }
      return out.length < limit;
    });
    return out;
  }

  /**
   * fts.ts firstObservations, from memory: the same rows, grouped per entity in `ord` order
   * (loadHeads groups them per entity anyway).
   */
  firstObservations(entityIds: string[], n: number): HeadRow[] {
    const out: HeadRow[] = [];
    for (const id of entityIds) {
      const list = this.observationsOf.get(id);
      if (!list) continue;
      for (let i = 0; i < n && i < list.length; i++) {
        const o = list[i] as RObservation;
        out.push({ entity_id: id, obs_id: o.id, ord: o.ord, head: o.head, len: o.len });
      }
    }
    return out;
  }

  /**
   * fts.ts neighbours, from memory; null when the statement's row cap (`limit` × 8) would cut
   * the rows (then the statement runs, so that both give the same answer).
   */
  neighbours(s: GraphScope, seeds: string[], limit: number): NeighbourRow[] | null {
    const rows: NeighbourRow[] = [];
    const pairs = new Set<string>();
    for (const seed of seeds) {
      for (const r of this.relationsOf.get(seed) ?? []) {
        const others = [r.from_id === seed ? r.to_id : null, r.to_id === seed ? r.from_id : null];
        for (const other of others) {
          if (other === null || pairs.has(`${seed}\u0000${other}`)) continue;
          pairs.add(`${seed}\u0000${other}`);
          const e = this.visible(s, other);
          if (!e) continue;
          rows.push({ seed, id: e.id, ...described(e) });
        }
      }
    }
    if (rows.length > limit * 8) return null;
    return orderNeighbours(rows, seeds, limit);
  }
}

/** How the resident index behaves on one database handle (configureResidentSearch). */
export interface ResidentSettings {
  enabled: boolean;
  /** Largest profile kept resident, in live observations. */
  maxObservations: number;
  /** More pending graph events than this: rebuild instead of applying them one by one. */
  rebuildAfter: number;
  /** A profile found too large is looked at again after this many more history events (any kind). */
  recheckAfter: number;
}

const DEFAULTS: ResidentSettings = {
  enabled: true,
  maxObservations: RESIDENT_MAX_OBSERVATIONS,
  rebuildAfter: REBUILD_AFTER,
  recheckAfter: RECHECK_CHANGES,
};

/** What the resident index did on one database handle (tests, bench). */
export interface ResidentStats {
  /** Profiles loaded from the tables (first search, rebuilds). */
  builds: number;
  /** Searches that caught up on the graph events written since the last one. */
  refreshes: number;
  /** Searches answered with a resident index. */
  served: number;
  /** Profiles found too large (kept on the statements). */
  tooLarge: number;
}

/** A profile's slot: its index, or the seq at which it was found too large. */
type Slot = Resident | { tooLargeAt: number };

interface Handle {
  settings: ResidentSettings;
  stats: ResidentStats;
  profiles: Map<string, Slot>;
}

const handles = new WeakMap<object, Handle>();

function handleOf(database: object): Handle {
  let h = handles.get(database);
  if (!h) {
    h = {
      settings: { ...DEFAULTS },
      stats: { builds: 0, refreshes: 0, served: 0, tooLarge: 0 },
      profiles: new Map(),
    };
    handles.set(database, h);
  }
  return h;
}

/**
 * Settings of the resident index for one database handle. Turning it off keeps what it holds:
 * turned on again, it catches up from the history like after any write (tests compare the two
 * paths that way).
 */
export function configureResidentSearch(database: object, settings: Partial<ResidentSettings>): void {
  const h = handleOf(database);
  h.settings = { ...h.settings, ...settings };
}

export function residentStats(database: object): ResidentStats {
  return { ...handleOf(database).stats };
}

/**
 * The profile's resident index, fresh as of this transaction; undefined on PostgreSQL, outside
 * a SQLite transaction, when turned off, or for a profile too large to keep.
 */
export function residentFor(database: object, db: Db, profile: string): Resident | undefined {
  const h = handleOf(database);
  if (!h.settings.enabled) return undefined;
  const raw = directStatements(db as Kysely<unknown>);
  if (!raw) return undefined;
  try {
    return current(h, raw, profile);
  } catch (e) {
    // The index is an optimisation: should it fail (it has not been seen to), it lets go of the
    // profile and the statements answer; the next search loads it anew.
    h.profiles.delete(profile);
    logger("search").warn(`resident search index dropped for a profile (${String(e)})`);
    return undefined;
  }
}

function current(h: Handle, raw: SqliteDatabase, profile: string): Resident | undefined {
  const last = lastChange(raw);
  const slot = h.profiles.get(profile);
  if (slot instanceof Resident) {
    if (slot.seq === last) {
      h.stats.served++;
      return slot;
    }
    h.profiles.delete(profile); // until it is whole again
    if (slot.refresh(raw, last, h.settings.maxObservations, h.settings.rebuildAfter)) {
      h.profiles.set(profile, slot);
      h.stats.refreshes++;
      h.stats.served++;
      return slot;
    }
  } else if (slot && last - slot.tooLargeAt < h.settings.recheckAfter) {
    return undefined;
  }
  const fresh = new Resident(profile);
  h.stats.builds++;
  if (!fresh.load(raw, h.settings.maxObservations)) {
    h.stats.tooLarge++;
    h.profiles.set(profile, { tooLargeAt: last });
    return undefined;
  }
  h.profiles.set(profile, fresh);
  h.stats.served++;
  return fresh;
}
