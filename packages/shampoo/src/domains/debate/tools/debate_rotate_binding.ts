import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateRotateBindingInput } from "../inputs.gen.ts";
import { BINDING_RESULT, D } from "../schemas.ts";
import { rotateBinding } from "../service/bindings.ts";

export const debate_rotate_binding = tool<DebateRotateBindingInput>({
  name: "debate_rotate_binding",
  title: "Rotate a role onto a new session",
  description:
    "Atomically swaps a role's owner from an old session to a new one with an explicit cursor mode, so an exhausted session hands off without losing or replaying its inbox: head starts at the tip, copy carries the newest primary-or-completed-worker cursor (warning copy_source_cursor_missing when there is none), replay restarts from the beginning. Both sessions must be owned by the caller and the old one must hold the role actively; any other combination answers one shared not-found. The old binding is retired (kept as history) with its worker claims.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role you own."),
      old_session_id: D.uuid("Currently holds the role actively; owned by the caller."),
      new_session_id: D.uuid("The incoming owner; owned by the caller."),
      cursor_mode: D.cursorMode,
      bound_by_msg_id: D.optUuid("Attribution: the message that sanctioned the rotation."),
      bound_by_role: D.optRole("Attribution: the role that sanctioned the rotation."),
      reason: D.optText(2000, "Why; stored on both bindings."),
      runtime: D.optText(200, "Carried onto the new binding when supplied."),
    },
    ["topic_id", "role", "old_session_id", "new_session_id", "cursor_mode"],
  ),
  outputSchema: output({
    ...BINDING_RESULT,
    required: [
      ...(BINDING_RESULT.required as string[]),
      "old_session_id",
      "new_session_id",
      "cursor_mode",
      "cursor_source",
      "warning",
    ],
    properties: {
      ...(BINDING_RESULT.properties as Record<string, unknown>),
      binding: { type: "object" },
      old_session_id: { type: "string" },
      new_session_id: { type: "string" },
      cursor_mode: { type: "string" },
      cursor_source: { type: ["string", "null"] },
      warning: { type: ["string", "null"] },
    },
  }),
  examples: [
    {
      title: "hand the observer role to another of your sessions, cursor copied",
      input: {
        topic_id: fx("debateTopicId"),
        role: "OBSERVER",
        old_session_id: fx("debateObserverSessionId"),
        new_session_id: fx("sessionId"),
        cursor_mode: "copy",
      },
    },
  ],
  run: (a, ctx) => rotateBinding(ctx, a),
});
