import { input, output, tool } from "../../../tooling.ts";
import type { TaskDigestInput } from "../inputs.gen.ts";
import { DIGEST_LIMIT, DIGEST_OVERDUE_MAX, taskDigest } from "../service/digest.ts";

export const task_digest = tool<TaskDigestInput>({
  name: "task_digest",
  title: "Task digest",
  description: `The session-start digest (markdown starting with ## Task Digest): status counts, up to ${DIGEST_OVERDUE_MAX} past-due tasks first, then the live tasks of today, inbox and next; never notes. Only tasks inside your project grants; an empty view is the bare header with zero counts.`,
  inputSchema: input({
    include_overdue: {
      type: "boolean",
      description: `When true (default), up to ${DIGEST_OVERDUE_MAX} past-due tasks lead the digest and overdue_count counts them all.`,
    },
    limit: {
      type: "integer",
      description: `Caps the active section listing (today, inbox, next together), clamped to ${DIGEST_LIMIT.min}..${DIGEST_LIMIT.max} (default ${DIGEST_LIMIT.default}).`,
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["digest", "active_count", "overdue_count"],
    properties: {
      digest: { type: "string", pattern: "^## Task Digest" },
      active_count: { type: "integer", minimum: 0 },
      overdue_count: { type: "integer", minimum: 0 },
      status_counts: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
    },
  }),
  examples: [
    {
      title: "the digest of every task",
      input: {},
    },
  ],
  kind: "read",
  run: (a, ctx) => taskDigest(ctx, a),
});
