import { randomUUID } from "node:crypto";
import { iso, type Transaction } from "kernel";
import { type Scope, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail } from "../../../platform/errors.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { Mutation } from "../../../store/history.ts";
import type { ShampooDB } from "../../../store/schema.ts";

export type Trx = Transaction<ShampooDB>;

/** One governance write: the platform write scope, its time as text, the caller's scope. */
export interface W extends WriteScope {
  at: string;
  scope: Scope;
  /** The id of the last history event this write recorded ("" before any). */
  lastEventId: string;
}

/**
 * Runs `fn` through the platform write path (platform/write.ts): one transaction (BEGIN IMMEDIATE
 * on SQLite, so concurrent writers queue instead of failing), its history events written at the
 * end with one clock bump. Anything thrown rolls back everything: all-or-nothing per call.
 */
export function inWrite<T>(ctx: ShampooCtx, fn: (w: W) => Promise<T>): Promise<T> {
  return write(ctx, (scope) =>
    fn(Object.assign(scope, { at: iso(scope.now), scope: scopeOf(ctx.caller), lastEventId: "" })),
  );
}

/** Records one history event of the write (w.event) and returns its id. */
export async function record(w: W, m: Mutation): Promise<string> {
  w.lastEventId = await w.event(m);
  return w.lastEventId;
}

/** A row as its history event records it: everything but the profile and the event pointer. */
export function view<R extends { profile: string; last_event_id: string }>(
  row: R,
): Omit<R, "profile" | "last_event_id"> {
  const { profile: _p, last_event_id: _l, ...rest } = row;
  return rest;
}

/**
 * Records the history event of one row change and returns its id (to store as last_event_id).
 * `old` null for a creation; the row's previous event is its parent, so each row's events chain.
 */
export function event<R extends { profile: string; last_event_id: string }>(
  w: W,
  kind: string,
  id: string,
  action: string,
  old: R | null,
  row: R,
  payload?: unknown,
): Promise<string> {
  return record(w, {
    entityKind: kind,
    entityId: id,
    action,
    old: old ? view(old) : null,
    new: view(row),
    payload,
    parentEventId: old?.last_event_id ?? null,
  });
}

/** The run-history entry every context-governance tool records (shampoo_context_runs). */
export async function recordRun(
  w: W,
  tool: string,
  input: unknown,
  result: unknown,
  extra: { session_id?: string | null; pack_id?: string | null } = {},
): Promise<string> {
  const runId = randomUUID();
  await w.trx
    .insertInto("shampoo_context_runs")
    .values({
      run_id: runId,
      profile: w.ctx.caller.profile,
      tool,
      principal: w.ctx.caller.principal,
      session_id: extra.session_id ?? null,
      pack_id: extra.pack_id ?? null,
      status: "completed",
      input_json: JSON.stringify(input ?? {}),
      result_json: JSON.stringify(result ?? {}),
      started_at: w.at,
      finished_at: w.at,
    })
    .execute();
  return runId;
}

export { given, notFound } from "../../../platform/errors.ts";

/** An ISO timestamp argument, normalized; a clear error otherwise. */
export function isoArg(name: string, v: string): string {
  const ms = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(ms))
    throw fail("validation", `${name} must be an ISO-8601 timestamp, got ${JSON.stringify(v)}`);
  return iso(ms);
}
