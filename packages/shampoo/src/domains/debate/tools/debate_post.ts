import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebatePostInput } from "../inputs.gen.ts";
import { D, POST_RESULT } from "../schemas.ts";
import { post } from "../service/messages.ts";

/** The parameters debate_post and debate_post_with_recipients share. */
export const POST_PARAMS = {
  topic_id: D.topicId,
  role: D.role("A declared role of the topic owned by one of your bindings."),
  priority: D.priority,
  kind: D.kind,
  body: D.body,
  author_session_id: D.optUuid("A session you own (star is no exception); empty keeps the unattributed shape."),
  body_mode: D.optText(100, "Free-form body mode label, echoed on debate/v1 topics."),
  payload_json: D.optText(
    100_000,
    "JSON object; on debate/v1 topics it needs non-empty summary, assumptions[] and evidence_refs[].",
  ),
  protocol_version: {
    type: ["string", "null"],
    enum: ["", "debate/v1", null],
    description: "When given, must match the topic's protocol.",
  },
  reply_to: D.optUuid("A message of the same topic."),
  standing: D.bool("false marks a one-shot DECISION: each recipient's check claims it once."),
  vehicle: D.vehicle,
} as const;

export const debate_post = tool<DebatePostInput>({
  name: "debate_post",
  title: "Post to a debate",
  description:
    "Appends one broadcast message to a debate topic after full validation; a rejection preserves nothing, and messages are never edited or removed. Authorship comes from the caller's own binding of the role, never from the role string (star and conductor get no exception): unknown topics, undeclared and unowned roles answer the same not-found. On debate/v1 topics a blind role's CLAIM or REBUT is committed (sha256 of nonce:body, shown) and hidden from everyone until both blind roles have committed for the round; the round then reveals (body and nonce) and the phase moves on. RESOLVED/ARCHIVED topics take no posts. For named recipients use debate_post_with_recipients.",
  kind: "write",
  inputSchema: input(POST_PARAMS, ["topic_id", "role", "priority", "kind", "body"]),
  outputSchema: output(POST_RESULT),
  examples: [
    {
      title: "the conductor posts a decision",
      input: {
        topic_id: fx("debateTopicId"),
        role: "CONDUCTOR",
        priority: "H",
        kind: "DECISION",
        body: "Adopt musl-first packaging.",
      },
    },
  ],
  run: (a, ctx) => post(ctx, a, false),
});
