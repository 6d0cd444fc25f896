import { fold, normalizeName, type ParsedQuery, termHits } from "../model.ts";
import type { Entity } from "../schema.ts";
import type { Limited, Probe } from "../store/probes.ts";
import type { EntityHit, HeadRow, ObservationHit } from "../store/search.ts";

/**
 * search_nodes and search_by_project.
 *
 * Ranking (both tools): for every query term, a hit in the entity's name counts 4, in one of its
 * aliases 3, in its type 2, in one of its live observations 1 (a term counts once per field).
 * A query equal to the whole name adds 8, equal to a whole alias 6. Tie-breaks worth less than
 * one observation hit: matching observations in the pool (0.1 each in search_nodes, 0.05 in
 * search_by_project, at most 0.5). Equal scores order by name.
 *
 * search_nodes matches words (the query's last word, when three characters or longer, also as a
 * word prefix), search_by_project matches substrings; both fold case and accents.
 *
 * search_nodes retrieval is bounded (store/search.ts): one probe requiring every term and, for a query of
 * several terms, one probe per term (the longest TERM_PROBES terms), so that a rare term is not
 * drowned by a common one; each probe streams at most a fixed number of matches, and the
 * probes of one step (all-terms, then per-term), entity and observation indexes alike, run as
 * one statement. A probe that hits its limit marks the result degraded "pool_capped" (more
 * matches exist than were considered).
 */

export const SEARCH_DEFAULT_BUDGET = 16_000;
/** How many characters of an observation a search reads first (see `refills`). */
export const HEAD_CHARS = 500;
export const BLANK_LIST_LIMIT = 50;
export const WEIGHTS = { name: 4, alias: 3, type: 2, observation: 1, exactName: 8, exactAlias: 6 } as const;

/** Evidence window: at most this many characters of an observation around its first hit. */
export const WINDOW_CHARS = 240;
/** Windows per entity: evidence-bearing observations first (found), first observations otherwise. */
export const FOUND_WINDOWS = 3;
export const PLAIN_WINDOWS = 2;
/** Pool sizes: entity-document matches, observation matches (at most OBS_PER_ENTITY each). */
export const ENTITY_POOL = 48;
export const OBS_POOL = 128;
export const OBS_PER_ENTITY = 4;
/** Per-term probes of a several-term query (the longest terms first), and their limits. */
const TERM_PROBES = 8;
const TERM_ENTITY_LIMIT = 8;
const TERM_OBS_LIMIT = 24;
/** Matched candidates kept after ranking (entities_considered counts them plus neighbours). */
export const CANDIDATES = 48;
/** The best matches whose one-hop neighbours join the pool, and how many neighbours at most. */
export const SEEDS = 8;
export const NEIGHBOURS = 16;
export const PROJECT_POOL = 200;
export const PROJECT_RESULTS = 50;

export type EvidenceStatus = "found" | "name_match" | "not_located" | "neighbour" | "listed";

export interface Hit {
  obs_id: string;
  ord: number;
  text: string;
  /** The text is the whole observation (not only its head). */
  complete: boolean;
  len: number;
  found: Set<string>;
  first: number;
}

export interface Candidate {
  id: string;
  name: string;
  name_norm: string;
  entity_type: string;
  project: string | null;
  alias_text: string;
  kind: "match" | "neighbour" | "listed";
  score: number;
  hits: Hit[];
  entityHits: number;
  fieldHit: boolean;
  /** No hit holds a query term: the entity shows its first observations (heads) instead. */
  plain: boolean;
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** Unicode code points of a string: what "characters" means for the wire budget. */
export function charCount(s: string): number {
  if (!HIGH_SURROGATE.test(s)) return s.length; // the common case, scanned natively
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n--;
      i++;
    }
  }
  return n;
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * A short excerpt of `text` around position `first` (the first hit; -1: the head). Cut edges
 * are marked with "…"; a cut never splits a surrogate pair, and the start moves to the next
 * word when one begins within a few characters.
 */
export function excerpt(text: string, first: number, complete: boolean): string {
  if (complete && text.length <= WINDOW_CHARS) return text;
  let start = first <= 0 ? 0 : Math.max(0, first - Math.floor(WINDOW_CHARS / 4));
  let end = Math.min(text.length, start + WINDOW_CHARS);
  if (end - start < WINDOW_CHARS) start = Math.max(0, end - WINDOW_CHARS);
  if (start > 0) {
    const space = text.slice(start, Math.min(first < 0 ? start + 16 : first, start + 16)).search(/\s/u);
    if (space >= 0) start += space + 1;
    if (isLow(text.charCodeAt(start))) start++;
  }
  if (end < text.length && isLow(text.charCodeAt(end))) end--;
  const more = end < text.length || !complete;
  return (start > 0 ? "…" : "") + text.slice(start, end) + (more ? "…" : "");
}

export const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function fieldScore(
  c: Candidate,
  q: ParsedQuery,
  whole: string,
  obsFound: Set<string>,
): { score: number; fieldHit: boolean } {
  const name = termHits(c.name, q.terms, q.prefix).found;
  const alias = termHits(c.alias_text, q.terms, q.prefix).found;
  const type = termHits(c.entity_type, q.terms, q.prefix).found;
  let score = 0;
  let fieldHit = false;
  for (const t of q.terms) {
    const inName = name.has(t);
    const inAlias = alias.has(t);
    const inType = type.has(t);
    if (inName || inAlias || inType) fieldHit = true;
    score +=
      (inName ? WEIGHTS.name : 0) +
      (inAlias ? WEIGHTS.alias : 0) +
      (inType ? WEIGHTS.type : 0) +
      (obsFound.has(t) ? WEIGHTS.observation : 0);
  }
  if (whole === c.name_norm) score += WEIGHTS.exactName;
  else if (c.alias_text !== "" && c.alias_text.split("\n").some((a) => normalizeName(a) === whole))
    score += WEIGHTS.exactAlias;
  return { score, fieldHit };
}

export function toHit(h: { obs_id: string; ord: number; head: string; len: number }, q: ParsedQuery | null): Hit {
  const th = termHits(h.head, q?.terms ?? [], q?.prefix ?? null);
  return {
    obs_id: h.obs_id,
    ord: h.ord,
    text: h.head,
    complete: h.len <= HEAD_CHARS,
    len: h.len,
    found: th.found,
    first: th.first,
  };
}

/** A candidate of `kind` with no score and no evidence yet. */
export function blankCandidate(
  e: Pick<Entity, "id" | "name" | "name_norm" | "entity_type" | "project" | "alias_text">,
  kind: Candidate["kind"],
): Candidate {
  return {
    id: e.id,
    name: e.name,
    name_norm: e.name_norm,
    entity_type: e.entity_type,
    project: e.project,
    alias_text: e.alias_text,
    kind,
    score: 0,
    hits: [],
    entityHits: 0,
    fieldHit: false,
    plain: false,
  };
}

/** The probes of a query: probe 0 requires every term; probes 1.. take one term each. */
export interface ProbePlan {
  entityProbes: Limited[];
  obsProbes: Limited[];
  /** The prefix term both word indexes expand (null: none). */
  prefix: string | null;
}

/**
 * The probes of a query, each with its row limit (one more than it keeps, so that an overflow
 * shows): the all-terms probe, then one per term for a query of several terms (the longest
 * TERM_PROBES terms first). `wordsOnly` (a query of stopwords only): entity probes only.
 */
export function probePlan(q: ParsedQuery, wordsOnly: boolean): ProbePlan {
  const probe = (terms: string[]): Probe => ({ terms, forms: q.forms, prefix: q.prefix });
  const perTerm = q.terms.length > 1 ? [...q.terms].sort((a, b) => b.length - a.length).slice(0, TERM_PROBES) : [];
  const entityProbes: Limited[] = [
    { probe: probe(q.terms), limit: ENTITY_POOL + 1 },
    ...perTerm.map((t) => ({ probe: probe([t]), limit: TERM_ENTITY_LIMIT + 1 })),
  ];
  const obsProbes: Limited[] = wordsOnly
    ? []
    : [
        { probe: probe(q.terms), limit: OBS_POOL + 1 },
        ...perTerm.map((t) => ({ probe: probe([t]), limit: TERM_OBS_LIMIT + 1 })),
      ];
  return { entityProbes, obsProbes, prefix: q.prefix !== null && q.terms.includes(q.prefix) ? q.prefix : null };
}

/**
 * The per-term probes still worth running after the all-terms ones returned these many rows: a
 * per-term probe only fills what the all-terms probe left, so when the all-terms probe overflows
 * its limit (the pool is full and already marked capped) its per-term probes could change
 * nothing (a common term's probe is the expensive one).
 */
export function followUps(plan: ProbePlan, entityRows: number, obsRows: number): { ep: Limited[]; op: Limited[] } {
  return {
    ep: entityRows <= ENTITY_POOL ? plan.entityProbes.slice(1) : [],
    op: obsRows <= OBS_POOL ? plan.obsProbes.slice(1) : [],
  };
}

export interface Pool {
  entities: EntityHit[];
  observations: ObservationHit[];
  capped: boolean;
}

/**
 * The bounded pool from the probes' rows (tagged with their probe's index): rows of the
 * all-terms probe first, then the per-term probes in order, each probe's rows beyond its limit
 * dropped (the pool is then capped), at most ENTITY_POOL entities and OBS_POOL observations.
 */
export function takePool(
  plan: ProbePlan,
  ents: (EntityHit & { probe: number })[],
  obs: (ObservationHit & { probe: number })[],
): Pool {
  let capped = false;
  const entities = new Map<string, EntityHit>();
  const observations = new Map<string, ObservationHit>();
  const take = <T extends { probe: number }>(rows: T[], probes: Limited[], keep: (row: T) => void) => {
    rows.sort((x, y) => x.probe - y.probe); // stable: each probe's own order is kept
    const counts = new Array<number>(probes.length).fill(0);
    for (const r of rows) {
      const limit = (probes[r.probe] as Limited).limit - 1;
      if (++(counts[r.probe] as number) > limit) {
        capped = true;
        continue;
      }
      keep(r);
    }
  };
  take(ents, plan.entityProbes, (e) => {
    if (entities.size < ENTITY_POOL && !entities.has(e.id)) entities.set(e.id, e);
  });
  take(obs, plan.obsProbes, (o) => {
    if (observations.size < OBS_POOL && !observations.has(o.obs_id)) observations.set(o.obs_id, o);
  });
  return { entities: [...entities.values()], observations: [...observations.values()], capped };
}

/**
 * The pool's entities as scored candidates, best first, at most CANDIDATES (see the module
 * comment); `affinity` is search_nodes' project hint: it breaks ties only.
 */
export function rankPool(
  pool: Pool,
  q: ParsedQuery,
  affinity: string | null = null,
): { ranked: Candidate[]; more: boolean } {
  const byId = new Map<string, Candidate>();
  for (const e of pool.entities) byId.set(e.id, blankCandidate(e, "match"));
  for (const h of pool.observations) {
    let c = byId.get(h.entity_id);
    if (!c) {
      c = blankCandidate({ ...h, id: h.entity_id }, "match");
      byId.set(h.entity_id, c);
    }
    c.entityHits++;
    if (c.hits.length < OBS_PER_ENTITY) c.hits.push(toHit(h, q));
  }
  const whole = normalizeName(q.raw); // the whole query as a name (exact-name and exact-alias bonuses)
  for (const c of byId.values()) {
    const obsFound = new Set(c.hits.flatMap((h) => [...h.found]));
    const f = fieldScore(c, q, whole, obsFound);
    c.fieldHit = f.fieldHit;
    c.score = round3(f.score + Math.min(0.5, 0.1 * c.entityHits));
  }
  // search_nodes' project hint is an affinity, never a filter: it orders equal scores only, so it
  // never lifts an entity above a better match nor lets in anything that did not match.
  const near = (c: Candidate) => (affinity !== null && c.project === affinity ? 1 : 0);
  const ranked = [...byId.values()].sort(
    (x, y) => y.score - x.score || near(y) - near(x) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
  return { ranked: ranked.slice(0, CANDIDATES), more: ranked.length > CANDIDATES };
}

/** How far the best match stands above the second: (first - second) / first; undefined without two. */
export function jumpOf(candidates: Candidate[]): number | undefined {
  const first = candidates[0];
  const second = candidates[1];
  if (first?.kind === "match" && second && first.score > 0) return round3((first.score - second.score) / first.score);
  return undefined;
}

/**
 * Keeps the best FOUND_WINDOWS hits of each candidate; returns the hits whose head hid the
 * query's terms (their full text is read and given to `refilled`).
 */
export function bestHits(candidates: Candidate[]): Hit[] {
  const refill: Hit[] = [];
  for (const c of candidates) {
    c.hits = c.hits.sort((x, y) => y.found.size - x.found.size || x.ord - y.ord).slice(0, FOUND_WINDOWS);
    for (const h of c.hits) if (h.found.size === 0 && !h.complete) refill.push(h);
  }
  return refill;
}

/** A refilled hit: its full text, searched again for the query's terms. */
export function refilled(h: Hit, full: string, q: ParsedQuery): void {
  const th = termHits(full, q.terms, q.prefix);
  Object.assign(h, { text: full, complete: true, found: th.found, first: th.first });
}

/**
 * Candidates whose hits hold query terms show those; the others ("plain") show their first
 * observations, read later (the pack's heads) and only for the candidates the pack can reach.
 */
export function settleEvidence(candidates: Candidate[]): void {
  for (const c of candidates) {
    if (c.hits.some((h) => h.found.size > 0)) {
      c.hits = c.hits.filter((h) => h.found.size > 0).sort((x, y) => x.ord - y.ord);
    } else {
      c.hits = [];
      c.plain = true;
    }
  }
}

/** The first observations (heads) of plain candidates become their hits. */
export function giveHeads(plain: Candidate[], heads: HeadRow[]): void {
  const headsOf = new Map<string, HeadRow[]>();
  for (const h of heads) {
    const list = headsOf.get(h.entity_id) ?? [];
    list.push(h);
    headsOf.set(h.entity_id, list);
  }
  for (const c of plain) c.hits = (headsOf.get(c.id) ?? []).map((h) => toHit(h, null));
}

export function evidenceStatus(c: Candidate): EvidenceStatus {
  if (c.kind === "listed") return "listed";
  if (c.kind === "neighbour") return "neighbour";
  if (c.hits.some((h) => h.found.size > 0)) return "found";
  return c.fieldHit ? "name_match" : "not_located";
}

export interface SearchRecord {
  name: string;
  entityType: string;
  observations: string[];
  project?: string;
  _evidence_status: EvidenceStatus;
}

export function toRecord(c: Candidate): SearchRecord {
  return {
    name: c.name,
    entityType: c.entity_type,
    observations: c.hits.map((h) => excerpt(h.text, h.first, h.complete)),
    ...(c.project === null ? {} : { project: c.project }),
    _evidence_status: evidenceStatus(c),
  };
}

// ------------------------------------------------------------------------------------------------
// search_by_project

/**
 * search_by_project's score of an entity and its live observations for the query's folded
 * terms (substring matches; 0 for a blank query: listing order only).
 */
export function projectScore(
  e: Pick<Entity, "name" | "alias_text" | "entity_type" | "name_norm">,
  texts: string[],
  q: ParsedQuery,
  terms: string[],
  whole: string,
): number {
  let score = 0;
  if (q.status === "blank") return score;
  const name = fold(e.name);
  const alias = fold(e.alias_text);
  const type = fold(e.entity_type);
  const foldedObs = texts.map(fold);
  for (const t of terms) {
    score +=
      (name.includes(t) ? WEIGHTS.name : 0) +
      (alias.includes(t) ? WEIGHTS.alias : 0) +
      (type.includes(t) ? WEIGHTS.type : 0) +
      (foldedObs.some((o) => o.includes(t)) ? WEIGHTS.observation : 0);
  }
  if (whole === e.name_norm) score += WEIGHTS.exactName;
  else if (e.alias_text.split("\n").some((x) => x !== "" && normalizeName(x) === whole)) score += WEIGHTS.exactAlias;
  const matching = foldedObs.filter((o) => terms.some((t) => o.includes(t))).length;
  score += Math.min(0.5, 0.05 * matching);
  return round3(score);
}
