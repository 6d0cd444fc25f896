import { mentionWords, phraseKey, STOPWORDS } from "../graph/model.ts";

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
