import type { Scope } from "../../../access/caller.ts";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import type { Engine } from "../../../platform/engine.ts";
import { read } from "../../../platform/write.ts";
import type { ReadyContextInput } from "../inputs.gen.ts";
import {
  buildReadyContext,
  checkMode,
  READY_LIMIT,
  type ReadyInput,
  type ReadyRow,
  rankLive,
  readyTopPage,
  shownRanked,
  topKeys,
} from "../rules/ready.ts";
import { clampInt } from "../rules/values.ts";
import { bandKeys, finishedSince, scoringRows, statusesOf, wholeRows, windowRows } from "../store/ready.ts";
import type { Db } from "../store/sql.ts";

/** ready_context: the rules are rules/ready.ts; the reads store/ready.ts. One read() snapshot. */

/** The most live rows ready_context scores in one call (most important first). */
export const READY_LOAD_CAP = 5000;
/** Finished tasks updated this recently are prime's explicit exclusions ("done: do not redo"). */
export const RECENTLY_FINISHED_DAYS = 14;

export async function readyContext(ctx: ShampooCtx, a: ReadyContextInput): Promise<Record<string, unknown>> {
  return readyContextWith(ctx, a, READY_LOAD_CAP, true);
}

/**
 * ready_context with the window size as a parameter (tests compare both strategies on windows
 * smaller than their fixtures); `top` false always scores the whole window.
 */
export async function readyContextWith(
  ctx: ShampooCtx,
  a: ReadyContextInput,
  cap: number,
  top: boolean,
): Promise<Record<string, unknown>> {
  const now = ctx.clock.now();
  const includeReadings = a.include_readings === true;
  const scope = scopeOf(ctx.caller);
  const mode = checkMode(a.mode);
  const limit = clampInt(a.limit, READY_LIMIT.min, READY_LIMIT.max, READY_LIMIT.default);
  return read(ctx, async (db, engine) => {
    if (top && mode === "ready") {
      const page = await readyTop(db, engine, scope, { now, includeReadings, limit }, cap);
      if (page) return page;
    }
    const live = await windowRows(db, engine, scope, includeReadings, cap);
    // Structural blockers come only from visible rows: an invisible subtask never blocks (and so
    // never reveals itself), an invisible parent is as good as none.
    const openSubtasks = new Map<string, string[]>();
    for (const r of live) {
      if (r.type === "task" && r.parent_id !== null) {
        const list = openSubtasks.get(r.parent_id) ?? [];
        list.push(r.id);
        openSubtasks.set(r.parent_id, list);
      }
    }
    const parentIds = [...new Set(live.map((r) => r.parent_id).filter((p): p is string => p !== null))];
    const parentStatus = await statusesOf(db, engine, scope, parentIds);
    let finished: ReadyRow[] = [];
    if (mode === "prime") {
      const since = new Date(now - RECENTLY_FINISHED_DAYS * 86_400_000).toISOString();
      finished = await finishedSince(db, engine, scope, since, limit);
    }

    const input: ReadyInput = { now, includeReadings, limit, live, openSubtasks, parentStatus, finished };
    const ranked = rankLive(input);
    // The shown rows, whole (titles, last events; suggested items are task-shaped, bodies
    // included), in the same snapshot: the same rows that were scored.
    const shown = shownRanked(mode, input, ranked);
    const full = await wholeRows(
      db,
      engine,
      scope,
      shown.map((r) => r.row.id),
    );
    for (const r of shown) {
      const { description: _d, notes: _n, ...row } = full.get(r.row.id) ?? { ...r.row, description: null, notes: null };
      r.row = row;
    }
    input.full = full;
    return buildReadyContext(mode, input, ranked);
  });
}

/**
 * Mode ready without scoring the window (migration 008's indexes; ready.ts readyTopPage proves
 * the page): ready_now ranks first, and a ready_now task's score is its date-independent points
 * (ready-sql.ts heatSql) plus points that are constant within a due-date band relative to today
 * (long past due, past due by 1..9 days, due today, due in 1..3 days, neither). So the first
 * `limit` records of the window are among the first `limit` ready_now rows of each band in
 * (points, due date, created_at, id) order, which an index gives directly: 15 short walks
 * instead of 5000 rows scored.
 *
 * The window is what the full path loads: the first `cap` live rows in scope in the default
 * order. Its last row is found on shampoo_tasks_live_order (OFFSET cap − 1), and "in the window"
 * is then a comparison with that row's order keys; a ready_now row is a live task, not waiting,
 * in progress / in today / due today or earlier / critical, without an open subtask in the
 * window (shampoo_tasks_live_kids) and without a finished parent in scope: ready.ts judge's
 * rules, written in SQL. undefined: the caller scores the whole window (fewer than `limit`
 * ready_now rows, an empty window).
 */
/** Mode ready's top-of-list answer alone (tests): undefined where the whole window would be scored. */
export async function readyTopOnly(
  ctx: ShampooCtx,
  a: ReadyContextInput,
  cap: number,
): Promise<Record<string, unknown> | undefined> {
  const limit = clampInt(a.limit, READY_LIMIT.min, READY_LIMIT.max, READY_LIMIT.default);
  const opts = { now: ctx.clock.now(), includeReadings: a.include_readings === true, limit };
  return read(ctx, (db, engine) => readyTop(db, engine, scopeOf(ctx.caller), opts, cap));
}

async function readyTop(
  db: Db,
  engine: Engine,
  scope: Scope,
  opts: { now: number; includeReadings: boolean; limit: number },
  cap: number,
): Promise<Record<string, unknown> | undefined> {
  const found = await bandKeys(db, engine, scope, opts, cap);
  if (!found) return undefined;
  const { now, includeReadings, limit } = opts;
  const top = topKeys(found.keys, found.bands, limit);
  if (!top) return undefined;
  const full = await scoringRows(
    db,
    engine,
    scope,
    top.map((k) => k.id),
  );
  const candidates = top.map((k) => full.get(k.id)).filter((r): r is ReadyRow => r !== undefined);
  const input: ReadyInput = {
    now,
    includeReadings,
    limit,
    live: [],
    openSubtasks: new Map(),
    parentStatus: new Map(),
    finished: [],
  };
  return readyTopPage(input, candidates, new Map(top.map((k) => [k.id, k.score])), found.total);
}
