import { randomUUID } from "node:crypto";
import { type Kysely, logger, snapshot, type Transaction, type TransactionOptions, transact } from "kernel";
import type { ShampooCtx } from "../context.ts";
import { deferHistory, type Mutation, recordEvents } from "../store/history.ts";
import type { ShampooDB } from "../store/schema.ts";
import type { Engine } from "./engine.ts";

const log = logger("write");

/** What a write's function gets: its transaction, its time, its events and its hooks. */
export interface WriteScope {
  trx: Transaction<ShampooDB>;
  ctx: ShampooCtx;
  /** The injected clock read once: every row and event of the write carries the same time. */
  now: number;
  engine: Engine;
  /**
   * Records a history event of this write and returns its id (rows may point at it at once);
   * `eventId` is taken when given (a row already inserted with it). The events are written at
   * the end of the transaction with one clock bump.
   */
  event(m: Mutation & { eventId?: string }): Promise<string>;
  /** How many recorded events are not written yet. */
  pendingEvents(): number;
  /**
   * Writes the recorded events now, with their clock bump, instead of at the end: for bulk
   * writes (an import) that must not hold every event in memory. Each flush bumps the clock
   * once; the rest of the write's events still go at the end.
   */
  flushEvents(): Promise<number>;
  /** Runs after the commit (never after a rollback); a failing hook is logged, the write stands. */
  afterCommit(hook: () => void | Promise<void>): void;
}

/**
 * The one write path: `fn` runs in one transaction (SQLite BEGIN IMMEDIATE; PostgreSQL READ
 * COMMITTED plus whatever row/advisory locks `fn` takes through `w.engine`); its history events
 * and the per-profile clock bump (once, by the number of events) are written last, in the same
 * transaction; then it commits and the post-commit hooks run. If `fn` throws, nothing is kept.
 */
export async function write<T>(
  ctx: ShampooCtx,
  fn: (w: WriteScope) => Promise<T>,
  opts?: TransactionOptions,
): Promise<T> {
  const hooks: Array<() => void | Promise<void>> = [];
  const now = ctx.clock.now();
  const out = await transact(
    ctx.database,
    async (db, engine) => {
      const trx = db as Transaction<ShampooDB>;
      const history = deferHistory(trx);
      const w: WriteScope = {
        trx,
        ctx,
        now,
        engine,
        event: async (m) => {
          const eventId = m.eventId ?? randomUUID();
          await recordEvents(trx, ctx.caller, ctx.source, now, [{ ...m, eventId }]);
          return eventId;
        },
        pendingEvents: () => history.pending(),
        flushEvents: () => history.flush(),
        afterCommit: (hook) => {
          hooks.push(hook);
        },
      };
      const result = await fn(w);
      await history.end();
      return result;
    },
    opts,
  );
  for (const hook of hooks) {
    try {
      await hook();
    } catch (e) {
      log.error({ err: e, tool: ctx.source.tool }, "post-commit hook failed; the write stands");
    }
  }
  return out;
}

/** The one read path: `fn` sees one consistent snapshot and never waits for a writer. */
export function read<T>(ctx: ShampooCtx, fn: (db: Kysely<ShampooDB>, engine: Engine) => Promise<T>): Promise<T> {
  return snapshot(ctx.database, fn);
}
