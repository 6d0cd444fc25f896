import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateWorkerRecoverStaleInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { workerRecoverStale } from "../service/workers.ts";

export const debate_worker_recover_stale = tool<DebateWorkerRecoverStaleInput>({
  name: "debate_worker_recover_stale",
  title: "Recover stale worker claims",
  description:
    "Retires dead workers' claims whose last heartbeat is before the cutoff and at least minimum_age_seconds old (default 120), without hiding the parent trigger: the parent cursor never moves on this path, so the work stays discoverable (parent_trigger_still_pending). A claim whose trigger already has a terminal A/STATUS reply from the role completes instead. Only your own claims recover (conductor and star: every claim of a topic they reach). Each retirement and completion persists with its history event. Returns topic_id, topic_state, the cutoff echo, recovered entries and counts.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      older_than_ts: D.isoUtc("Strict ISO-8601 UTC cutoff."),
      minimum_age_seconds: D.int(1, 31_536_000, "Floor for staleness (default 120)."),
    },
    ["topic_id", "older_than_ts"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "topic_state", "older_than_ts", "recovered", "recovered_count", "completed_count"],
    properties: {
      topic_id: { type: "string" },
      topic_state: { type: "string" },
      older_than_ts: { type: "string" },
      minimum_age_seconds: { type: "integer" },
      recovered: { type: "array" },
      recovered_count: { type: "integer" },
      completed_count: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "sweep stale workers of a topic",
      input: { topic_id: fx("debateTopicId"), older_than_ts: "2026-01-01T00:00:00Z" },
    },
  ],
  run: (a, ctx) => workerRecoverStale(ctx, a),
});
