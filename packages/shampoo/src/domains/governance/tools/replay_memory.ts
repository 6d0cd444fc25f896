import { input, output, tool } from "../../../tooling.ts";
import type { ReplayMemoryInput } from "../inputs.gen.ts";
import {
  REPLAY_CONTRACT,
  REPLAY_DEFAULT,
  REPLAY_KINDS,
  REPLAY_MAX,
  REPLAY_MAX_BYTES,
  replayMemory,
} from "../service/replay.ts";

export const replay_memory = tool<ReplayMemoryInput>({
  name: "replay_memory",
  title: "Replay the memory's history",
  description: `Replays the append-only history newest first, every event with its 20 fields (seq, event_id, profile, principal, role, session_id, clock, at, aggregate_kind, aggregate_id, action, old_value, new_value, changed_fields, payload, parent_event_id, source and its tool/session/request), nulls preserved; stored values are parsed whole, so dates stay strings. Folding the events of an aggregate oldest first rebuilds its current row. Kinds: ${REPLAY_KINDS.join(", ")}; only events you could read when they happened are returned (the project each event recorded; older events: the aggregate's project now), with links to facts you cannot see left out. aggregate_kind, aggregate_id and since_ts (a lower bound on the event time) narrow it; empty means all. limit defaults to ${REPLAY_DEFAULT}, clamped to 1..${REPLAY_MAX}. An answer stops at ${REPLAY_MAX_BYTES / 1024 / 1024} MB of events with truncated: true. Pure read; filters that match nothing answer count 0.`,
  inputSchema: input({
    aggregate_id: { type: ["string", "null"], maxLength: 200 },
    aggregate_kind: { type: ["string", "null"], maxLength: 64 },
    limit: { type: "integer", description: `Default ${REPLAY_DEFAULT}, clamped 1..${REPLAY_MAX}.` },
    since_ts: { type: ["string", "null"], maxLength: 64, description: "ISO timestamp lower bound." },
  }),
  outputSchema: output({
    type: "object",
    required: ["count", "events", "contract_version"],
    properties: {
      count: { type: "integer" },
      events: { type: "array", items: { type: "object", minProperties: 20, maxProperties: 20 } },
      contract_version: { const: REPLAY_CONTRACT },
      truncated: { type: "boolean", description: "Present (true) when the byte bound cut the answer." },
    },
  }),
  examples: [
    {
      title: "the last five memory events",
      input: { limit: 5 },
    },
  ],
  kind: "read",
  run: (a, ctx) => replayMemory(ctx, a),
});
