import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateSearchInput } from "../inputs.gen.ts";
import { D, MESSAGE } from "../schemas.ts";
import { debateSearch } from "../service/reads.ts";

export const debate_search = tool<DebateSearchInput>({
  name: "debate_search",
  title: "Search a debate",
  description:
    "Searches one topic's message bodies by literal, case-sensitive substring (no character is a wildcard, so input never widens the match; both engines match the same messages), newest first, in the same message shape as debate_read. Sealed blind positions never match, so neither a hit nor a miss can reveal them. limit defaults to 20, capped at 100; non-positive values collapse to one hit. viewer_role shapes nothing beyond the gate. Same topic gate as debate_read (unknown_topic for missing, foreign, sentinel and outsider topics). Pure read.",
  kind: "read",
  inputSchema: input(
    {
      topic_id: D.topicId,
      query: { type: "string", minLength: 1, maxLength: 1000, description: "Matched literally and case-sensitively." },
      limit: D.int(-1_000_000, 1_000_000, "Capped page size (default 20, at most 100); non-positive → 1."),
      viewer_role: D.optRole("Shapes blind-claim visibility only, never the gate."),
    },
    ["topic_id", "query"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "query", "count", "limit", "messages"],
    properties: {
      topic_id: { type: "string" },
      query: { type: "string" },
      count: { type: "integer" },
      limit: { type: "integer" },
      messages: { type: "array", items: MESSAGE },
    },
  }),
  examples: [
    { title: "find the packaging decision", input: { topic_id: fx("debateTopicId"), query: "musl", limit: 5 } },
  ],
  run: (a, ctx) => debateSearch(ctx, a),
});
