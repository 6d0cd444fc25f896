import { mentionWords, phraseKey, STOPWORDS } from "../graph/model.ts";
import type { TaskRow } from "../tasks/schema.ts";
import type { TaskLinkRow } from "./schema.ts";

/**
 * Links' pure decisions (no ctx, no store; rules.test.ts beside): the explainable-pairwise-v1
 * contract (weights, thresholds, text rules) and the scoring of a task against entities whose
 * facts service/scoring.ts has read.
 */

/**
 * The explainable-pairwise-v1 contract: fixed signal weights, thresholds and text rules. A
 * change to any of them is a new model version, never a silent edit: decisions record the
 * version they were scored under, so labels stay comparable.
 */
export const MODEL_VERSION = "explainable-pairwise-v1";
export const ACCEPT_TOOL = "link_task_entity";
export const UNDO_AUTO_TOOL = "unlink_task_entity";

export const SIGNALS = [
  "exact_name",
  "alias",
  "fts",
  "project",
  "provenance",
  "graph",
  "temporal",
  "vector",
  "community",
] as const;
export type Signal = (typeof SIGNALS)[number];

/**
 * Fixed weights, summing to 1. Missing signals (vector and community have no model yet, so
 * their raw value is null) contribute 0; scores are not renormalised, so they stay comparable
 * across calls and versions. Name and alias mentions dominate; project, provenance and time
 * only corroborate.
 */
export const WEIGHTS: Record<Signal, number> = {
  exact_name: 0.25,
  alias: 0.2,
  fts: 0.15,
  project: 0.1,
  provenance: 0.04,
  graph: 0.15,
  temporal: 0.05,
  vector: 0.03,
  community: 0.03,
};

/** Signals that nominate an entity as a candidate; the others only corroborate. */
export const NOMINATING: readonly Signal[] = ["exact_name", "alias", "fts", "graph"];

/** Temporal closeness: raw = 1 / (1 + |Δdays| / 30) between task and entity creation. */
export const TEMPORAL_SCALE_DAYS = 30;
/** Graph raw values: the entity is a direct neighbour (1 hop) of an entity the task links to, or 2 hops away. */
export const GRAPH_ONE_HOP = 1;
export const GRAPH_TWO_HOP = 0.5;

/**
 * Auto-discovery: an exact name or alias mention and at least this score makes an auto link. A
 * name mentioned in a task of the entity's own project qualifies (0.25 + 0.10 + time); in
 * another project it needs keyword overlap or a graph path as well (same creator and time add
 * at most 0.09); a bare name mention never does.
 */
export const AUTO_LINK_MIN_SCORE = 0.35;
/** At most this many auto links per discovery pass (per task write). */
export const AUTO_LINK_MAX_PER_PASS = 3;
/**
 * A "silent high-confidence link": an auto link (no human made or confirmed it: a human link or
 * an accepted upgrade is link_type manual) whose score is at least this. Unlinking one records
 * an explicit rejection.
 */
export const HIGH_CONFIDENCE = 0.5;

export const SUGGEST_DEFAULT = 5;
export const SUGGEST_MAX = 50;
/** Task keywords considered (the longest ones), and observation rows scanned for overlap. */
export const MAX_KEYWORDS = 64;
export const PREFILTER_KEYWORDS = 16;
export const MAX_OBSERVATION_ROWS = 2000;

/**
 * Folded words of a text, in order (accents and case folded, like the graph's search), and a
 * text as a phrase key (folded words joined by one space): the graph's own rule, so the phrase
 * index it keeps (shampoo_entity_phrases) holds exactly the keys compared here.
 */
export const words = mentionWords;
export const phrase = phraseKey;

/** Does phrase key `needle` occur in `hay` on word boundaries? */
export function containsPhrase(hay: string, needle: string): boolean {
  return needle !== "" && ` ${hay} `.includes(` ${needle} `);
}

/** Distinct keywords: folded words of 2+ characters that are not stopwords. */
export function keywords(text: string): Set<string> {
  return new Set(words(text).filter((w) => w.length >= 2 && !STOPWORDS.has(w)));
}

/** A task's keywords: the MAX_KEYWORDS longest (ties alphabetical), so any script counts alike. */
export function taskKeywords(text: string): string[] {
  return [...keywords(text)].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_KEYWORDS);
}

export function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

const DAY_MS = 86_400_000;

/**
 * The explainable-pairwise-v1 scorer. For one task it scores every live entity the caller may
 * see on nine signals, each with its raw value (0..1, or null when the signal has no model yet),
 * fixed weight and contribution (raw × weight); the score is the sum. Deterministic: the same
 * data scores the same, in the same order. Everything it reads (entities, aliases,
 * observations, relations, links) is filtered to what the caller may see.
 *
 * - exact_name: the entity's name occurs as a whole phrase in the task's title, description or
 *   notes (accents, case and punctuation folded).
 * - alias: one of its aliases does.
 * - fts: full-text overlap, the share of the task's keywords (non-stopword words of 2+
 *   characters, the 64 longest) found among the entity's words (name, aliases, observations).
 *   Keywords that belong to a matched name or alias are left out of both sides of the share, so
 *   a mention is never counted twice.
 * - project: the entity and the task are in the same project (both untagged counts too).
 * - provenance: the same principal created both.
 * - graph: meta-path task → linked entity → relation → candidate: 1 for a direct neighbour of
 *   an entity the task already links to, 0.5 for two hops.
 * - temporal: 1 / (1 + |days between their creation| / 30).
 * - vector, community: no model yet; raw null, contribution 0 (include_vector is echoed only).
 *
 * An entity is a candidate only when a nominating signal (exact_name, alias, fts, graph) is
 * positive; project, provenance and time alone never nominate.
 */

export interface Signals {
  raw: Record<Signal, number | null>;
  weights: Record<Signal, number>;
  contributions: Record<Signal, number>;
}

export interface ExistingDecision {
  decision_id: string;
  decision: string;
  source: string;
  decided_at: string;
}

export interface Suggestion {
  entity_id: string;
  entity_name: string;
  entity_type: string;
  score: number;
  signals: Signals;
  reasons: string[];
  matched_aliases: string[];
  shared_keywords: string[];
  fts_rank: number | null;
  vector_rank: number | null;
  existing_decision: ExistingDecision | null;
  rank: number | null;
}

export interface Scoring {
  model_version: string;
  /** Ranked candidates the caller would be shown (already linked and rejected pairs left out). */
  suggestions: Suggestion[];
  /** The focus entity's scoring (link_task_entity), ranked among the suggestions if nominated. */
  focus: Suggestion | null;
  /** Every link row of the task (live and void), as read for the scoring. */
  links: TaskLinkRow[];
}

/** A task's text as the scorer reads it: title, description and notes, one per line. */
export function taskText(task: TaskRow): string {
  return [task.title, task.description, task.notes].filter((x): x is string => !!x).join("\n");
}

/**
 * Every phrase key a run of at most `maxWords` consecutive words of the text makes: the keys
 * a name or alias mentioned in it (containsPhrase) can have.
 */
export function textPhrases(text: string, maxWords: number): string[] {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i < w.length; i++) {
    let key = "";
    for (let n = 1; n <= maxWords && i + n <= w.length; n++) {
      key = n === 1 ? (w[i] as string) : `${key} ${w[i + n - 1]}`;
      out.add(key);
    }
  }
  return [...out];
}

/** An entity as the scorer reads it (store's EntityLite). */
export interface ScoredEntity {
  id: string;
  name: string;
  name_norm: string;
  entity_type: string;
  project: string | null;
  created_by: string;
  created_at: string;
  alias_text: string;
}

/** What the scorer knows about a task's neighbourhood, read under the caller's grants. */
export interface ScoringFacts {
  task: TaskRow;
  /** The entities scored, in the order read (the ranking breaks ties by name, then id). */
  entities: ScoredEntity[];
  /** Keywords of each entity's observations that mention a task keyword. */
  obsWords: Map<string, Set<string>>;
  /** Entities the task already links to (live, visible). */
  linked: Set<string>;
  /** Graph meta-path raw value and reasons per reached entity. */
  graph: Map<string, { raw: number; reasons: string[] }>;
  /** The latest decision of each pair, by entity id. */
  decisions: Map<string, ExistingDecision>;
  /** Scored whatever its signals and link state (link_task_entity's receipt). */
  focusId?: string | undefined;
}

/**
 * Scores and ranks the entities of `f` (the scorer described above): the suggestions (already
 * linked and rejected pairs left out, best first) and the focus entity's scoring, ranked among
 * the nominated candidates if a signal nominates it.
 */
export function rankEntities(f: ScoringFacts): { suggestions: Suggestion[]; focus: Suggestion | null } {
  const { task, entities, obsWords, linked, graph, decisions, focusId } = f;
  const text = taskText(task);
  const key = phrase(text);
  const terms = taskKeywords(text);
  const termSet = new Set(terms);
  const taskCreated = Date.parse(task.created_at);

  const score = (e: ScoredEntity): { s: Suggestion; nominated: boolean } => {
    const reasons: string[] = [];
    const exact = containsPhrase(key, phrase(e.name)) ? 1 : 0;
    if (exact) reasons.push("exact_name");
    const aliases = e.alias_text === "" ? [] : e.alias_text.split("\n").filter((a) => a !== "");
    const matched = aliases.filter((a) => containsPhrase(key, phrase(a))).sort();
    for (const a of matched) reasons.push(`alias:${a}`);
    // Words of a matched name or alias are not counted again as keyword overlap.
    const mentioned = new Set(
      [...(exact ? words(e.name) : []), ...matched.flatMap((a) => words(a))].filter((w) => termSet.has(w)),
    );
    const rest = terms.filter((t) => !mentioned.has(t));
    const own = keywords([e.name, ...aliases].join("\n"));
    for (const w of obsWords.get(e.id) ?? []) own.add(w);
    const shared = rest.filter((w) => own.has(w)).sort();
    const fts = rest.length === 0 ? 0 : round6(shared.length / rest.length);
    if (shared.length > 0) reasons.push(`shared_keywords:${shared.length}/${rest.length}`);
    const g = graph.get(e.id);
    if (g) reasons.push(...g.reasons);
    const project = e.project === task.project ? 1 : 0;
    if (project) reasons.push("same_project");
    const provenance = e.created_by === task.created_by ? 1 : 0;
    if (provenance) reasons.push("same_creator");
    const days = Math.abs(Date.parse(e.created_at) - taskCreated) / DAY_MS;
    const temporal = round6(1 / (1 + days / TEMPORAL_SCALE_DAYS));
    if (days <= 7) reasons.push("created_within_7_days");
    const raw: Record<Signal, number | null> = {
      exact_name: exact,
      alias: matched.length > 0 ? 1 : 0,
      fts,
      project,
      provenance,
      graph: g?.raw ?? 0,
      temporal,
      vector: null,
      community: null,
    };
    const contributions = {} as Record<Signal, number>;
    let total = 0;
    for (const sig of SIGNALS) {
      contributions[sig] = round6((raw[sig] ?? 0) * WEIGHTS[sig]);
      total += contributions[sig];
    }
    const nominated = NOMINATING.some((sig) => (raw[sig] ?? 0) > 0);
    return {
      nominated,
      s: {
        entity_id: e.id,
        entity_name: e.name,
        entity_type: e.entity_type,
        score: round6(total),
        signals: { raw, weights: { ...WEIGHTS }, contributions },
        reasons,
        matched_aliases: matched,
        shared_keywords: shared.slice(0, 10),
        fts_rank: null,
        vector_rank: null,
        existing_decision: decisions.get(e.id) ?? null,
        rank: null,
      },
    };
  };

  const ranked: Suggestion[] = [];
  const suggestions: Suggestion[] = [];
  let focus: Suggestion | null = null;
  for (const e of entities) {
    const isFocus = e.id === focusId;
    const excluded = linked.has(e.id) || decisions.get(e.id)?.decision === "rejected";
    if (!isFocus && excluded) continue;
    const { s, nominated } = score(e);
    if (isFocus) focus = s;
    if (!nominated) continue;
    ranked.push(s);
    if (!excluded) suggestions.push(s);
  }
  const norm = new Map(entities.map((e) => [e.id, e.name_norm]));
  const order = (a: Suggestion, b: Suggestion, by: (s: Suggestion) => number) =>
    by(b) - by(a) ||
    ((norm.get(a.entity_id) as string) < (norm.get(b.entity_id) as string) ? -1 : 1) ||
    (a.entity_id < b.entity_id ? -1 : 1);
  [...ranked]
    .filter((s) => (s.signals.raw.fts ?? 0) > 0)
    .sort((a, b) => order(a, b, (s) => s.signals.raw.fts ?? 0))
    .forEach((s, i) => {
      s.fts_rank = i + 1;
    });
  ranked.sort((a, b) => order(a, b, (s) => s.score));
  ranked.forEach((s, i) => {
    s.rank = i + 1;
  });
  // Without a focus the two lists hold the same entities; with one, ranks count the focus too.
  suggestions.sort((a, b) => order(a, b, (s) => s.score));
  return { suggestions, focus };
}
