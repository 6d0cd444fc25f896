import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kernel";
import type { ShampooCtx } from "../context.ts";
import { deferHistory, type Mutation, recordEvents } from "../store/history.ts";
import type { ShampooDB } from "../store/schema.ts";
import { type Engine, engineOf } from "./engine.ts";

/** What a write's function gets: its transaction, its time, its events and its hooks. */
export interface WriteScope {
  trx: Transaction<ShampooDB>;
  ctx: ShampooCtx;
  /** The injected clock read once: every row and event of the write carries the same time. */
  now: number;
  engine: Engine;
  /**
   * Records a history event of this write and returns its id (rows may point at it at once).
   * The events are written at the end of the transaction with one clock bump.
   */
  event(m: Mutation): Promise<string>;
  /** Runs after the commit (never after a rollback); a failing hook is logged, the write stands. */
  afterCommit(hook: () => void | Promise<void>): void;
}

/**
 * The one write path: `fn` runs in one transaction (SQLite BEGIN IMMEDIATE; PostgreSQL READ
 * COMMITTED plus whatever row/advisory locks `fn` takes through `w.engine`); its history events
 * and the per-profile clock bump (once, by the number of events) are written last, in the same
 * transaction; then it commits and the post-commit hooks run. If `fn` throws, nothing is kept.
 */
export async function write<T>(ctx: ShampooCtx, fn: (w: WriteScope) => Promise<T>): Promise<T> {
  const hooks: Array<() => void | Promise<void>> = [];
  const now = ctx.clock.now();
  const engine = engineOf(ctx.database);
  const out = await ctx.database.transaction(async (db) => {
    const trx = db as Transaction<ShampooDB>;
    const flush = deferHistory(trx);
    const w: WriteScope = {
      trx,
      ctx,
      now,
      engine,
      event: async (m) => {
        const eventId = randomUUID();
        await recordEvents(trx, ctx.caller, ctx.source, now, [{ ...m, eventId }]);
        return eventId;
      },
      afterCommit: (hook) => {
        hooks.push(hook);
      },
    };
    const result = await fn(w);
    await flush();
    return result;
  });
  for (const hook of hooks) {
    try {
      await hook();
    } catch (e) {
      process.stderr.write(`post-commit hook of ${ctx.source.tool || "a write"} failed: ${String(e)}\n`);
    }
  }
  return out;
}

/** The one read path: `fn` sees one consistent snapshot and never waits for a writer. */
export function read<T>(ctx: ShampooCtx, fn: (db: Kysely<ShampooDB>, engine: Engine) => Promise<T>): Promise<T> {
  const engine = engineOf(ctx.database);
  return ctx.database.read((db) => fn(db, engine));
}
