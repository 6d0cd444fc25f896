import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateWorkerClaimInput } from "../inputs.gen.ts";
import { CLAIM_RESULT, D } from "../schemas.ts";
import { workerClaim } from "../service/workers.ts";

export const debate_worker_claim = tool<DebateWorkerClaimInput>({
  name: "debate_worker_claim",
  title: "Claim a trigger for a worker",
  description:
    "Idempotently allocates or reuses the worker for one trigger (topic, role, parent session, trigger message): one claim per trigger, fenced by a platform lease (120 s; a repeat call heartbeats it and answers duplicate true). The claim's worker_session_id is its generation: use it with debate_signal_check / debate_signal_advance; the receipt completes the claim. A retired claim (debate_worker_recover_stale) requeues under a new generation at most twice, then reports exhausted (no_action true). A trigger the parent already consumed answers no_action true. The parent session must be yours and hold the role actively, and the trigger must be addressed to it; anything else answers not-found. Implementation-vehicle triggers fail closed.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role."),
      parent_session_id: D.uuid("Your session holding the role actively."),
      trigger_msg_id: D.uuid("The message being claimed (addressed to the role or parent session)."),
      details_json: D.optText(20_000, "Optional JSON object stored on the claim."),
    },
    ["topic_id", "role", "parent_session_id", "trigger_msg_id"],
  ),
  outputSchema: output(CLAIM_RESULT),
  examples: [
    {
      title: "claim the trigger addressed to the participant",
      input: {
        topic_id: fx("debateTopicId"),
        role: "PARTICIPANT",
        parent_session_id: fx("debateParticipantSessionId"),
        trigger_msg_id: fx("debateTriggerId"),
        details_json: '{"runner":"e2e"}',
      },
    },
  ],
  run: (a, ctx) => workerClaim(ctx, a),
});
