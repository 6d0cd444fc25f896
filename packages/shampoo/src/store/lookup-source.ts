import type { Kysely } from "kernel";
import type { Caller } from "../access/caller.ts";
import type { Engine } from "../platform/engine.ts";
import { defineExtensionPoint } from "../platform/extend.ts";
import type { ShampooDB } from "./schema.ts";

/**
 * What find_by_title (tasks/lookup.ts, the memory_lookup_v2 ranking contract) searches: sources
 * of candidates. Tasks and notes are one source; any module may contribute another through
 * `lookupSources` (the knowledge graph contributes its entities: graph/index.ts), without the
 * tasks module knowing it. The types live here, in neither module.
 */

/**
 * all: every term must occur (query_tasks search; the last one as a prefix).
 * any: at least one term, each as a prefix (find_by_title's candidate prefilter).
 */
export type FtsMode = "all" | "any";

/**
 * find_by_title's word stages (tasks/lookup.ts): `title_phrase` — the terms in order, adjacent,
 * in the title; `title_words` — every term somewhere in the title; in both, the last term also as
 * a prefix (SQLite reads it from the title index's prefix indexes, 009). `phrase` — the terms in
 * order in any one field, whole words: on the four-field index a prefix is expanded by merging
 * the doclist of every word it starts, which for a frequent word costs more than the whole stage.
 */
export type WordStage = "title_phrase" | "title_words" | "phrase";

export interface LookupCandidate {
  id: string;
  /** false for finished content (done, archived, cancelled): ranks below all live entries. */
  live: boolean;
  updatedAt: string;
  /** Surface name → text (null = empty surface). */
  texts: Record<string, string | null>;
  /** The public fields of the match entry (kind, id, title, …). */
  fields: Record<string, unknown>;
}

/**
 * One walk of a word stage: its live, its finished or all its entries ("any", handed back newest
 * first), newest first, at most `n`.
 */
export interface WordWalk {
  stage: WordStage;
  live: boolean | "any";
  n: number;
}

export interface LookupSource {
  name: string;
  surfaces: string[];
  /**
   * Up to `pool` in-scope candidates the full-text index relates to `terms`: all of them (the
   * last as a prefix) or any of them (each as a prefix); best full-text rank first.
   */
  prefilter(terms: string[], raw: string, pool: number, mode: FtsMode): Promise<LookupCandidate[]>;
  /**
   * Optional: in-scope candidates with `terms` as whole words, for each walk up to `n` of its
   * stage (WordStage: a phrase in the title, every word in the title, a phrase in any field),
   * live ones or finished ones, newest first; a title phrase walk adds the entries whose whole
   * title is `raw`. A source without it takes part in the word stages through its prefilter.
   */
  wordStages?(terms: string[], raw: string, walks: WordWalk[]): Promise<LookupCandidate[]>;
  /** Up to `cap` in-scope candidates, live first, most recently updated first. */
  scan(cap: number): Promise<LookupCandidate[]>;
}

/** A contributed source, opened on find_by_title's read snapshot for its caller. */
export type LookupSourceFactory = (db: Kysely<ShampooDB>, engine: Engine, caller: Caller) => LookupSource;

/** find_by_title's sources beyond tasks and notes, in module order. */
export const lookupSources = defineExtensionPoint<LookupSourceFactory>("tasks.lookupSources");
