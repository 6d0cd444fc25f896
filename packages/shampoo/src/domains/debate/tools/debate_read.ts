import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateReadInput } from "../inputs.gen.ts";
import { D, MESSAGE } from "../schemas.ts";
import { debateRead } from "../service/reads.ts";

export const debate_read = tool<DebateReadInput>({
  name: "debate_read",
  title: "Read a debate transcript",
  description:
    "Reads the topic-wide transcript (the broadcast view every participant shares) after a compound cursor, oldest first, with kind and priority filters. Cursor precedence: since_msg_id, then since_ts, then since_latest_compaction (resume at the newest COMPACTION snapshot), then the stored cursor of your own binding of the role, then the start. limit defaults to 100 (1..1000); a longer window reports truncated with next cursors. Sealed blind positions show [SEALED] with their commitment for everyone. Gated by project scope AND participation (conductor and star in scope read without a binding); missing, foreign, sentinel and outsider topics answer unknown_topic alike. Pure read: advances no cursor.",
  kind: "read",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role of the topic: the reading view."),
      kind_filter_csv: D.optText(500, "Comma-separated kinds."),
      limit: D.int(-1_000_000, 1_000_000, "Page size, clamped to 1..1000 (default 100)."),
      priority_filter_csv: D.optText(100, "Comma-separated priorities (H, M, L, INFO)."),
      since_latest_compaction: D.bool("When true, resume at the latest COMPACTION snapshot."),
      since_msg_id: D.optUuid("Explicit cursor: messages after this one."),
      since_ts: D.optIsoUtc("Messages after this ISO-8601 UTC time."),
    },
    ["topic_id", "role"],
  ),
  outputSchema: output({
    type: "object",
    required: ["messages", "topic_state", "count", "truncated", "limit", "bootstrap_compaction_msg_id"],
    properties: {
      messages: { type: "array", items: MESSAGE },
      topic_state: { type: "string" },
      last_msg_id_returned: { type: ["string", "null"] },
      last_ts_returned: { type: ["string", "null"] },
      count: { type: "integer" },
      truncated: { type: "boolean" },
      next_msg_id_cursor: { type: ["string", "null"] },
      next_ts_cursor: { type: ["string", "null"] },
      limit: { type: "integer" },
      bootstrap_compaction_msg_id: { type: ["string", "null"] },
    },
  }),
  examples: [{ title: "read the transcript", input: { topic_id: fx("debateTopicId"), role: "CONDUCTOR", limit: 200 } }],
  run: (a, ctx) => debateRead(ctx, a),
});
