import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectHistoryInput } from "../inputs.gen.ts";
import { HISTORY_LIMIT } from "../rules/vocabulary.ts";
import { P, RUN } from "../schemas.ts";
import { runHistory } from "../service/runs.ts";

export const reflect_history = tool<ReflectHistoryInput>({
  name: "reflect_history",
  title: "List reflection runs",
  description:
    "Lists the reflection runs you can reach, newest first: runs of your granted projects, and unfiltered runs with star scope. Archived runs are hidden unless include_archived is true; discarded runs are never listed. Pure read.",
  inputSchema: input({
    project: { ...P.project, description: "Only runs of this project (empty: every run you can reach)." },
    status: {
      type: "string",
      description: "Only runs in this status: pending, running, completed, failed or canceled.",
    },
    include_archived: { type: "boolean", default: false, description: "Also list archived runs (default false)." },
    limit: {
      type: "integer",
      default: HISTORY_LIMIT.default,
      description: `Max runs (default ${HISTORY_LIMIT.default}, clamped ${HISTORY_LIMIT.min}..${HISTORY_LIMIT.max}).`,
    },
    offset: { type: "integer", description: "Pagination cursor; negative behaves as 0." },
  }),
  outputSchema: output({
    type: "object",
    required: ["runs", "total", "limit", "offset", "include_archived"],
    properties: {
      runs: { type: "array", items: RUN },
      total: { type: "integer" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      include_archived: { type: "boolean" },
    },
  }),
  examples: [
    {
      title: "a project's runs, archived included",
      input: { project: fx("project"), include_archived: true },
    },
  ],
  kind: "read",
  run: (a, ctx) => runHistory(ctx, a),
});
