import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateEscalateInput } from "../inputs.gen.ts";
import { D, POST_RESULT } from "../schemas.ts";
import { escalate } from "../service/messages.ts";

export const debate_escalate = tool<DebateEscalateInput>({
  name: "debate_escalate",
  title: "Escalate to a role",
  description:
    "Force-writes a high-priority PING shaped [ESCALATE:reason] @TARGET for a target role (default HUMAN): a convenience over hand-formatting escalation messages. When the target is a declared role the PING is also addressed to it (it reaches that role's inbox). Posts as the named role, so the caller must own its binding (uniform not-found otherwise). Empty reasons are rejected. Returns the post shape.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role whose binding you own."),
      reason: {
        type: "string",
        minLength: 1,
        maxLength: 2000,
        description: "Non-empty; carried inside the PING body.",
      },
      target_role: D.optRole("Defaults to HUMAN."),
    },
    ["topic_id", "role", "reason"],
  ),
  outputSchema: output(POST_RESULT),
  examples: [
    {
      title: "escalate to the human",
      input: { topic_id: fx("debateTopicId"), role: "CONDUCTOR", reason: "licence question" },
    },
  ],
  run: (a, ctx) => escalate(ctx, a),
});
