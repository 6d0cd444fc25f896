import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateJudgeVerdictInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { judgeVerdict } from "../service/protocol.ts";

export const debate_judge_verdict = tool<DebateJudgeVerdictInput>({
  name: "debate_judge_verdict",
  title: "Record a judge's verdict",
  description:
    "Records one judge's verdict on a projection from debate_judge_prepare. The judge role must be declared, active, outside the blind pair and not HUMAN, and the caller must own its binding; each AB/BA pair admits a single judge role. Verdicts are immutable (an identical repeat is idempotent). When both orders have a verdict the phase moves by compare-and-swap on ADJUDICATE: the same winner in both orders → STOPPED; a split → STALEMATE with reason order_swap_disagreement (a lost race answers state_conflict). Returns projection_id, topic_id, complete, stable (null until both orders speak) and protocol_state with each judge role's measured flip rate.",
  kind: "write",
  inputSchema: input(
    {
      projection_id: D.uuid("Target projection from debate_judge_prepare."),
      judge_role: D.role("An active, declared, non-blind, non-human role whose binding you own."),
      verdict_json: {
        type: "string",
        minLength: 2,
        maxLength: 20_000,
        description: "JSON object {winner_msg_id, decision}; stringified JSON is re-parsed.",
      },
    },
    ["projection_id", "judge_role", "verdict_json"],
  ),
  outputSchema: output({
    type: "object",
    required: ["projection_id", "topic_id", "complete", "stable", "protocol_state"],
    properties: {
      projection_id: { type: "string" },
      topic_id: { type: "string" },
      complete: { type: "boolean" },
      stable: { type: ["boolean", "null"] },
      protocol_state: { type: "object" },
    },
  }),
  examples: [
    {
      title: "the judge picks the left position on the AB order",
      input: {
        projection_id: fx("debateProjectionId"),
        judge_role: "JUDGE",
        verdict_json: `{"winner_msg_id":"${fx("debateLeftMsgId")}","decision":"better evidence"}`,
      },
    },
  ],
  run: (a, ctx) => judgeVerdict(ctx, a),
});
