import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateJudgePrepareInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { judgePrepare } from "../service/protocol.ts";

export const debate_judge_prepare = tool<DebateJudgePrepareInput>({
  name: "debate_judge_prepare",
  title: "Prepare the AB/BA projections",
  description:
    "Creates the immutable AB and BA order-swapped projections for adjudication from two revealed CLAIM or REBUT positions of the two opposing blind roles, while the debate/v1 topic sits in ADJUDICATE. Conductor callers only (the call takes no judge role). Identical repeats are idempotent; differing repeats are rejected. Returns topic_id and projections (order AB and BA, each with projection_id, order_key, protocol_version, topic_id, round_no, positions). Verdicts arrive via debate_judge_verdict.",
  kind: "write",
  access: ["conductor"],
  inputSchema: input(
    {
      topic_id: D.topicId,
      left_msg_id: D.uuid("First position: a CLAIM or REBUT of one blind role."),
      right_msg_id: D.uuid("Second position: from the opposing blind role."),
    },
    ["topic_id", "left_msg_id", "right_msg_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "projections"],
    properties: { topic_id: { type: "string" }, projections: { type: "array", minItems: 2, maxItems: 2 } },
  }),
  examples: [
    {
      title: "repeat the projections of the adjudicating topic (idempotent)",
      input: {
        topic_id: fx("debateV1TopicId"),
        left_msg_id: fx("debateLeftMsgId"),
        right_msg_id: fx("debateRightMsgId"),
      },
    },
  ],
  run: (a, ctx) => judgePrepare(ctx, a),
});
