import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateSignalAdvanceInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { signalAdvance } from "../service/delivery.ts";

export const debate_signal_advance = tool<DebateSignalAdvanceInput>({
  name: "debate_signal_advance",
  title: "Record a consumption receipt",
  description:
    "Records a durable consumption receipt: moves the (session, role, topic) cursor to a message addressed to the caller's role or session (never one addressed elsewhere, so nothing is skipped over), strictly forward, and completes that recipient's delivery entries up to it, at most once. The timestamp comes from the preserved message. session_id is a session bound to the role that you own, or the worker session of an active worker claim (debate_worker_claim): the receipt is fenced by that claim's lease and completes the claim, so a requeued or retired worker's receipt is refused and moves nothing. Returns session_id, role, topic_id, last_processed_msg_id, last_processed_ts, last_check_at and worker_claim.",
  kind: "write",
  inputSchema: input(
    {
      session_id: D.uuid("Your bound session, or your active worker claim's worker session."),
      role: D.role("A declared role."),
      topic_id: D.topicId,
      last_processed_msg_id: D.uuid("A message addressed to you, after your cursor."),
    },
    ["session_id", "role", "topic_id", "last_processed_msg_id"],
  ),
  outputSchema: output({
    type: "object",
    required: [
      "session_id",
      "role",
      "topic_id",
      "last_processed_msg_id",
      "last_processed_ts",
      "last_check_at",
      "worker_claim",
    ],
    properties: {
      session_id: { type: "string" },
      role: { type: "string" },
      topic_id: { type: "string" },
      last_processed_msg_id: { type: "string" },
      last_processed_ts: { type: "string" },
      last_check_at: { type: "string" },
      worker_claim: { type: ["object", "null"] },
    },
  }),
  examples: [
    {
      title: "the participant acknowledges the decision addressed to it",
      input: {
        session_id: fx("debateParticipantSessionId"),
        role: "PARTICIPANT",
        topic_id: fx("debateTopicId"),
        last_processed_msg_id: fx("debateMessageId"),
      },
    },
  ],
  run: (a, ctx) => signalAdvance(ctx, a),
});
