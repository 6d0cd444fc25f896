import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateProtocolStateInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { protocolState } from "../service/protocol.ts";

export const debate_protocol_state = tool<DebateProtocolStateInput>({
  name: "debate_protocol_state",
  title: "Read the debate/v1 micro-state",
  description:
    "Returns the deterministic debate/v1 micro-state of one topic: phase (ROUND, ADJUDICATE, STOPPED, STALEMATE), round_no, max_rounds, blind_roles, blind_barrier_state (sealed until both blind roles commit, then open), revealed_round, stalemate_reason, transition_version, phase_deadline_at, phase_timeout_seconds, updated_at, the commitments (sha256 of nonce:body per position, with the nonce once revealed, so anyone can verify) and each judge role's measured flip rate. Read control state here, never from prose. Legacy, missing, sentinel and unreachable topics share one not-configured shape. Pure read.",
  kind: "read",
  inputSchema: input({ topic_id: D.topicId }, ["topic_id"]),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "protocol_version", "phase", "round_no", "blind_barrier_state"],
    properties: {
      topic_id: { type: "string" },
      protocol_version: { type: "string" },
      phase: { type: ["string", "null"] },
      round_no: { type: ["integer", "null"] },
      blind_barrier_state: { type: "string" },
      commitments: { type: "array" },
      judge_flip_rates: { type: "array" },
    },
  }),
  examples: [{ title: "the state of an adjudicating debate", input: { topic_id: fx("debateV1TopicId") } }],
  run: (a, ctx) => protocolState(ctx, a),
});
