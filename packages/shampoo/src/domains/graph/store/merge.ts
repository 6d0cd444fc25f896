import { type DialectName, directStatements, type Kysely, sql } from "kernel";
import type { WriteScope } from "../../../platform/write.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { Db } from "./rows.ts";

/**
 * SQLite's word indexes (FTS5) kept tidy: their segments are merged at open, after a bulk
 * import, and after any graph write that leaves too many of them (afterGraphWrite). A no-op on
 * PostgreSQL, whose GIN indexes need no such care. Merges bypass write() on purpose: they are
 * neither a caller's write nor audited.
 */

/** Pages of FTS5 merge work per step, and at most per tidySearchIndexes call. */
const MERGE_STEP_PAGES = 500;
export const TIDY_MAX_PAGES = 4000;

/**
 * SQLite: merges the word indexes' segments (FTS5 'merge' with usermerge 2, migration 007)
 * until no level holds two segments or `maxPages` pages were written per index, whichever
 * comes first.
 * FTS5's own automerge keeps up to three segments per level as rows are written; a term lookup
 * probes every segment, so search gets slower as they pile up (bulk writes pile up the most).
 * Bounded work, resumable: FTS5 keeps the state of an unfinished merge, so the next call goes
 * on where this one stopped. Run at open (app.ts) and after a bulk import. A no-op on
 * PostgreSQL, whose GIN indexes need no such care.
 */
export async function tidySearchIndexes(db: Db, dialect: DialectName, maxPages = TIDY_MAX_PAGES): Promise<void> {
  if (dialect !== "sqlite") return;
  const changes = async () =>
    Number((await sql<{ n: number }>`SELECT total_changes() AS n`.execute(db)).rows[0]?.n ?? 0);
  for (const t of WORD_INDEXES) {
    for (let pages = 0; pages < maxPages; pages += MERGE_STEP_PAGES) {
      const before = await changes();
      await sql`INSERT INTO ${sql.table(t)}(${sql.ref(t)}, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`.execute(db);
      // The command itself counts one change; more means it merged something (maybe not all).
      if ((await changes()) - before <= 1) break;
    }
  }
}

/** The word indexes of search_nodes (the trigram ones serve search_by_project only). */
const WORD_INDEXES = ["shampoo_entities_fts", "shampoo_observations_fts"] as const;

/** Pages of FTS5 merge work per word index and merge (scheduleMerge). */
export const WRITE_MERGE_PAGES = 8;
/**
 * A write has the word indexes merged once one has this many segments (needsMerge). From 4
 * on, one-entity creates sent back to back were 6–14 % slower at 1,000 entities (the merge
 * runs before the next request is read); from 8, merges are 2–3× rarer and take more segments
 * at once, and a search still probes far fewer than the dozen and more writes leave.
 */
export const MERGE_FROM_SEGMENTS = 8;

/**
 * The number of segments in an FTS5 structure record (the `%_data` row with id 10): a 4-byte
 * cookie, the 4-byte marker of the version 2 format when present, then the number of levels
 * and the number of segments as SQLite varints (fts5_index.c, "structure record"). Null when
 * the record does not read as one.
 */
export function structureSegments(block: Uint8Array): number | null {
  let i = 4;
  if (block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1) i += 4;
  const varint = (): number | null => {
    let v = 0;
    for (let k = 0; k < 9; k++) {
      const b = block[i++];
      if (b === undefined) return null;
      if (k === 8) return v * 256 + b;
      v = v * 128 + (b & 0x7f);
      if (b < 0x80) return v;
    }
    return null;
  };
  return varint() === null ? null : varint();
}

/**
 * SQLite: does a word index have MERGE_FROM_SEGMENTS segments or more? Read inside a write
 * transaction (directStatements), from the structure records; false on PostgreSQL.
 *
 * Every transaction that changes a word index flushes a new small segment. FTS5's own
 * automerge works in units of 64 leaf pages written, so one-row writes (create_entities with
 * one entity, add_observations) pile up a dozen segments and more before it merges any — and
 * every term lookup of every search probes each one (at 1,000 entities, after 210 one-entity
 * creates: 13 entity-index segments, an entity probe 3–6× slower than on one segment; at
 * 100,000 after 300 creates 21 and 15). A write that leaves this many has its indexes merged
 * right after it (scheduleMerge). PostgreSQL's GIN indexes need no such care (their pending
 * lists are kept small instead: schema.ts).
 */
export function needsMerge(db: Db): boolean {
  const direct = directStatements(db as Kysely<unknown>);
  if (!direct) return false;
  return WORD_INDEXES.some((t) => mergeDue(direct, t));
}

/** Has word index `t` MERGE_FROM_SEGMENTS segments or more (or a structure record that does not read)? */
function mergeDue(direct: NonNullable<ReturnType<typeof directStatements>>, t: string): boolean {
  const row = direct.prepare(`SELECT block FROM ${t}_data WHERE id = 10`).all([])[0] as
    | { block: Uint8Array }
    | undefined;
  const segments = row ? structureSegments(row.block) : null;
  return segments === null || segments >= MERGE_FROM_SEGMENTS;
}

/** The database a merge runs on (the graph's own, ctx.database). */
interface MergeTarget {
  transaction<T>(fn: (db: Kysely<ShampooDB>) => Promise<T>): Promise<T>;
}

const merges = new WeakMap<MergeTarget, Promise<void>>();

/**
 * SQLite: a bounded FTS5 'merge' (usermerge 2, at most WRITE_MERGE_PAGES pages) of each word
 * index with MERGE_FROM_SEGMENTS segments or more, in a transaction of its own that starts
 * once the current turn of the event loop is over — after the write that asked for it has
 * committed and its answer has been sent. The merge's CPU is spent all the same, but not
 * inside the write's latency (in a transaction of the write, it cost create_entities ~0.2 ms
 * at 1,000 entities: +13–15 % CPU). Bounded and resumable (an unfinished merge goes on at the
 * next one), so no merge is ever a whole-index rewrite; one at a time per database (writes in
 * the meantime join it); best effort: a failure (a closed database, a busy lock) is dropped,
 * and a later write asks again.
 */
export function scheduleMerge(database: MergeTarget): Promise<void> {
  const pending = merges.get(database);
  if (pending) return pending;
  const run = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() =>
      database.transaction(async (db) => {
        const direct = directStatements(db as Kysely<unknown>);
        if (!direct) return;
        for (const t of WORD_INDEXES) {
          if (mergeDue(direct, t))
            direct.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('merge', ${WRITE_MERGE_PAGES})`).run([]);
        }
      }),
    )
    .catch(() => {})
    .finally(() => merges.delete(database));
  merges.set(database, run);
  return run;
}

/** The merge scheduled or running on this database, if any (tests wait for it). */
export function pendingMerge(database: MergeTarget): Promise<void> {
  return merges.get(database) ?? Promise.resolve();
}

/**
 * Called by every graph write inside its write(): when the write left a word index with
 * MERGE_FROM_SEGMENTS segments or more, its indexes are merged right after the commit
 * (scheduleMerge). Not a write scope of its own: one plain check at the end of the write.
 */
export function afterGraphWrite(w: WriteScope): void {
  if (needsMerge(w.trx)) w.afterCommit(() => void scheduleMerge(w.ctx.database));
}
