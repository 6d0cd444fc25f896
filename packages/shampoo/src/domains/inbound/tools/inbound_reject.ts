import { input, output, tool } from "../../../tooling.ts";
import type { InboundRejectInput } from "../inputs.gen.ts";
import { inboundReject } from "../service/review.ts";

export const inbound_reject = tool<InboundRejectInput>({
  name: "inbound_reject",
  title: "Reject staged inbound items",
  description:
    "Rejects staged items, all or nothing: each is marked rejected with decider, time and reason; content is untouched and nothing is created. item_ids: a JSON array string of t:N / e:N / r:N ids matching kind (a pin, id@digest, is checked when given). A missing, not pending or self-staged item fails the whole call. Conductor only. Answers rejected (ids).",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      kind: { type: "string", enum: ["tasks", "knowledge"], description: "tasks or knowledge." },
      item_ids: { type: "string", maxLength: 200000, description: 'JSON array string of ids, e.g. ["e:1","r:2"].' },
      reason: { type: "string", maxLength: 2000, description: "Recorded as the decision reason on each item." },
    },
    ["kind", "item_ids"],
  ),
  outputSchema: output({ type: "object", required: ["rejected"], properties: { rejected: { type: "array" } } }),
  examples: [
    { title: "reject a staged relation", input: { kind: "knowledge", item_ids: '["r:1"]', reason: "duplicate" } },
  ],
  run: (a, ctx) => inboundReject(ctx, a),
});
