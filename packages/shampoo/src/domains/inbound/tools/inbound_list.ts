import { input, output, tool } from "../../../tooling.ts";
import type { InboundListInput } from "../inputs.gen.ts";
import { inboundList } from "../service/review.ts";

export const inbound_list = tool<InboundListInput>({
  name: "inbound_list",
  title: "List staged inbound items",
  description:
    "Lists staged inbound material awaiting review (default: pending; approved and rejected are queryable), each item with its id and its pin (id@digest of its content: what inbound_approve must name). Entities carry a set-difference diff against the live graph you see (new_entity; merge with new_observations; type_conflict); relations carry from_present / to_present. kind '' (both), tasks or knowledge; unknown kind or state values answer the empty shape. Project scope AND quorum participation filter silently; conductor and star see all; untargeted items are theirs only. Staged items appear on no other read path until approved. limit defaults to 20, clamped to 1..100. Read-only.",
  kind: "read",
  inputSchema: input({
    kind: { type: "string", maxLength: 40, description: "'' (both), tasks or knowledge." },
    limit: { type: "integer", description: "Default 20, clamped to 1..100." },
    project: { type: "string", maxLength: 200, description: "Only items targeting this project." },
    quorum_id: { type: "string", maxLength: 100, description: "Only items staged for this quorum." },
    state: { type: "string", maxLength: 40, description: "pending (default), approved or rejected." },
  }),
  outputSchema: output({
    type: "object",
    required: ["tasks", "entities", "relations", "count"],
    properties: {
      tasks: { type: "array" },
      entities: { type: "array" },
      relations: { type: "array" },
      count: { type: "integer" },
    },
  }),
  examples: [{ title: "pending items", input: { kind: "" } }],
  run: (a, ctx) => inboundList(ctx, a),
});
