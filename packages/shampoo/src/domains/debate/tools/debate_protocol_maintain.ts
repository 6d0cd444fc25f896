import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateProtocolMaintainInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { protocolMaintain } from "../service/protocol.ts";

export const debate_protocol_maintain = tool<DebateProtocolMaintainInput>({
  name: "debate_protocol_maintain",
  title: "Run the debate liveness sweeps",
  description:
    "Runs the deterministic liveness sweeps by hand (no scheduler calls it): every debate/v1 phase past its deadline moves to STALEMATE (reason phase_timeout:<phase>, compare-and-swap, global by design), and declared roles that lost their active owner (never HUMAN or OPERATOR; open seats nobody took are not lost) gain a recovery binding on a fresh session owned by the caller, carrying the newest primary-or-completed-worker cursor. topic_ids_csv scopes only the recovery sweep. Conductor callers only. Returns timed_out and role_recoveries in topic order.",
  kind: "write",
  access: ["conductor"],
  inputSchema: input({
    topic_ids_csv: D.optText(40_000, "Comma-separated topic ids: scopes ONLY the missing-role recovery sweep."),
  }),
  outputSchema: output({
    type: "object",
    required: ["timed_out", "role_recoveries"],
    properties: { timed_out: { type: "array" }, role_recoveries: { type: "array" } },
  }),
  examples: [{ title: "sweep one topic", input: { topic_ids_csv: fx("debateTopicId") } }],
  run: (a, ctx) => protocolMaintain(ctx, a),
});
