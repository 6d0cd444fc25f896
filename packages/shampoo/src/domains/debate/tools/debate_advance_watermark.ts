import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateAdvanceWatermarkInput } from "../inputs.gen.ts";
import { D, POST_RESULT } from "../schemas.ts";
import { advanceWatermark } from "../service/messages.ts";

export const debate_advance_watermark = tool<DebateAdvanceWatermarkInput>({
  name: "debate_advance_watermark",
  title: "Advance a role's watermark",
  description:
    "Advances the (topic, role) watermark cursor to a message already preserved in the topic: posts the canonical INFO/WATERMARK marker and moves the role's active cursor forward (never back) in one atomic unit. Role-addressed: the caller must own the active binding of the role (star and conductor get no exception; otherwise not-found). The marker carries no recipients, so on its own it reconciles no addressed inbox. Returns the post shape: msg_id, ts, topic_state, vehicle.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role whose active binding you own."),
      processed_up_to_msg_id: D.uuid("A message of this topic: the cursor moves to it."),
    },
    ["topic_id", "role", "processed_up_to_msg_id"],
  ),
  outputSchema: output(POST_RESULT),
  examples: [
    {
      title: "mark the conductor's progress up to a message",
      input: { topic_id: fx("debateTopicId"), role: "CONDUCTOR", processed_up_to_msg_id: fx("debateMessageId") },
    },
  ],
  run: (a, ctx) => advanceWatermark(ctx, a),
});
