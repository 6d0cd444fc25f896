import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateBindingListInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { bindingList } from "../service/bindings.ts";

export const debate_binding_list = tool<DebateBindingListInput>({
  name: "debate_binding_list",
  title: "List a topic's role bindings",
  description:
    "Lists every role/session binding of a topic with its cursor state: role, session_id, runtime, state (active, retired, diagnostic), generation, timestamps, reason, bound_by attribution and the last processed cursor (msg_id, ts, last_check_at). Retired bindings stay listed as history. Session ids are shown only to star callers or the owner of that session; other entries show null. Gated by project scope AND participation (conductor and star in scope read without a binding); missing, foreign and outsider topics answer unknown_topic alike. Pure read.",
  kind: "read",
  inputSchema: input({ topic_id: D.topicId }, ["topic_id"]),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "topic_state", "bindings"],
    properties: { topic_id: { type: "string" }, topic_state: { type: "string" }, bindings: { type: "array" } },
  }),
  examples: [{ title: "list the bindings of a topic", input: { topic_id: fx("debateTopicId") } }],
  run: (a, ctx) => bindingList(ctx, a),
});
