import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateSignalCheckInput } from "../inputs.gen.ts";
import { D, MESSAGE } from "../schemas.ts";
import { signalCheck } from "../service/delivery.ts";

export const debate_signal_check = tool<DebateSignalCheckInput>({
  name: "debate_signal_check",
  title: "Check your debate inbox",
  description:
    "Returns the recipient-scoped inbox: messages addressed to the given role or session past the cursor, oldest first. This is the sole private-delivery path. Checking never consumes: the same messages come back until a receipt (debate_signal_advance) moves the cursor, so a crash between check and receipt delivers again. It records the check, delivery progress and one-shot DECISION claims. Cursor precedence: since_msg_id, since_ts, the stored cursor, the start. session_id is a session bound to the role that you own, or your active worker claim's worker session; anything else answers not-found. limit defaults to 200, capped at 1000. Empty inboxes return zero counts and a null cursor.",
  kind: "write",
  inputSchema: input(
    {
      session_id: D.uuid("Your bound session, or your active worker claim's worker session."),
      role: D.role("A declared role; delivery matches role OR session."),
      topic_id: D.topicId,
      limit: D.int(-1_000_000, 1_000_000, "Defaults to 200, clamped to 1..1000."),
      since_msg_id: D.optUuid("Explicit cursor, takes precedence over since_ts and the stored cursor."),
      since_ts: D.optIsoUtc("ISO-8601 UTC lower bound."),
    },
    ["session_id", "role", "topic_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["pending", "count", "truncated", "next_cursor", "max_priority", "topic_state", "limit"],
    properties: {
      pending: { type: "array", items: MESSAGE },
      count: { type: "integer" },
      truncated: { type: "boolean" },
      next_cursor: { type: ["object", "null"] },
      max_priority: { type: ["string", "null"] },
      topic_state: { type: "string" },
      limit: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "the participant checks its inbox",
      input: { session_id: fx("debateParticipantSessionId"), role: "PARTICIPANT", topic_id: fx("debateTopicId") },
    },
  ],
  run: (a, ctx) => signalCheck(ctx, a),
});
