import type { Kysely, Transaction } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";

/**
 * Context governance queries (store/*.ts). Scope lives in the WHERE clause (profile, then the
 * project grants on the row's project), so a row the caller may not see is never loaded: missing
 * and foreign read the same. Writes take the write's transaction.
 */
export type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
export type Trx = Transaction<ShampooDB>;

/**
 * Caller-sized id lists never reach one IN list: SQLite binds at most 32,766 values a statement
 * (a chunk with 34,804 claims once failed explain_impact). `inBatches` runs `q` per slice.
 */
export const IN_BATCH = 500;
export async function inBatches<T>(ids: readonly string[], q: (slice: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += IN_BATCH) out.push(...(await q(ids.slice(i, i + IN_BATCH))));
  return out;
}
