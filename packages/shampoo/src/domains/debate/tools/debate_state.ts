import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateStateInput } from "../inputs.gen.ts";
import { D, TRANSITION_RESULT } from "../schemas.ts";
import { transition } from "../service/topics.ts";

export const debate_state = tool<DebateStateInput>({
  name: "debate_state",
  title: "Move a topic along its lifecycle",
  description:
    "Moves a topic along INIT → ACTIVE → RESOLVED → ARCHIVED (forward only; each move a compare-and-swap, state_conflict otherwise), posting a synthetic STATE message and retiring bindings in the same atomic unit: RESOLVED retires active bindings, ARCHIVED also diagnostic ones (their owners keep reading the closed transcript; the role that resolved may archive). RESOLVED requires every Q to hold an A reply (a reply whose body starts with [DEFERRED: counts): when questions are open, old_state = new_state and blocking_questions lists them. The caller must own the binding of the named role (no star or conductor exception). On debate/v1 topics the protocol state, with each judge role's flip rate, reads through debate_protocol_state.",
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
      title: "activate a topic",
      input: { topic_id: fx("debateStateTopicId"), role: "CONDUCTOR", new_state: "ACTIVE" },
    },
  ],
  run: (a, ctx) => transition(ctx, a),
});
