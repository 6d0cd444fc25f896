import type { DialectName } from "kernel";

/**
 * A blank description (only spaces, tabs, newlines, carriage returns: rules/detect.ts BLANK) as
 * SQL per engine, written identically in the partial index (schema.ts) and the audit's read
 * (scan.ts) so that each engine proves the index covers the query.
 */
export const BLANK_SQL: Record<DialectName, (col: string) => string> = {
  sqlite: (col) => `trim(${col}, char(32, 9, 10, 13))`,
  postgres: (col) => `btrim(${col}, E' \\t\\n\\r')`,
};
