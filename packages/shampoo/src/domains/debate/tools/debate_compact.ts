import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateCompactInput } from "../inputs.gen.ts";
import { D, POST_RESULT } from "../schemas.ts";
import { compact } from "../service/messages.ts";

export const debate_compact = tool<DebateCompactInput>({
  name: "debate_compact",
  title: "Write a compaction snapshot",
  description:
    "Writes a COMPACTION snapshot (an ordinary INFO/COMPACTION message) that later reads can resume from: debate_read with since_latest_compaction starts at the newest snapshot, keeping long topics bounded while nothing of the history is removed. The body must carry OBSERVE / ORIENT / DECIDE / ACT sections (each at the start of a line, optionally as a heading); since_ts / until_ts (ISO-8601 UTC) are recorded in the snapshot header. Posts as the named role, so the caller must own its binding (uniform not-found otherwise). Returns the post shape.",
  kind: "write",
  inputSchema: input(
    {
      topic_id: D.topicId,
      role: D.role("A declared role whose binding you own."),
      body: {
        type: "string",
        minLength: 1,
        maxLength: 200_000,
        description: "Must contain OBSERVE / ORIENT / DECIDE / ACT sections.",
      },
      since_ts: D.optIsoUtc("Optional ISO-8601 UTC lower bound recorded in the snapshot header."),
      until_ts: D.optIsoUtc("Optional ISO-8601 UTC upper bound recorded in the snapshot header."),
    },
    ["topic_id", "role", "body"],
  ),
  outputSchema: output(POST_RESULT),
  examples: [
    {
      title: "snapshot the debate so far",
      input: {
        topic_id: fx("debateTopicId"),
        role: "CONDUCTOR",
        body: "OBSERVE\nmusl builds pass\nORIENT\nglibc only for CUDA\nDECIDE\nmusl-first\nACT\nship the musl image",
      },
    },
  ],
  run: (a, ctx) => compact(ctx, a),
});
