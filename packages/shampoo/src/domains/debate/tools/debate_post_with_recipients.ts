import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebatePostWithRecipientsInput } from "../inputs.gen.ts";
import { D, POST_RESULT } from "../schemas.ts";
import { post } from "../service/messages.ts";
import { POST_PARAMS } from "./debate_post.ts";

export const debate_post_with_recipients = tool<DebatePostWithRecipientsInput>({
  name: "debate_post_with_recipients",
  title: "Post an addressed message",
  description:
    "Posts one addressed message: the message and its recipient entries are preserved atomically, and it reaches only the named recipients' inboxes (debate_signal_check, the sole private path); debate_read still shows the topic-wide transcript. Recipients are declared roles or session ids holding a live binding in the topic; an empty list is rejected (no broadcasts here). diagnostic_to_csv adds diagnostic recipients. Authorship needs your own binding of the role; a conductor or star caller without one may act through conductor_override_msg_id (a CONDUCTOR DECISION of the topic). Unknown topics, undeclared and unowned roles answer the same not-found.",
  kind: "write",
  inputSchema: input(
    {
      ...POST_PARAMS,
      addressed_to_csv: {
        type: "string",
        minLength: 1,
        maxLength: 4000,
        description: "Comma-separated declared roles or live session ids (non-empty).",
      },
      conductor_override_msg_id: D.optUuid(
        "Conductor or star only: a CONDUCTOR DECISION sanctioning a post without an owned binding.",
      ),
      diagnostic_to_csv: D.optText(4000, "Comma-separated diagnostic recipients (roles or live session ids)."),
    },
    ["topic_id", "role", "priority", "kind", "body", "addressed_to_csv"],
  ),
  outputSchema: output(POST_RESULT),
  examples: [
    {
      title: "a decision addressed to the participant",
      input: {
        topic_id: fx("debateTopicId"),
        role: "CONDUCTOR",
        priority: "H",
        kind: "DECISION",
        body: "Adopt musl-first packaging.",
        addressed_to_csv: "PARTICIPANT",
      },
    },
  ],
  run: (a, ctx) => post(ctx, a, true),
});
