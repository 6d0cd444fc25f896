import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateWakeDryRunInput } from "../inputs.gen.ts";
import { POST_SCHEMA_VERSION } from "../rules.ts";
import { wakeDryRun } from "../service/delivery.ts";

export const debate_wake_dry_run = tool<DebateWakeDryRunInput>({
  name: "debate_wake_dry_run",
  title: "Resolve wake targets (dry run)",
  description: `Resolves who a trigger would wake and preserves a history event, without waking anyone or posting anything: the dry-run lever for delivery bring-up. tool_response_json is a post result (schema_version ${POST_SCHEMA_VERSION}, msg_id, topic_id); the preserved message is the authority, never the JSON. Targets are the active owners of its recipients, one per recipient; those whose receipt already came, and the author's own role, count as suppressed. Implementation-vehicle triggers return notify_targets only; sealed blind positions log blind_commit_waiting; unknown schemas and triggers return the envelope with their history event. An unreachable topic answers unknown_topic. Non-object JSON fails closed.`,
  kind: "write",
  inputSchema: input(
    {
      tool_response_json: {
        type: "string",
        minLength: 1,
        maxLength: 100_000,
        description: "A trigger's tool-response object as JSON.",
      },
      action: {
        type: ["string", "null"],
        maxLength: 100,
        description: "Wake action namespace (default dry_run_wake).",
      },
    },
    ["tool_response_json"],
  ),
  outputSchema: output({
    type: "object",
    required: ["targets", "logs", "suppressed", "notify_targets"],
    properties: {
      targets: { type: "array" },
      logs: { type: "array", items: { type: "string" } },
      suppressed: { type: "integer" },
      notify_targets: { type: "array" },
    },
  }),
  examples: [
    {
      title: "who the addressed decision would wake",
      input: {
        tool_response_json: `{"schema_version":"${POST_SCHEMA_VERSION}","msg_id":"${fx("debateMessageId")}","topic_id":"${fx("debateTopicId")}"}`,
      },
    },
  ],
  run: (a, ctx) => wakeDryRun(ctx, a),
});
