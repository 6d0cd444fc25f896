import type { DialectName } from "kernel";
import { canSee, projectValue } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import type { Engine } from "../../platform/engine.ts";
import { read } from "../../platform/write.ts";
import {
  type EntityHit,
  firstObservations,
  fullTexts,
  HEAD_CHARS,
  type HeadRow,
  type Limited,
  neighbours,
  type ObservationHit,
  type Probe,
  poolHits,
  prefixExpansions,
  projectListing,
  substringPool,
} from "./fts.ts";
import { fold, formsOf, normalizeName, type ParsedQuery, parseQuery, termHits } from "./model.ts";
import type { Entity } from "./schema.ts";
import { readNoted } from "./service.ts";
import { type Db, type GraphScope, graphScopeOf, liveSql, observationsOf } from "./store.ts";

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
 * search_nodes retrieval is bounded (fts.ts): one probe requiring every term and, for a query of
 * several terms, one probe per term (the longest TERM_PROBES terms), so that a rare term is not
 * drowned by a common one; each probe streams at most a fixed number of matches, and the
 * probes of one step (all-terms, then per-term), entity and observation indexes alike, run as
 * one statement. A probe that hits its limit marks the result degraded "pool_capped" (more
 * matches exist than were considered).
 */

export const SEARCH_DEFAULT_BUDGET = 16_000;
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
const OBS_PER_ENTITY = 4;
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

interface Hit {
  obs_id: string;
  ord: number;
  text: string;
  /** The text is the whole observation (not only its head). */
  complete: boolean;
  len: number;
  found: Set<string>;
  first: number;
}

interface Candidate {
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

const round3 = (n: number) => Math.round(n * 1000) / 1000;

function fieldScore(
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

function toHit(h: { obs_id: string; ord: number; head: string; len: number }, q: ParsedQuery | null): Hit {
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

interface Pool {
  entities: EntityHit[];
  observations: ObservationHit[];
  capped: boolean;
}

/** The bounded candidate pool of a query (see the module comment). */
async function retrieve(
  db: Db,
  dialect: DialectName,
  s: GraphScope,
  q: ParsedQuery,
  wordsOnly: boolean,
): Promise<Pool> {
  const probe = (terms: string[]): Probe => ({ terms, forms: q.forms, prefix: q.prefix });
  // Probe 0 requires every term; probes 1.. take one term each (the longest terms first).
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
  // The all-terms probes run first. A per-term probe only fills what the all-terms probe left:
  // when the all-terms probe overflows its limit, the pool is full and already marked capped, so
  // its per-term probes could change nothing and are not run (a common term's probe is the
  // expensive one). The entity and observation probes of each step share one statement, and
  // the prefix's expansions in both vocabularies are read once, in one statement, up front.
  const words = await prefixExpansions(
    db,
    dialect,
    q.prefix !== null && q.terms.includes(q.prefix) ? q.prefix : null,
    !wordsOnly,
  );
  const step = (ep: Limited[], op: Limited[], from: number) => poolHits(db, dialect, s, ep, op, from, words);
  const first = await step(entityProbes.slice(0, 1), obsProbes.slice(0, 1), 0);
  const ents = first.entities;
  const obs = first.observations;
  const moreEntities = ents.length <= ENTITY_POOL ? entityProbes.slice(1) : [];
  const moreObs = obs.length <= OBS_POOL ? obsProbes.slice(1) : [];
  if (moreEntities.length + moreObs.length > 0) {
    const more = await step(moreEntities, moreObs, 1);
    for (const e of more.entities) ents.push(e);
    for (const o of more.observations) obs.push(o);
  }
  let capped = false;
  const entities = new Map<string, EntityHit>();
  const observations = new Map<string, ObservationHit>();
  // Rows of the all-terms probe first, then the per-term probes in order.
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
  take(ents, entityProbes, (e) => {
    if (entities.size < ENTITY_POOL && !entities.has(e.id)) entities.set(e.id, e);
  });
  take(obs, obsProbes, (o) => {
    if (observations.size < OBS_POOL && !observations.has(o.obs_id)) observations.set(o.obs_id, o);
  });
  return { entities: [...entities.values()], observations: [...observations.values()], capped };
}

interface Accounting {
  entities_considered: number;
  entities_returned: number;
  observations_returned: number;
  truncated: boolean;
  budget_wire_chars: number;
  wire_chars: number;
  status: "ok" | "truncated" | "degraded" | "no_results";
  degraded: string[];
  jump?: number;
  refills: number;
  query_status: string;
  meaningful_terms: string[];
  stopword_list: string[];
}

/** Everything search_nodes gathers before packing. */
interface Gathered {
  candidates: Candidate[];
  degraded: string[];
  refills: number;
  jump?: number;
}

async function gather(db: Db, engine: Engine, s: GraphScope, q: ParsedQuery): Promise<Gathered> {
  const dialect = engine.dialect;
  const degraded: string[] = [];
  let candidates: Candidate[] = [];
  const blankCandidate = (
    e: Pick<Entity, "id" | "name" | "name_norm" | "entity_type" | "project" | "alias_text">,
    kind: Candidate["kind"],
  ): Candidate => ({
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
  });

  if (q.status === "blank") {
    const rows = await db
      .selectFrom("shampoo_entities as e")
      .select(["e.id", "e.name", "e.name_norm", "e.entity_type", "e.project", "e.alias_text"])
      .where("e.profile", "=", s.profile)
      .where("e.lifecycle", "=", "live")
      .where(liveSql("e", s))
      .orderBy("e.name")
      .orderBy("e.id")
      .limit(BLANK_LIST_LIMIT)
      .execute();
    candidates = rows.map((e) => blankCandidate(e, "listed"));
  } else if (q.terms.length > 0) {
    const wordsOnly = q.status === "stopwords_only";
    if (wordsOnly) degraded.push("stopwords_only");
    const pool = await retrieve(db, dialect, s, q, wordsOnly);
    if (pool.capped) degraded.push("pool_capped");
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
    const ranked = [...byId.values()].sort(
      (x, y) => y.score - x.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
    );
    if (ranked.length > CANDIDATES && !degraded.includes("pool_capped")) degraded.push("pool_capped");
    candidates = ranked.slice(0, CANDIDATES);
  }

  let jump: number | undefined;
  const first = candidates[0];
  const second = candidates[1];
  if (first?.kind === "match" && second && first.score > 0) jump = round3((first.score - second.score) / first.score);

  // One-hop expansion from the best matches: only live entities the caller may see.
  if (candidates.length > 0 && candidates[0]?.kind === "match") {
    const seeds = candidates.slice(0, SEEDS).map((c) => c.id);
    const seedRank = new Map(seeds.map((id, i) => [id, i]));
    const known = new Set(candidates.map((c) => c.id));
    const limit = NEIGHBOURS + candidates.length;
    const rows = await neighbours(db, s, seeds, limit);
    const fresh = rows
      .filter((r) => !known.has(r.id))
      .sort((x, y) => (seedRank.get(x.seed) ?? 99) - (seedRank.get(y.seed) ?? 99));
    const added: Candidate[] = [];
    for (const r of fresh) {
      if (added.length >= NEIGHBOURS) break;
      if (known.has(r.id)) continue;
      known.add(r.id);
      added.push(blankCandidate(r, "neighbour"));
    }
    candidates.push(...added);
  }

  // Evidence: the best hit observations of each match; refill the ones whose head hid the hit.
  const refill: Hit[] = [];
  for (const c of candidates) {
    c.hits = c.hits.sort((x, y) => y.found.size - x.found.size || x.ord - y.ord).slice(0, FOUND_WINDOWS);
    for (const h of c.hits) if (h.found.size === 0 && !h.complete) refill.push(h);
  }
  if (refill.length > 0) {
    const texts = await fullTexts(
      db,
      refill.map((h) => h.obs_id),
    );
    for (const h of refill) {
      const full = texts.get(h.obs_id);
      if (full === undefined) continue;
      const th = termHits(full, q.terms, q.prefix);
      Object.assign(h, { text: full, complete: true, found: th.found, first: th.first });
    }
  }
  // Candidates whose hits hold query terms show those; the others ("plain") show their first
  // observations, read later (loadHeads) and only for the candidates the pack can reach.
  for (const c of candidates) {
    if (c.hits.some((h) => h.found.size > 0)) {
      c.hits = c.hits.filter((h) => h.found.size > 0).sort((x, y) => x.ord - y.ord);
    } else {
      c.hits = [];
      c.plain = true;
    }
  }
  return { candidates, degraded, refills: refill.length, ...(jump === undefined ? {} : { jump }) };
}

/** The first PLAIN_WINDOWS live observations of these plain candidates become their hits. */
async function loadHeads(db: Db, dialect: DialectName, plain: Candidate[]): Promise<void> {
  const ids = plain.map((c) => c.id);
  const heads = await firstObservations(db, dialect, ids, PLAIN_WINDOWS);
  const headsOf = new Map<string, HeadRow[]>();
  for (const h of heads) {
    const list = headsOf.get(h.entity_id) ?? [];
    list.push(h);
    headsOf.set(h.entity_id, list);
  }
  for (const c of plain) c.hits = (headsOf.get(c.id) ?? []).map((h) => toHit(h, null));
}

function evidenceStatus(c: Candidate): EvidenceStatus {
  if (c.kind === "listed") return "listed";
  if (c.kind === "neighbour") return "neighbour";
  if (c.hits.some((h) => h.found.size > 0)) return "found";
  return c.fieldHit ? "name_match" : "not_located";
}

/**
 * search_nodes with the result's exact JSON (`text`, equal to JSON.stringify(result)), spliced
 * from the pieces the pack serialized anyway to measure them: the tool sends it as its text
 * block instead of serializing the whole result a second time.
 */
export async function searchNodesText(
  ctx: ShampooCtx,
  a: Record<string, unknown>,
): Promise<{ result: Record<string, unknown>; text: string }> {
  const query = String(a.query);
  const budget = a.budget === undefined ? SEARCH_DEFAULT_BUDGET : Number(a.budget);
  // `project` is accepted for compatibility and deliberately unused: it neither narrows nor boosts.
  const q = parseQuery(query);
  const s = graphScopeOf(ctx.caller);
  // The pack runs inside the read: the first observations of plain candidates are read only for
  // the candidates the budget can reach (loadHeads).
  return readNoted(ctx, "search_nodes", async (db, engine) => {
    const g = await gather(db, engine, s, q);
    const packed = await pack(db, engine.dialect, g, query, q, budget);
    return {
      ids: g.candidates.slice(0, packed.returned).map((c) => c.id),
      result: { result: packed.result, text: packed.text },
    };
  });
}

interface SearchRecord {
  name: string;
  entityType: string;
  observations: string[];
  project?: string;
  _evidence_status: EvidenceStatus;
}

function toRecord(c: Candidate): SearchRecord {
  return {
    name: c.name,
    entityType: c.entity_type,
    observations: c.hits.map((h) => excerpt(h.text, h.first, h.complete)),
    ...(c.project === null ? {} : { project: c.project }),
    _evidence_status: evidenceStatus(c),
  };
}

/** Packs the candidates in rank order under the budget (see the module comment and docs). */
async function pack(
  db: Db,
  dialect: DialectName,
  g: Gathered,
  query: string,
  q: ParsedQuery,
  budget: number,
): Promise<{ result: Record<string, unknown>; text: string; returned: number }> {
  const candidates = g.candidates;
  const degraded = [...g.degraded];
  const statuses = candidates.map(evidenceStatus);
  if (statuses.includes("not_located")) degraded.push("evidence_not_located");
  const considered = candidates.length;

  const accounting = (returned: number, observations: number): Accounting => {
    const truncated = returned < considered;
    return {
      entities_considered: considered,
      entities_returned: returned,
      observations_returned: observations,
      truncated,
      budget_wire_chars: budget,
      wire_chars: 0,
      status: considered === 0 ? "no_results" : truncated ? "truncated" : degraded.length > 0 ? "degraded" : "ok",
      degraded,
      ...(g.jump === undefined ? {} : { jump: g.jump }),
      refills: g.refills,
      query_status: q.status,
      meaningful_terms: q.meaningful,
      stopword_list: q.stopwords,
    };
  };
  const envelopeJson = (acct: Accounting) => JSON.stringify({ entities: [], query, _accounting: acct });
  const envelope = (acct: Accounting) => charCount(envelopeJson(acct));
  // The size of the whole serialized result: the envelope with no entities plus each entity's
  // JSON and its separating comma. wire_chars sits inside what it measures, so it is settled by
  // a fixpoint (its own digits can change the length it reports).
  const settle = (acct: Accounting, entityChars: number): Accounting => {
    for (let i = 0; i < 8; i++) {
      const size = envelope(acct) + entityChars;
      if (size === acct.wire_chars) break;
      acct.wire_chars = size;
    }
    return acct;
  };

  // Which candidates the pack can reach at all: a plain candidate's record without its
  // observations, and the smallest envelope (status "ok", truncated true, every count 0), are
  // lower bounds of their sizes; the first candidate whose lower-bound prefix exceeds the budget
  // is never packed, nor is any after it. Only the plain candidates before it get their heads.
  // Records are made (and serialized) only up to the reach: past it nothing is packed.
  const records: SearchRecord[] = [];
  const jsons: string[] = [];
  const sizes: number[] = [];
  let reach = considered;
  let low = envelope({ ...accounting(0, 0), truncated: true, status: "ok" });
  for (let i = 0; i < considered; i++) {
    const r = toRecord(candidates[i] as Candidate);
    const json = JSON.stringify(r);
    records.push(r);
    jsons.push(json);
    sizes.push(charCount(json));
    low += (sizes[i] as number) + (i > 0 ? 1 : 0);
    if (low > budget) {
      reach = i;
      break;
    }
  }
  const plain = candidates.slice(0, reach).filter((c) => c.plain);
  if (plain.length > 0) {
    await loadHeads(db, dialect, plain);
    for (let i = 0; i < reach; i++) {
      if (!(candidates[i] as Candidate).plain) continue;
      records[i] = toRecord(candidates[i] as Candidate);
      jsons[i] = JSON.stringify(records[i]);
      sizes[i] = charCount(jsons[i] as string);
    }
  }

  // An upper bound of the envelope's size whatever the pack becomes (every count at its largest,
  // the longest status, a wire_chars longer than any result): while the entities packed so far
  // plus this bound fit the budget, the exact fixpoint is not needed to know that they fit.
  // Candidates past the reach have no heads loaded: they count PLAIN_WINDOWS each.
  const bound = { ...accounting(considered, 0), truncated: false, status: "no_results" as const };
  bound.observations_returned = candidates.reduce(
    (n, c, i) => n + (i >= reach && c.plain ? PLAIN_WINDOWS : c.hits.length),
    0,
  );
  bound.wire_chars = Number.MAX_SAFE_INTEGER;
  const envelopeBound = envelope(bound);
  const packed: SearchRecord[] = [];
  let entityChars = 0;
  let observations = 0;
  for (let i = 0; i < reach; i++) {
    const r = records[i] as SearchRecord;
    const size = (sizes[i] as number) + (packed.length > 0 ? 1 : 0);
    const fits =
      envelopeBound + entityChars + size <= budget ||
      settle(accounting(packed.length + 1, observations + r.observations.length), entityChars + size).wire_chars <=
        budget;
    if (!fits) break; // over budget: the pack stops here (truncated)
    packed.push(r);
    entityChars += size;
    observations += r.observations.length;
  }
  const acct = settle(accounting(packed.length, observations), entityChars);
  // The result's JSON: the envelope's, with the packed records' JSON (already made above) inside
  // its empty entities array — exactly JSON.stringify of the result (tested).
  const env = envelopeJson(acct);
  const open = '{"entities":[';
  return {
    result: { entities: packed, query, _accounting: acct },
    text: `${open}${jsons.slice(0, packed.length).join(",")}${env.slice(open.length)}`,
    returned: packed.length,
  };
}

// ------------------------------------------------------------------------------------------------
// search_by_project

export async function searchByProject(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const query = String(a.query);
  const projectArg = String(a.project);
  const project = projectValue(projectArg); // "" is the untagged enclave; "*" is rejected
  const empty = { entities: [] as unknown[], query, project: projectArg };
  if (!canSee(ctx.caller, project)) return empty;
  const s = graphScopeOf(ctx.caller);
  const q = parseQuery(query);
  const terms = q.status === "no_terms" ? [fold(query.trim())] : q.terms;
  const subs =
    q.status === "no_terms" ? [...new Set([query.trim().toLowerCase(), fold(query.trim())])] : formsOf(q, terms);
  const ranked = await read(ctx, async (db, engine) => {
    const ids =
      q.status === "blank"
        ? await projectListing(db, s, project, PROJECT_RESULTS)
        : await substringPool(db, engine.dialect, s, project, subs, PROJECT_POOL);
    if (ids.length === 0) return [];
    const rows = await db.selectFrom("shampoo_entities").selectAll().where("id", "in", ids).execute();
    const obs = await observationsOf(db, ids);
    const whole = normalizeName(query);
    const scored = rows.map((e) => {
      const texts = obs.get(e.id) ?? [];
      let score = 0;
      if (q.status !== "blank") {
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
        else if (e.alias_text.split("\n").some((x) => x !== "" && normalizeName(x) === whole))
          score += WEIGHTS.exactAlias;
        const matching = foldedObs.filter((o) => terms.some((t) => o.includes(t))).length;
        score += Math.min(0.5, 0.05 * matching);
      }
      return { e, texts, score: round3(score) };
    });
    return scored
      .filter((x) => q.status === "blank" || x.score > 0)
      .sort((x, y) => y.score - x.score || (x.e.name < y.e.name ? -1 : x.e.name > y.e.name ? 1 : 0))
      .slice(0, PROJECT_RESULTS);
  });
  return {
    entities: ranked.map((x) => ({
      name: x.e.name,
      entityType: x.e.entity_type,
      project: projectArg,
      observations: x.texts,
      _score: x.score,
    })),
    query,
    project: projectArg,
  };
}
