import { sql } from "kernel";
import type { Engine } from "../../../platform/engine.ts";
import type { FtsMode, WordStage } from "../../../store/lookup-source.ts";
import { fts5Quote, tsqueryQuote } from "../../../store/search-quote.ts";

/**
 * Full-text search over tasks and notes, one small adapter per engine. Both sides index the same
 * four fields (store/schema.ts): SQLite through the FTS5 external-content table
 * shampoo_tasks_fts(title, description, notes, project) joined on rowid and ranked with bm25;
 * PostgreSQL through the generated tsvector column `search` (weights A title, B description,
 * C notes + project) ranked with ts_rank_cd.
 *
 * User text never reaches either query language as syntax: it is cut into word terms
 * (letters, digits, combining marks) and each term is quoted, so FTS5 operators (AND, OR, NEAR,
 * quotes, `*`, `:`, `^`, parentheses) and tsquery operators (`&`, `|`, `!`, `<->`) in the input
 * are plain text. The last term also matches as a prefix ("read" finds "README"), since people
 * type the start of the word they remember.
 */

type Raw<T> = ReturnType<typeof sql<T>>;

export const MAX_TERMS = 16;
const MAX_TERM_CHARS = 64;

/** Word terms of a search text, lowercased, in order; at most MAX_TERMS. */
export function searchTerms(text: string): string[] {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  return words.slice(0, MAX_TERMS).map((w) => w.slice(0, MAX_TERM_CHARS));
}

/** An FTS5 MATCH expression: quoted phrases, "" escaping, `*` marking a prefix. */
export type { FtsMode, WordStage };

export function fts5Match(terms: string[], mode: FtsMode): string {
  const quoted = terms.map((t, i) => {
    const q = fts5Quote(t);
    return mode === "any" || i === terms.length - 1 ? `${q}*` : q;
  });
  return quoted.join(mode === "all" ? " AND " : " OR ");
}

/** A to_tsquery text: quoted lexemes, `:*` marking a prefix. */
export function tsqueryText(terms: string[], mode: FtsMode): string {
  const quoted = terms.map((t, i) => {
    const q = tsqueryQuote(t);
    return mode === "any" || i === terms.length - 1 ? `${q}:*` : q;
  });
  return quoted.join(mode === "all" ? " & " : " | ");
}

/**
 * The SQL pieces of one search, for a query whose FROM is shampoo_tasks:
 * - join/on: SQLite joins the FTS5 hits (a subquery aliased `fts`) on rowid;
 * - where: PostgreSQL filters on the tsvector column instead;
 * - rank: relevance, higher is better. Ranks compare within one result only: bm25 and
 *   ts_rank_cd have different scales.
 */
export interface FtsSql {
  join?: ReturnType<Raw<unknown>["as"]>;
  on?: Raw<boolean>;
  where?: Raw<boolean>;
  rank: Raw<number>;
}

/**
 * A word stage on SQLite: the FTS5 table to walk (009's title-only index for the title stages,
 * the four-field one otherwise) and its MATCH expression.
 */
export function fts5WordStage(terms: string[], stage: WordStage): { table: string; match: string } {
  const title = stage !== "phrase";
  const quoted = terms.map((t, i) => {
    const q = fts5Quote(t);
    return title && i === terms.length - 1 ? `${q}*` : q;
  });
  return {
    table: title ? "shampoo_tasks_title_fts" : "shampoo_tasks_fts",
    match: quoted.join(stage === "title_words" ? " AND " : " + "),
  };
}

/**
 * A word stage's to_tsquery text on PostgreSQL: for the title stages, over
 * to_tsvector('simple', title) (009's index), the last term also as a prefix; for `phrase`, over
 * the task's tsvector.
 */
export function tsqueryWordStage(terms: string[], stage: WordStage): string {
  const title = stage !== "phrase";
  return terms
    .map((t, i) => {
      const q = tsqueryQuote(t);
      return title && i === terms.length - 1 ? `${q}:*` : q;
    })
    .join(stage === "title_words" ? " & " : " <-> ");
}

/** bm25 column weights (title, description, notes, project): a title hit outranks a notes hit. */
export const BM25_WEIGHTS = sql.raw("10.0, 4.0, 2.0, 1.0");

/**
 * `raw` is the user's text as typed; PostgreSQL also parses it with its own parser
 * (plainto_tsquery, OR-ed in), so tokens it keeps whole — e-mail addresses, version numbers like
 * 2.1 — still match their indexed lexeme. `terms` must not be empty.
 */
export function ftsSql(engine: Engine, terms: string[], raw: string, mode: FtsMode): FtsSql {
  if (terms.length === 0) throw new Error("ftsSql needs at least one term");
  if (engine.dialect === "sqlite") {
    const match = fts5Match(terms, mode);
    return {
      join: sql`(SELECT rowid AS fts_rowid, -bm25(shampoo_tasks_fts, ${BM25_WEIGHTS}) AS fts_rank FROM shampoo_tasks_fts WHERE shampoo_tasks_fts MATCH ${match})`.as(
        "fts",
      ),
      on: sql<boolean>`fts.fts_rowid = shampoo_tasks.rowid`,
      rank: sql<number>`fts.fts_rank`,
    };
  }
  const query = sql`(to_tsquery('simple', ${tsqueryText(terms, mode)}) || plainto_tsquery('simple', ${raw}))`;
  return {
    where: sql<boolean>`shampoo_tasks.search @@ ${query}`,
    rank: sql<number>`ts_rank_cd(shampoo_tasks.search, ${query})`,
  };
}
