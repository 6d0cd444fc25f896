/**
 * User text as one literal term of a full-text query language, never as its syntax: the one
 * quoting rule of every search (tasks/fts.ts, graph/store/search.ts).
 */

/** An FTS5 string: double quotes, `"` doubled (operators, `*`, `:` and parentheses inside are text). */
export const fts5Quote = (t: string): string => `"${t.replaceAll('"', '""')}"`;

/** A to_tsquery lexeme: single quotes, `\` and `'` escaped (operators inside are text). */
export const tsqueryQuote = (t: string): string => `'${t.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
