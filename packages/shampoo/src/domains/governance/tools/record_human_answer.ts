import { fx, input, output, tool } from "../../../tooling.ts";
import type { RecordHumanAnswerInput } from "../inputs.gen.ts";
import { recordHumanAnswer } from "../service/chunks.ts";

export const record_human_answer = tool<RecordHumanAnswerInput>({
  name: "record_human_answer",
  title: "Record a human's answer",
  description:
    "Records a human's answer about a chunk: marks the addressed open questions answered (question_id answers one; omit it to answer every open question of the chunk), appends the answer to the chunk body (a fresh source hash, so the chunk is assessable again), moves awaiting_human or uncertain chunks back to enrichable, and records resolution provenance, history and a run-history entry. Frozen chunks answer a cannot-record error; unknown chunks 'chunk not found', unknown or already answered questions 'question not found'. All-or-nothing.",
  inputSchema: input(
    {
      chunk_ref: { type: "string", minLength: 1, maxLength: 200, description: "Chunk id, or a task/note id." },
      answer_text: {
        type: "string",
        minLength: 1,
        maxLength: 20_000,
        description: "The answer, appended to the chunk body.",
      },
      question_id: {
        type: "string",
        minLength: 1,
        maxLength: 200,
        description: "One question to answer; omit to answer all open ones.",
      },
    },
    ["chunk_ref", "answer_text"],
  ),
  outputSchema: output({
    type: "object",
    required: ["chunk_id", "new_state", "previous_state", "questions_resolved", "source_hash_updated"],
    additionalProperties: false,
    properties: {
      chunk_id: { type: "string" },
      new_state: { type: "string" },
      previous_state: { type: "string" },
      questions_resolved: { type: "integer" },
      source_hash_updated: { type: "boolean" },
    },
  }),
  examples: [
    {
      title: "answer about a chunk",
      input: { chunk_ref: fx("askChunkId"), answer_text: "It applies to the e2e project." },
    },
  ],
  kind: "write",
  run: (a, ctx) => recordHumanAnswer(ctx, a),
});
