import { createHash } from "node:crypto";
import { invalid } from "../../platform/errors.ts";
import type { AliasRow, Entity, GraphLifecycle, Observation, RelationRow } from "./schema.ts";

/**
 * Knowledge-graph vocabulary: name identity, visibility, the query tokenizer with its stopword
 * list, and the public shapes its history events record (entityView, …). Pure functions only.
 */

export const VISIBILITIES = ["shared", "private"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Longest name, type, alias and relation type accepted (characters). */
export const MAX_NAME = 500;
/** Longest observation accepted (characters). */
export const MAX_OBSERVATION = 100_000;

/** The identity key of a name: NFKC, trimmed, inner whitespace collapsed, lowercased. */
export function normalizeName(name: string): string {
  return name.normalize("NFKC").trim().replace(/\s+/gu, " ").toLowerCase();
}

/** A name as stored: trimmed, inner whitespace collapsed (case and letters kept as given). */
export function cleanName(name: string): string {
  return name.normalize("NFC").trim().replace(/\s+/gu, " ");
}

export function checkName(name: string, what = "entity name"): string {
  const clean = cleanName(name);
  if (!clean) throw invalid(`${what} must not be blank`);
  if (clean.length > MAX_NAME) throw invalid(`${what} is longer than ${MAX_NAME} characters`);
  return clean;
}

export function contentHash(content: string): string {
  return createHash("sha256").update(content, "utf8").digest("hex");
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Accent- and case-folded form used to compare words (mirrors unicode61 remove_diacritics 2). */
export function fold(word: string): string {
  return NON_ASCII.test(word) ? word.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase() : word.toLowerCase();
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Folded words of a text, in order (NFKC first, accents and case folded): what a mention is made of. */
export function mentionWords(text: string): string[] {
  return [...text.normalize("NFKC").matchAll(WORD)].map((m) => fold(m[0]));
}

/** A text as a phrase key: its folded words joined by one space ("" when it has none). */
export function phraseKey(text: string): string {
  return mentionWords(text).join(" ");
}

/** The words of a text, folded, with their offsets in the text. */
export function wordsAt(text: string): { word: string; at: number; len: number }[] {
  const out: { word: string; at: number; len: number }[] = [];
  for (const m of text.matchAll(WORD)) out.push({ word: fold(m[0]), at: m.index, len: m[0].length });
  return out;
}

/**
 * The stopword list ("en-basic-v1"): short English function words that match nearly every
 * observation and carry no topic. They are dropped from search_nodes queries; a query made of
 * nothing else still runs, against names, aliases and types only (query_status stopwords_only).
 */
export const STOPWORD_LIST_NAME = "en-basic-v1";
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below between
  both but by can could did do does doing down during each few for from further had has have having he her here
  hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
  off on once only or other our ours ourselves out over own same she should so some such than that the their
  theirs them themselves then there these they this those through to too under until up very was we were what
  when where which while who whom why will with would you your yours yourself yourselves`
    .split(/\s+/)
    .filter(Boolean),
);

/** At most this many distinct terms of a query are used (the rest are ignored). */
export const MAX_TERMS = 16;
const MAX_TERM_CHARS = 64;
/**
 * The last word of a query, when it is a meaningful term this long or longer, also matches as a
 * word prefix ("stale vend" finds "Stale Vendor"): people type the start of the word they
 * remember last. Earlier words are whole words (prefix expansion of every word would make the
 * index merge the postings of every word sharing the prefix).
 */
export const PREFIX_MIN = 3;

export type QueryStatus = "blank" | "ok" | "stopwords_only" | "no_terms";

export interface ParsedQuery {
  raw: string;
  /** Distinct folded terms actually searched for. */
  terms: string[];
  /** Distinct folded terms that were not stopwords (what search_nodes reports). */
  meaningful: string[];
  /** The query's words that were dropped as stopwords, in order, distinct. */
  stopwords: string[];
  /** Each term's spellings: the folded term and the lowercased word as typed (e.g. cafe, café). */
  forms: Record<string, string[]>;
  /** The term that also matches as a word prefix (see PREFIX_MIN), if any. */
  prefix: string | null;
  status: QueryStatus;
}

/** Every spelling of the given terms, distinct. */
export function formsOf(q: ParsedQuery, terms: string[] = q.terms): string[] {
  return [...new Set(terms.flatMap((t) => q.forms[t] ?? [t]))];
}

export function parseQuery(raw: string): ParsedQuery {
  const trimmed = raw.trim();
  const forms: Record<string, string[]> = {};
  if (trimmed === "") return { raw, terms: [], meaningful: [], stopwords: [], forms, prefix: null, status: "blank" };
  const all: string[] = [];
  let last = "";
  for (const m of trimmed.normalize("NFKC").matchAll(WORD)) {
    const w = fold(m[0]).slice(0, MAX_TERM_CHARS);
    if (!w) continue;
    last = w;
    const typed = m[0].toLowerCase().slice(0, MAX_TERM_CHARS);
    if (!all.includes(w)) all.push(w);
    const f = forms[w] ?? [w];
    if (!f.includes(typed)) f.push(typed);
    forms[w] = f;
  }
  const meaningful = all.filter((w) => !STOPWORDS.has(w)).slice(0, MAX_TERMS);
  const stopwords = all.filter((w) => STOPWORDS.has(w));
  // A query ending in a word character may be a word still being typed.
  const prefix =
    /[\p{L}\p{N}\p{M}]$/u.test(trimmed) && meaningful.includes(last) && last.length >= PREFIX_MIN ? last : null;
  if (all.length === 0) return { raw, terms: [], meaningful, stopwords, forms, prefix: null, status: "no_terms" };
  if (meaningful.length === 0)
    return {
      raw,
      terms: stopwords.slice(0, MAX_TERMS),
      meaningful,
      stopwords,
      forms,
      prefix: null,
      status: "stopwords_only",
    };
  return { raw, terms: meaningful, meaningful, stopwords, forms, prefix, status: "ok" };
}

/** Does a folded word match a folded term (equal, or starting with it for the prefix term)? */
export function wordMatches(word: string, term: string, prefix: string | null): boolean {
  return word === term || (term === prefix && word.startsWith(term));
}

const isAsciiWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);

/** The terms found in a text as words (see wordMatches), and where the first hit is. */
export function termHits(
  text: string,
  terms: string[],
  prefix: string | null,
): { found: Set<string>; first: number; count: number } {
  const found = new Set<string>();
  let first = -1;
  let count = 0;
  if (terms.length === 0) return { found, first, count };
  if (!NON_ASCII.test(text)) {
    // ASCII text (the common case): find each term with indexOf and check the word boundaries,
    // instead of tokenizing and folding every word.
    const low = text.toLowerCase();
    for (const t of terms) {
      if (NON_ASCII.test(t)) continue;
      for (let i = low.indexOf(t); i >= 0; i = low.indexOf(t, i + 1)) {
        if (i > 0 && isAsciiWordChar(low.charCodeAt(i - 1))) continue;
        const end = i + t.length;
        if (t !== prefix && end < low.length && isAsciiWordChar(low.charCodeAt(end))) continue;
        found.add(t);
        count++;
        if (first < 0 || i < first) first = i;
      }
    }
    return { found, first, count };
  }
  for (const w of wordsAt(text)) {
    for (const t of terms) {
      if (wordMatches(w.word, t, prefix)) {
        found.add(t);
        count++;
        if (first < 0) first = w.at;
        break;
      }
    }
  }
  return { found, first, count };
}

export function checkVisibility(v: unknown): Visibility | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "string" && (VISIBILITIES as readonly string[]).includes(v)) return v as Visibility;
  throw invalid(`visibility must be one of ${VISIBILITIES.join(", ")}`);
}

/** Aliases as given: strings, cleaned, blank and duplicate (by identity key) ones dropped. */
export function cleanAliases(list: unknown, name: string): { alias: string; norm: string }[] {
  if (!Array.isArray(list)) return [];
  const own = normalizeName(name);
  const out: { alias: string; norm: string }[] = [];
  for (const a of list) {
    if (typeof a !== "string") continue;
    const alias = cleanName(a);
    if (!alias || alias.length > MAX_NAME) continue;
    const norm = normalizeName(alias);
    if (norm === own || out.some((x) => x.norm === norm)) continue;
    out.push({ alias, norm });
  }
  return out;
}

/** Observation texts as given: strings only, blank ones skipped, exact text kept otherwise. */
export function cleanContents(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  const out = list.filter((c): c is string => typeof c === "string" && c.trim() !== "");
  if (out.some((c) => c.length > MAX_OBSERVATION))
    throw invalid(`an observation is longer than ${MAX_OBSERVATION} characters`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The audited public shapes of graph rows (history old/new)

/** The lifecycle columns of a graph row, as its history views show them. */
function lifeView(r: GraphLifecycle): Record<string, unknown> {
  return {
    lifecycle: r.lifecycle,
    voided_at: r.voided_at,
    voided_by: r.voided_by,
    void_reason: r.void_reason,
    revived_at: r.revived_at,
    revived_by: r.revived_by,
  };
}

export function entityView(e: Entity): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    entityType: e.entity_type,
    project: e.project,
    visibility: e.visibility,
    aliases: e.alias_text === "" ? [] : e.alias_text.split("\n"),
    created_at: e.created_at,
    created_by: e.created_by,
    updated_at: e.updated_at,
    ...lifeView(e),
  };
}

export function observationView(o: Observation): Record<string, unknown> {
  return { id: o.id, entity_id: o.entity_id, content: o.content, ord: o.ord, ...lifeView(o) };
}

export function relationView(r: RelationRow): Record<string, unknown> {
  return { id: r.id, from_id: r.from_id, to_id: r.to_id, relationType: r.relation_type, ...lifeView(r) };
}

/** An alias's creation event records only its identity (aliases are never changed). */
export function aliasView(a: AliasRow): Record<string, unknown> {
  return { id: a.id, entity_id: a.entity_id, alias: a.alias };
}
