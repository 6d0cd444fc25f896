import { input, output, tool } from "../../../tooling.ts";
import type { DebateWorkQueueInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { workQueue } from "../service/reads.ts";

export const debate_work_queue = tool<DebateWorkQueueInput>({
  name: "debate_work_queue",
  title: "The debate work queue",
  description:
    "Lists open topics in deterministic conductor priority order: explicit lanes P0..P7 first, then deadline (resolve_by), open questions, active claims, missing role owners and message signals (H messages, newest activity), ties by topic id. Each item carries topic_id, title, state, lane, priority_score, reason_codes, next_action, blocked_by, resolve_by, counts, missing roles, message peaks and latest_message (sealed positions stay sealed). Participation-filtered: unreachable topics vanish silently; malformed ids in topics_csv only populate skipped_invalid_topic_ids. Conductor callers also see sentinel topics as metadata-only reconciliation candidates. limit defaults to 50, capped at 1000; states_csv defaults to INIT,ACTIVE. Pure read.",
  kind: "read",
  inputSchema: input({
    limit: D.int(1, 1_000_000, "Defaults to 50, capped at 1000."),
    states_csv: D.optText(200, "Comma-separated topic states (default INIT,ACTIVE)."),
    topics_csv: D.optText(40_000, "Optional explicit topic filter (comma-separated ids)."),
  }),
  outputSchema: output({
    type: "object",
    required: ["items", "count", "total", "limit", "skipped_invalid_topic_ids", "ordering"],
    properties: {
      items: { type: "array" },
      count: { type: "integer" },
      total: { type: "integer" },
      limit: { type: "integer" },
      skipped_invalid_topic_ids: { type: "array" },
      ordering: { type: "string" },
    },
  }),
  examples: [{ title: "what needs attention next", input: { limit: 10 } }],
  run: (a, ctx) => workQueue(ctx, a),
});
