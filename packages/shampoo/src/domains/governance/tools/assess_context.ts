import { fx, input, output, tool } from "../../../tooling.ts";
import type { AssessContextInput } from "../inputs.gen.ts";
import { assessContext } from "../service/chunks.ts";

export const assess_context = tool<AssessContextInput>({
  name: "assess_context",
  title: "Assess a context chunk",
  description:
    "Classifies one context chunk: scans its signal markers (decision, constraint, hedge, question, todo, time, reference, freeze), scores materiality and uncertainty (0..1), and advances its lifecycle (new → enrichable or uncertain; a [frozen] marker freezes it). Call it before extraction to make a chunk enrichable. chunk_ref is a chunk id or the id of a task or note you can see (its chunk is made on first use from its title, description and notes, and re-read from it on every assessment). Frozen chunks answer a skip payload unless force is true; an awaiting_human chunk whose source has not changed answers a skip payload too. Unknown or invisible chunks answer 'chunk not found'. session_id is attribution only. Records a run-history entry, and a history event when the chunk changes.",
  inputSchema: input(
    {
      chunk_ref: { type: "string", minLength: 1, maxLength: 200, description: "Chunk id, or a task/note id." },
      force: { type: "boolean", description: "Re-assess a frozen chunk." },
      session_id: { type: ["string", "null"], maxLength: 200, description: "Attribution only; never authority." },
    },
    ["chunk_ref"],
  ),
  outputSchema: output({
    type: "object",
    required: [
      "chunk_id",
      "state",
      "previous_state",
      "policy",
      "materiality",
      "uncertainty",
      "should_skip",
      "skip_reason",
      "signals_detected",
      "annotations_created",
    ],
    properties: {
      chunk_id: { type: "string" },
      state: { type: "string" },
      previous_state: { type: "string" },
      policy: { type: "string" },
      materiality: { type: "number" },
      uncertainty: { type: "number" },
      should_skip: { type: "boolean" },
      skip_reason: { type: ["string", "null"] },
      signals_detected: { type: "array", items: { type: "object" } },
      annotations_created: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "assess a task as a chunk",
      input: { chunk_ref: fx("taskId") },
    },
  ],
  kind: "write",
  run: (a, ctx) => assessContext(ctx, a),
});
