import { fx, input, output, tool } from "../../../tooling.ts";
import type { QueueClarificationInput } from "../inputs.gen.ts";
import { MAX_QUESTIONS, QUESTION_TYPES } from "../rules/questions.ts";
import { queueClarification } from "../service/chunks.ts";

export const queue_clarification = tool<QueueClarificationInput>({
  name: "queue_clarification",
  title: "Ask a human about a chunk",
  description: `Queues typed open questions for a human about one chunk (types ${QUESTION_TYPES.join(", ")}; at most ${MAX_QUESTIONS} open per chunk, a type already open is not asked again; max_questions 1..5, default 5), writes the AWAITING_HUMAN annotation block, and moves the chunk to awaiting_human. Answer with record_human_answer. Frozen chunks answer a cannot-queue error; unknown chunks 'chunk not found'. Questions get history events; a run-history entry is recorded. All-or-nothing.`,
  inputSchema: input(
    {
      chunk_ref: { type: "string", minLength: 1, maxLength: 200, description: "Chunk id, or a task/note id." },
      max_questions: {
        type: "integer",
        minimum: 1,
        maximum: MAX_QUESTIONS,
        description: "How many new questions at most (default 5).",
      },
    },
    ["chunk_ref"],
  ),
  outputSchema: output({
    type: "object",
    required: ["chunk_id", "state", "questions", "awaiting_human_block"],
    properties: {
      chunk_id: { type: "string" },
      state: { type: "string" },
      questions: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "text", "type", "priority"],
          properties: { type: { type: "string", enum: [...QUESTION_TYPES] } },
        },
      },
      awaiting_human_block: { type: "string" },
    },
  }),
  examples: [
    {
      title: "ask about a chunk",
      input: { chunk_ref: fx("askChunkId"), max_questions: 2 },
    },
  ],
  kind: "write",
  run: (a, ctx) => queueClarification(ctx, a),
});
