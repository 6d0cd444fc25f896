import type { LookupCandidate, LookupSource } from "../../../store/lookup-source.ts";
import { type FtsMode, searchTerms, type WordStage } from "../store/fts.ts";
import { cell, table } from "./markdown.ts";

/**
 * Remembered-phrase lookup under the memory_lookup_v2 ranking contract (find_by_title).
 *
 * Sources are pluggable: tasks and notes are one source (surfaces title, description, notes,
 * project); the knowledge graph adds an entity source (surfaces name, observations,
 * entity_type, project) without touching the scorer. A source offers a cheap prefilter (its
 * full-text index narrows the candidate pool) and a bounded scan of everything the caller may
 * see; both load only in-scope rows.
 *
 * Scoring, per surface: the match quality (exact, whole phrase, phrase at a word start,
 * substring inside a word, spacing-insensitive, all words, most words) times the surface weight.
 * An entry's score is its best surface plus a tenth of the others (corroboration). Confidence
 * comes from the score; finished entries rank below every live entry whatever their score.
 */

export const RANKING_CONTRACT_VERSION = "memory_lookup_v2";
export const LOOKUP_STRATEGIES = ["fts_prefilter", "full_scan_fallback"] as const;
export type LookupStrategy = (typeof LOOKUP_STRATEGIES)[number];

/** Surface weights (the score of an exact match there) and tie-break priority. */
export const SURFACES: Record<string, { weight: number; priority: number }> = {
  title: { weight: 100, priority: 7 },
  name: { weight: 100, priority: 6 },
  description: { weight: 60, priority: 5 },
  observations: { weight: 55, priority: 4 },
  notes: { weight: 45, priority: 3 },
  project: { weight: 40, priority: 2 },
  entity_type: { weight: 30, priority: 1 },
};

/** Match quality of the fragment against one surface's text, 0..1. */
export const QUALITY = {
  exact: 1,
  phrase: 0.9,
  word_prefix: 0.8,
  substring: 0.7,
  compact: 0.6,
  all_words: 0.55,
  /** times the fraction of words found; needs at least half of them */
  some_words: 0.3,
} as const;

/** Shortest fragment (or word) that may match part of a word. */
export const MIN_PARTIAL = 3;

/** Confidence floors on the entry score. */
export const CONFIDENCE = { high: 70, medium: 40 } as const;
export type Confidence = "high" | "medium" | "low";

export type { LookupCandidate, LookupSource, WordWalk } from "../../../store/lookup-source.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, controls included
const ASCII = /^[\x00-\x7f]*$/;

/** Accent-, case- and punctuation-insensitive words joined by single spaces. */
export function normalizeLookup(text: string): string {
  // ASCII is its own NFKD form and has no marks; its letters and digits are [a-z0-9] once
  // lowercased: the same result without the Unicode passes (most text, scored per candidate).
  if (ASCII.test(text))
    return text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

interface Query {
  norm: string;
  compact: string;
  words: string[];
  /** The lowercased fragment, for fragments without any word character ("c++" keeps "c"). */
  rawLower: string;
}

function prepare(fragment: string): Query {
  const norm = normalizeLookup(fragment);
  return {
    norm,
    compact: norm.replaceAll(" ", ""),
    words: norm ? norm.split(" ") : [],
    rawLower: fragment.toLowerCase(),
  };
}

export function matchQuality(fragment: string, text: string | null): number {
  return quality(prepare(fragment), text);
}

function quality(q: Query, text: string | null): number {
  if (text === null || text === "") return 0;
  if (q.norm === "") return text.toLowerCase().includes(q.rawLower) ? QUALITY.substring : 0;
  const t = normalizeLookup(text);
  if (t === "") return 0;
  if (t === q.norm) return QUALITY.exact;
  const padded = ` ${t} `;
  if (padded.includes(` ${q.norm} `)) return QUALITY.phrase;
  // Partial-word matches need a few characters: "c" or "ad" inside words is noise, not memory.
  const partial = q.norm.length >= MIN_PARTIAL;
  if (partial && padded.includes(` ${q.norm}`)) return QUALITY.word_prefix;
  if (partial && t.includes(q.norm)) return QUALITY.substring;
  if (q.words.length > 1 && q.compact.length >= MIN_PARTIAL && t.replaceAll(" ", "").includes(q.compact))
    return QUALITY.compact;
  if (q.words.length > 1) {
    // A word found as a word or a word's start is found as a substring: with fewer than half
    // of them substrings of the text, no word rule can apply (spares the split and the set
    // for most rows of a full scan).
    let present = 0;
    for (const w of q.words) if (t.includes(w)) present++;
    if (present * 2 < q.words.length) return 0;
    const list = t.split(" ");
    const tw = new Set(list);
    const has = (w: string) => tw.has(w) || (w.length >= MIN_PARTIAL && list.some((x) => x.startsWith(w)));
    const hits = q.words.filter(has).length;
    if (hits === q.words.length) return QUALITY.all_words;
    if (hits * 2 >= q.words.length) return (QUALITY.some_words * hits) / q.words.length;
  }
  return 0;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function confidenceOf(score: number): Confidence {
  if (score >= CONFIDENCE.high) return "high";
  if (score >= CONFIDENCE.medium) return "medium";
  return "low";
}

interface Scored {
  candidate: LookupCandidate;
  score: number;
  surfaceScores: Record<string, number>;
  matchedIn: string[];
  confidence: Confidence;
}

function scoreCandidate(q: Query, c: LookupCandidate, surfaces: string[]): Scored | undefined {
  const hits: [string, number][] = [];
  for (const s of surfaces) {
    const rule = SURFACES[s];
    if (!rule) continue;
    const v = round2(rule.weight * quality(q, c.texts[s] ?? null));
    if (v > 0) hits.push([s, v]);
  }
  if (hits.length === 0) return undefined;
  hits.sort((x, y) => y[1] - x[1] || (SURFACES[y[0]]?.priority ?? 0) - (SURFACES[x[0]]?.priority ?? 0));
  const [best, ...rest] = hits;
  const score = round2((best?.[1] ?? 0) + 0.1 * rest.reduce((s, h) => s + h[1], 0));
  return {
    candidate: c,
    score,
    surfaceScores: Object.fromEntries(hits),
    matchedIn: hits.map((h) => h[0]),
    confidence: confidenceOf(score),
  };
}

/** Scores once per call: a candidate read again by a later stage is the same row. */
type ScoreCache = Map<string, Scored | null>;

function scoreAll(
  q: Query,
  batches: { source: LookupSource; candidates: LookupCandidate[] }[],
  cache: ScoreCache = new Map(),
): Scored[] {
  const out: Scored[] = [];
  const seen = new Set<string>();
  for (const { source, candidates } of batches) {
    for (const c of candidates) {
      const key = `${source.name}:${c.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      let s = cache.get(key);
      if (s === undefined) {
        s = scoreCandidate(q, c, source.surfaces) ?? null;
        cache.set(key, s);
      }
      if (s) out.push(s);
    }
  }
  // Live before finished; then score; then the stronger surface; then most recent; then id.
  return out.sort(
    (x, y) =>
      Number(y.candidate.live) - Number(x.candidate.live) ||
      y.score - x.score ||
      (SURFACES[y.matchedIn[0] ?? ""]?.priority ?? 0) - (SURFACES[x.matchedIn[0] ?? ""]?.priority ?? 0) ||
      (x.candidate.updatedAt < y.candidate.updatedAt ? 1 : x.candidate.updatedAt > y.candidate.updatedAt ? -1 : 0) ||
      (x.candidate.id < y.candidate.id ? -1 : x.candidate.id > y.candidate.id ? 1 : 0),
  );
}

/** Candidate pool of the prefilter: five per requested match, at least 50, at most 500. */
export function poolSize(limit: number): number {
  return Math.min(500, Math.max(50, limit * 5));
}

export const MARKDOWN_HEADER = ["#", "Kind", "Title", "Status", "Project", "Matched in", "Confidence", "Score"];

/**
 * Looks a fragment up across sources, in stages, each a full-text query:
 * 1. Word stages, the fragment's words as whole words (the last also as a prefix in the title):
 *    a phrase in the title, every word in the title, a phrase in any field. Each reads the live
 *    entries, newest first, at most `pool`; the lookup stops as soon as the candidates hold
 *    `limit` live entries of medium or high confidence (finished entries rank below them all,
 *    and the later stages' entries score lower: a phrase in the title scores 90 or more, every
 *    word in the title 55 or more). Otherwise the finished entries of each stage whose live
 *    ones did not fill `pool` follow (newest first, at most `pool`), and any entry of medium or
 *    high confidence answers, as stage 2's every-word query does. Nothing is ranked or sorted.
 * 2. Otherwise the entries with every word (the last as a prefix), then, if that yields no entry
 *    of medium or high confidence, the entries with any word (each as a prefix), cut by the
 *    source's full-text rank; the word stages' candidates stay in.
 * 3. When no stage yields an entry of medium or high confidence (nothing found, or only weak
 *    hits, e.g. the fragment sits inside words), every source is scanned instead (bounded by
 *    `scanCap` rows per source).
 * When some entry reaches medium confidence, low-confidence entries are hidden and counted in
 * hidden_low_confidence_count; when none does, the low ones are shown as the best available.
 */
export async function lookup(
  sources: LookupSource[],
  fragment: string,
  limit: number,
  scanCap: number,
): Promise<Record<string, unknown>> {
  const query = fragment.trim();
  const base = { query, ranking_contract_version: RANKING_CONTRACT_VERSION };
  if (query === "") {
    return {
      matches: [],
      count: 0,
      ...base,
      hidden_low_confidence_count: 0,
      markdown: "",
      message: "Empty title fragment",
    };
  }
  const q = prepare(query);
  const terms = searchTerms(query);
  const pool = poolSize(limit);
  let strategy: LookupStrategy = "fts_prefilter";
  const confident = (s: Scored) => s.confidence !== "low";
  // What each source has contributed so far, and its prefilter answers (a source without title
  // stages answers its first stage-2 query there, and again in stage 2: read once).
  const gathered = new Map<LookupSource, LookupCandidate[]>(sources.map((s) => [s, []]));
  const prefiltered = new Map<string, Promise<LookupCandidate[]>>();
  const prefilter = (source: LookupSource, mode: FtsMode) => {
    const key = `${source.name}:${mode}`;
    let p = prefiltered.get(key);
    if (!p) {
      p = source.prefilter(terms, query, pool, mode);
      prefiltered.set(key, p);
    }
    return p;
  };
  const batches = () => sources.map((source) => ({ source, candidates: gathered.get(source) ?? [] }));
  let scored: Scored[] = [];
  let filled = false;
  const cache: ScoreCache = new Map();
  if (terms.length > 0 && sources.some((s) => s.wordStages)) {
    // A one-word fragment: a phrase in the title and every word in the title are one query.
    const stages: WordStage[] =
      terms.length === 1 ? ["title_phrase", "phrase"] : ["title_phrase", "title_words", "phrase"];
    for (const source of sources) {
      if (!source.wordStages)
        gathered.get(source)?.push(...(await prefilter(source, terms.length === 1 ? "any" : "all")));
    }
    const full = () => scored.filter((s) => s.candidate.live && confident(s)).length >= limit;
    // Live entries, stage by stage, until they fill the answer; only then, if they did not, the
    // finished ones of every stage whose live entries did not fill its pool (one query), which
    // rank below them all.
    const liveFound = new Map<string, number>();
    // The last stage (a phrase in any field) walks the four-field index, the costly walk: one
    // walk of every status, 2 × pool newest, gives both its live and its finished entries when
    // the stage has fewer matches (its finished ones wait until the live ones are judged).
    const finishedAhead = new Map<string, LookupCandidate[]>();
    const last = stages[stages.length - 1];
    for (const stage of stages) {
      for (const source of sources) {
        if (!source.wordStages) continue;
        const key = `${source.name}:${stage}`;
        let found: LookupCandidate[];
        if (stage === last) {
          const all = await source.wordStages(terms, query, [{ stage, live: "any", n: 2 * pool }]);
          found = all.filter((c) => c.live).slice(0, pool);
          const finished = all.filter((c) => !c.live).slice(0, pool);
          // Every match read, or the newest `pool` of a kind: that kind is complete.
          const complete = all.length < 2 * pool;
          if (!complete && found.length < pool)
            found = await source.wordStages(terms, query, [{ stage, live: true, n: pool }]);
          if (complete || finished.length >= pool) finishedAhead.set(key, finished);
        } else found = await source.wordStages(terms, query, [{ stage, live: true, n: pool }]);
        liveFound.set(key, found.length);
        gathered.get(source)?.push(...found);
      }
      scored = scoreAll(q, batches(), cache);
      if (full()) {
        filled = true;
        break;
      }
    }
    if (!filled) {
      for (const source of sources) {
        // A stage whose live entries filled its pool has no room for finished ones. `pool` is
        // the same for every call of a limit, so the statement's text is too (its LIMITs are
        // literals on SQLite): one cached statement per set of stages, not one per count.
        const open = stages.filter((stage) => (liveFound.get(`${source.name}:${stage}`) ?? pool) < pool);
        for (const stage of open) gathered.get(source)?.push(...(finishedAhead.get(`${source.name}:${stage}`) ?? []));
        const walks = open
          .filter((stage) => !finishedAhead.has(`${source.name}:${stage}`))
          .map((stage) => ({ stage, live: false, n: pool }));
        if (source.wordStages && walks.length > 0)
          gathered.get(source)?.push(...(await source.wordStages(terms, query, walks)));
      }
      scored = scoreAll(q, batches(), cache);
      filled = scored.some(confident);
    }
  }
  if (!filled) {
    // Narrow first (every word), then wider (any word): a remembered phrase usually has all its
    // words in one entry, and the narrow pass spares ranking every row that shares one common word.
    const stages: FtsMode[] = terms.length === 0 ? [] : terms.length === 1 ? ["any"] : ["all", "any"];
    for (const mode of stages) {
      const found = await Promise.all(
        sources.map(async (source) => ({
          source,
          candidates: [...(gathered.get(source) ?? []), ...(await prefilter(source, mode))],
        })),
      );
      scored = scoreAll(q, found, cache);
      if (scored.some(confident)) break;
    }
    if (!scored.some(confident)) {
      strategy = "full_scan_fallback";
      const all = await Promise.all(
        sources.map(async (source) => ({ source, candidates: await source.scan(scanCap) })),
      );
      scored = scoreAll(q, all, cache);
    }
  }
  const sure = scored.filter(confident);
  const visible = sure.length > 0 ? sure : scored;
  const shown = visible.slice(0, limit);
  const matches: (Record<string, unknown> & { matched_in: string[]; confidence: Confidence; score: number })[] =
    shown.map((s) => ({
      ...s.candidate.fields,
      score: s.score,
      matched_in: s.matchedIn,
      surface_scores: s.surfaceScores,
      primary_surface: s.matchedIn[0],
      confidence: s.confidence,
      ranking_contract_version: RANKING_CONTRACT_VERSION,
    }));
  const markdown =
    matches.length === 0
      ? ""
      : table(
          MARKDOWN_HEADER,
          matches.map((m, i) => [
            String(i + 1),
            cell(String(m.kind ?? "")),
            cell(String(m.title ?? "")),
            cell((m.status ?? m.entity_type ?? null) as string | null),
            cell((m.project ?? null) as string | null),
            m.matched_in.join(", "),
            m.confidence,
            String(m.score),
          ]),
        );
  return {
    matches,
    count: matches.length,
    ...base,
    hidden_low_confidence_count: scored.length - visible.length,
    lookup_strategy: strategy,
    markdown,
    message: matches.length === 0 ? "No title matches" : null,
  };
}
