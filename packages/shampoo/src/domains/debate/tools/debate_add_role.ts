import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateAddRoleInput } from "../inputs.gen.ts";
import { BINDING_RESULT, D } from "../schemas.ts";
import { addRole } from "../service/bindings.ts";

export const debate_add_role = tool<DebateAddRoleInput>({
  name: "debate_add_role",
  title: "Add a role to a live debate",
  description:
    "Appends a NEW role to a live topic and installs its active binding in one atomic unit: the mid-debate way to grow the roster, including numbered EXECUTOR_n workers. Conductor or star callers only, and the session must be owned by the caller: knowing a foreign session id never enrolls it. A role already declared falls through to the ordinary binding path; a same-owner replay answers added_role false. Unknown topics, malformed ids and unowned sessions are rejected uniformly (not-found).",
  kind: "write",
  access: ["conductor", "star"],
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("The new role (uppercase; executors are EXECUTOR_1, EXECUTOR_2, …)."),
      session_id: D.uuid("The session owning the new role; must be owned by the caller."),
      bound_by_msg_id: D.optUuid("Attribution: the message that sanctioned the binding."),
      bound_by_role: D.optRole("Attribution: the role that sanctioned the binding."),
      conductor_override_msg_id: D.optUuid(
        "A CONDUCTOR DECISION in the topic; validated when supplied, not needed for roster growth.",
      ),
      reason: D.optText(2000, "Why; defaults to a flexible-roster marker."),
      replace_active: D.bool("For a declared role: swap its active owner atomically (same-owner replay path)."),
      runtime: D.optText(200, "Free-form runtime label stored on the binding."),
    },
    ["topic_id", "role", "session_id"],
  ),
  outputSchema: output(BINDING_RESULT),
  examples: [
    {
      title: "add a numbered executor bound to your own session",
      input: { topic_id: fx("debateTopicId"), role: "EXECUTOR_1", session_id: fx("sessionId"), runtime: "e2e" },
    },
  ],
  run: (a, ctx) => addRole(ctx, a),
});
