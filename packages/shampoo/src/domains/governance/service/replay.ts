import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { given } from "../../../platform/errors.ts";
import { read } from "../../../platform/write.ts";
import type { ReplayMemoryInput } from "../inputs.gen.ts";
import { eventView } from "../model.ts";
import { isoArg } from "../rules/text.ts";
import { REPLAY_KINDS, visibleEvents } from "../store/replay.ts";
import { redactFactEvents } from "./hidden.ts";

export { REPLAY_KINDS };

export const REPLAY_CONTRACT = "memory_replay_v1";
export const REPLAY_DEFAULT = 100;
export const REPLAY_MAX = 500;

/** replay_memory: blank filters are absent; a malformed since_ts fails before the read. */
export function replayMemory(ctx: ShampooCtx, a: ReplayMemoryInput) {
  const since = given(a.since_ts);
  const args = {
    aggregate_kind: given(a.aggregate_kind),
    aggregate_id: given(a.aggregate_id),
    since: since === undefined ? undefined : isoArg("since_ts", since),
    limit: Math.max(1, Math.min(REPLAY_MAX, typeof a.limit === "number" ? a.limit : REPLAY_DEFAULT)),
  };
  return read(ctx, async (db) => {
    // Every entry with nulls preserved.
    const rows = await visibleEvents(db, ctx.caller, args);
    const events = (await redactFactEvents(db, scopeOf(ctx.caller), rows)).map(eventView);
    return { count: events.length, events, contract_version: REPLAY_CONTRACT };
  });
}
