import { fx, input, output, tool } from "../../../tooling.ts";
import type { ResumeContextInput } from "../inputs.gen.ts";
import { resumeContext } from "../service.ts";

export const resume_context = tool<ResumeContextInput>({
  name: "resume_context",
  title: "Resume where the last session left off",
  description:
    "Session continuity: builds and persists a handoff pack (with a run-history entry) and returns it. The pack (4000-token budget) holds the session's summary and active files, its project's open tasks (descriptions, assignees, blocked/waiting) with their last 7 days of history; without session_id, a general handoff over every project you can see. Also returned, and in the pack: open_questions (up to 20, most urgent first), chunks_awaiting_human (up to 10), changed_facts_since_last_session (up to 20, last 7 days). A session must be yours, handed to you (session_save handoff_to) or any with star, inside your grants, else 'session not found'; a malformed id answers 'session_id must be a UUID returned by session_save'. Persisted, hence a write.",
  inputSchema: input({
    include_open_questions: {
      type: "boolean",
      description: "Defaults true; false skips the open-question scan.",
    },
    session_id: {
      type: ["string", "null"],
      maxLength: 200,
      description:
        "Session to resume (a UUID from session_save). Absent or blank: a general handoff with no session data.",
    },
  }),
  outputSchema: output({
    type: "object",
    required: [
      "session_id",
      "open_questions",
      "changed_facts_since_last_session",
      "chunks_awaiting_human",
      "pack",
      "summary",
    ],
    additionalProperties: false,
    properties: {
      session_id: { type: ["string", "null"] },
      open_questions: {
        type: "array",
        maxItems: 20,
        items: {
          type: "object",
          properties: {
            text: { type: "string" },
            type: { type: "string" },
            priority: { type: ["string", "number"] },
            chunk_title: { type: ["string", "null"] },
          },
        },
      },
      changed_facts_since_last_session: { type: "array", maxItems: 20, items: { type: "object" } },
      chunks_awaiting_human: { type: "array", maxItems: 10, items: { type: "object" } },
      pack: {
        type: "object",
        required: ["pack_id", "token_usage", "freshness_score", "body"],
        additionalProperties: false,
        properties: {
          pack_id: { type: "string" },
          token_usage: { type: "integer" },
          freshness_score: { type: "number", minimum: 0, maximum: 1 },
          body: { type: "string" },
        },
      },
      summary: { type: "string" },
    },
  }),
  examples: [
    {
      title: "resume from a saved session",
      input: { session_id: fx("sessionId") },
    },
  ],
  kind: "write",
  run: (a, ctx) => resumeContext(ctx, a),
});
