import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateBindRoleInput } from "../inputs.gen.ts";
import { BINDING_RESULT, D } from "../schemas.ts";
import { bindRole } from "../service/bindings.ts";

export const debate_bind_role = tool<DebateBindRoleInput>({
  name: "debate_bind_role",
  title: "Bind, retire or diagnose a role binding",
  description:
    "Installs, retires or diagnoses one role/session binding. One active owner per role: a declared role with no active owner (an open seat) is taken by binding a session you own; swapping your own active binding onto another of your sessions needs replace_active (the cursor travels); taking a role someone else holds is a takeover and answers not-found unless a valid conductor_override_msg_id (a CONDUCTOR DECISION, conductor or star callers only) is given; retiring an active owner needs that override too. Star and conductor meet the same ownership rule as everyone else without an override. Retired bindings stay listed as history and never grant authority again.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role of the topic."),
      session_id: D.uuid("The session being bound; must be owned by the caller."),
      bound_by_msg_id: D.optUuid("Attribution: the message that sanctioned the binding."),
      bound_by_role: D.optRole("Attribution: the role that sanctioned the binding."),
      conductor_override_msg_id: D.optUuid(
        "Conductor or star only: a CONDUCTOR DECISION of the topic sanctioning a takeover or retirement.",
      ),
      reason: D.optText(2000, "Why; stored on the binding."),
      replace_active: D.bool("Atomic swap onto the new session; without it a duplicate active owner is rejected."),
      runtime: D.optText(200, "Free-form runtime label stored on the binding."),
      state: {
        type: "string",
        enum: ["active", "retired", "diagnostic"],
        description: "active (default), retired or diagnostic; an explicit empty value fails validation.",
      },
    },
    ["topic_id", "role", "session_id"],
  ),
  outputSchema: output(BINDING_RESULT),
  examples: [
    {
      title: "replay the participant's own binding (idempotent)",
      input: { topic_id: fx("debateTopicId"), role: "PARTICIPANT", session_id: fx("debateParticipantSessionId") },
    },
  ],
  run: (a, ctx) => bindRole(ctx, a),
});
