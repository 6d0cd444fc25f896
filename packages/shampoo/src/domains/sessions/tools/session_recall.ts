import { input, output, tool } from "../../../tooling.ts";
import type { SessionRecallInput } from "../inputs.gen.ts";
import { RECALL_DEFAULT, RECALL_MAX } from "../rules.ts";
import { sessionRecall } from "../service.ts";

const nullable = (type: string) => ({ type: [type, "null"] });

export const session_recall = tool<SessionRecallInput>({
  name: "session_recall",
  title: "Recall recent sessions",
  description: `Recalls your most recently saved sessions, newest first, with project, summary, active files and timestamps. Only sessions inside your project grants owned by your principal (star: every owner's); anything else reads as an empty list. last_n defaults to ${RECALL_DEFAULT}; integers, integral floats and booleans (true = 1, false = 0) are accepted; negatives read as 0, values above ${RECALL_MAX} as ${RECALL_MAX}. Pure read.`,
  inputSchema: input({
    last_n: {
      type: ["integer", "boolean"],
      description: `How many sessions to return (default ${RECALL_DEFAULT}, at most ${RECALL_MAX}).`,
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["sessions", "count"],
    additionalProperties: false,
    properties: {
      sessions: {
        type: "array",
        items: {
          type: "object",
          required: ["session_id", "project", "summary", "active_files", "started_at", "ended_at"],
          additionalProperties: false,
          properties: {
            session_id: { type: "string" },
            project: nullable("string"),
            summary: nullable("string"),
            active_files: { type: ["array", "null"], items: { type: "string" } },
            started_at: nullable("string"),
            ended_at: nullable("string"),
          },
        },
      },
      count: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "the last five sessions",
      input: { last_n: 5 },
    },
  ],
  kind: "read",
  run: (a, ctx) => sessionRecall(ctx, a),
});
