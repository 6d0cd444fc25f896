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
/**
 * The most bytes of events one answer carries (their JSON): past it the answer stops at a whole
 * event and says `truncated: true` (narrow with aggregate_id, since_ts or a smaller limit). The
 * first event is always answered. One replay of limit 500 once answered 67 MB.
 */
export const REPLAY_MAX_BYTES = 4 * 1024 * 1024;

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
    const all = (await redactFactEvents(db, scopeOf(ctx.caller), rows)).map(eventView);
    const events: typeof all = [];
    let bytes = 0;
    for (const e of all) {
      bytes += Buffer.byteLength(JSON.stringify(e));
      if (events.length > 0 && bytes > REPLAY_MAX_BYTES) break;
      events.push(e);
    }
    const truncated = events.length < all.length;
    return { count: events.length, events, contract_version: REPLAY_CONTRACT, ...(truncated ? { truncated } : {}) };
  });
}
