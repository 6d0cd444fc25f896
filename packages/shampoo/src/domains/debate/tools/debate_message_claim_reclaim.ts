import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateMessageClaimReclaimInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { messageClaimReclaim } from "../service/delivery.ts";

export const debate_message_claim_reclaim = tool<DebateMessageClaimReclaimInput>({
  name: "debate_message_claim_reclaim",
  title: "Reclaim stale DECISION claims",
  description:
    "Settles the caller's stale one-shot DECISION claims (taken implicitly when debate_signal_check returns a standing=false DECISION) claimed before the cutoff and at least minimum_age_seconds old (default 60): a late terminal A/STATUS reply completes one (done); the rest become reclaimed (checked again, they are claimed again) or expired (the topic closed). Only caller-owned claims move; the sweep never exposes foreign claim state. Each outcome is a lifecycle transition with its history event.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      older_than_ts: D.isoUtc("Strict ISO-8601 UTC cutoff."),
      minimum_age_seconds: D.int(1, 31_536_000, "Floor for reclaim age (default 60)."),
    },
    ["topic_id", "older_than_ts"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "topic_state", "reclaimed", "reclaimed_count"],
    properties: {
      topic_id: { type: "string" },
      topic_state: { type: "string" },
      reclaimed: { type: "array" },
      reclaimed_count: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "sweep stale claims of a topic",
      input: { topic_id: fx("debateTopicId"), older_than_ts: "2026-01-01T00:00:00Z" },
    },
  ],
  run: (a, ctx) => messageClaimReclaim(ctx, a),
});
