import { type DialectName, sql } from "kernel";
import { fts5Quote, tsqueryQuote } from "../../../store/search-quote.ts";
import { compiledRows } from "./compiled.ts";
import type { Db } from "./rows.ts";

/**
 * The full-text probes of search_nodes and find_by_title, as match expressions of each engine:
 * FTS5 MATCH on SQLite, to_tsquery on PostgreSQL, and the prefix expansions SQLite answers
 * from its vocabulary tables. User text never reaches a query language as syntax: terms are
 * word characters only (model.ts parseQuery) and are quoted on top of that.
 */

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
export function expansionFor(db: Db, vocab: string, probes: Limited[], cache?: PrefixCache): Promise<string[] | null> {
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

/** One probe of a batch, with its own row limit. */
export interface Limited {
  probe: Probe;
  limit: number;
}

/** Rows of a batch of probes, tagged with the index of the probe that found them. */
export type Tagged<T> = T & { probe: number };

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

/** The bound values of a batch of probes: each one's match expression and row limit. */
export function probeValues(dialect: DialectName, probes: Limited[], words: string[] | null): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  probes.forEach((l, i) => {
    values[`match${i}`] = dialect === "sqlite" ? fts5Expr(l.probe, words) : tsqueryExpr(l.probe);
    values[`limit${i}`] = l.limit;
  });
  return values;
}
