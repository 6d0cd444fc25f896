import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateSetTopicPriorityInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { setTopicPriority } from "../service/topics.ts";

export const debate_set_topic_priority = tool<DebateSetTopicPriorityInput>({
  name: "debate_set_topic_priority",
  title: "Set a topic's priority lane",
  description:
    "Sets the conductor-owned P0..P7 priority lane of a topic (case-insensitive, stored uppercase with its rank) with a reason and optional next action and blocker: the cross-topic triage authority behind debate_work_queue ordering, which it reshapes at once. Two gates in order: role must read CONDUCTOR, and the caller must hold the topic's CONDUCTOR binding (star alone never suffices). Conductor callers only.",
  kind: "write",
  access: ["conductor"],
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("Must read CONDUCTOR."),
      lane: { type: "string", pattern: "^[Pp][0-7]$", description: "P0..P7 (any case)." },
      reason: {
        type: "string",
        minLength: 1,
        maxLength: 2000,
        description: "Required and non-blank; stored and echoed.",
      },
      blocked_by: D.optText(2000, "Optional blocker surfaced by the work queue."),
      next_action: D.optText(2000, "Optional next step surfaced by the work queue."),
    },
    ["topic_id", "role", "lane", "reason"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "lane", "rank", "reason", "next_action", "blocked_by", "updated_at"],
    properties: {
      topic_id: { type: "string" },
      lane: { type: "string" },
      rank: { type: "integer" },
      reason: { type: "string" },
      next_action: { type: ["string", "null"] },
      blocked_by: { type: ["string", "null"] },
      updated_at: { type: "string" },
    },
  }),
  examples: [
    {
      title: "put a topic in lane P2",
      input: {
        topic_id: fx("debateTopicId"),
        role: "CONDUCTOR",
        lane: "p2",
        reason: "release blocker",
        next_action: "decide",
      },
    },
  ],
  run: (a, ctx) => setTopicPriority(ctx, a),
});
