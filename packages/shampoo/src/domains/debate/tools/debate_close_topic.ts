import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateCloseTopicInput } from "../inputs.gen.ts";
import { D, TRANSITION_RESULT } from "../schemas.ts";
import { transition } from "../service/topics.ts";

export const debate_close_topic = tool<DebateCloseTopicInput>({
  name: "debate_close_topic",
  title: "Close a debate topic",
  description:
    "Closes a topic through the same authoritative transition unit as debate_state, with identical gating, Q/A checks and retirement; kept so existing close call sites keep working. The caller must own the active binding of the named role (no star or conductor exception). RESOLVED needs every Q answered by an A reply (a reply whose body starts with [DEFERRED: counts); when questions are open the answer keeps old_state = new_state and lists blocking_questions. RESOLVED retires active bindings, ARCHIVED also diagnostic ones; forward moves only (state_conflict otherwise).",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role whose binding you own."),
      new_state: D.topicState,
      reason: D.optText(2000, "Recorded inside the synthetic STATE message body."),
    },
    ["topic_id", "role", "new_state"],
  ),
  outputSchema: output(TRANSITION_RESULT),
  examples: [
    {
      title: "resolve a topic with no open questions",
      input: { topic_id: fx("debateCloseTopicId"), role: "CONDUCTOR", new_state: "RESOLVED", reason: "settled" },
    },
  ],
  run: (a, ctx) => transition(ctx, a),
});
