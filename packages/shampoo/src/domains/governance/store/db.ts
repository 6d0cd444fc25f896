import type { Kysely, Transaction } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";

/**
 * Context governance queries (store/*.ts). Scope lives in the WHERE clause (profile, then the
 * project grants on the row's project), so a row the caller may not see is never loaded: missing
 * and foreign read the same. Writes take the write's transaction.
 */
export type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
export type Trx = Transaction<ShampooDB>;
