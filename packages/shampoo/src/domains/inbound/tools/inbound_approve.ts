import { input, output, tool } from "../../../tooling.ts";
import type { InboundApproveInput } from "../inputs.gen.ts";
import { inboundApprove } from "../service/review.ts";

export const inbound_approve = tool<InboundApproveInput>({
  name: "inbound_approve",
  title: "Approve staged inbound items",
  description:
    "Approves staged items into agreed state, all or nothing. item_ids: a JSON array string of the pins inbound_list shows (t:N@digest for tasks; e:N@…, r:N@… for knowledge), matching kind: an item that is missing, not pending, changed since it was listed, or staged by you fails the whole call, naming each item and why, with nothing applied. Tasks are created fresh through the real creation path under your grants; entities merge additively (only new observations; a type conflict is skipped); relations need both endpoints live or approved in this batch (else skipped). Conductor only. Answers approved (id, plus task_id / entity_id) and skipped (id, reason; skipped items stay pending).",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      kind: { type: "string", enum: ["tasks", "knowledge"], description: "tasks or knowledge." },
      item_ids: {
        type: "string",
        maxLength: 200000,
        description: 'JSON array string of pinned ids as inbound_list shows them, e.g. ["t:1@0123456789abcdef"].',
      },
      reason: { type: "string", maxLength: 2000, description: "Recorded as the decision reason on each item." },
    },
    ["kind", "item_ids"],
  ),
  outputSchema: output({
    type: "object",
    required: ["approved", "skipped"],
    properties: { approved: { type: "array" }, skipped: { type: "array" } },
  }),
  examples: [{ title: "approve what was listed", input: { kind: "tasks", item_ids: '["t:1@0000000000000000"]' } }],
  run: (a, ctx) => inboundApprove(ctx, a),
});
