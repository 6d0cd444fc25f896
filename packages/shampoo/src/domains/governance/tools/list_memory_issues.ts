import { input, output, tool } from "../../../tooling.ts";
import type { ListMemoryIssuesInput } from "../inputs.gen.ts";
import { ISSUE_KINDS, LIST_DEFAULT, LIST_MAX, listMemoryIssues } from "../service/audit.ts";

export const list_memory_issues = tool<ListMemoryIssuesInput>({
  name: "list_memory_issues",
  title: "List memory issues",
  description: `Lists the issues audit_memory recorded (named by audit_memory, missing from the catalog): kinds ${ISSUE_KINDS.join(", ")}. status open (default), resolved or all; kind narrows to one kind. Oldest first (first seen), paged by limit (default ${LIST_DEFAULT}, clamped 1..${LIST_MAX}) and offset (negative reads as 0); next_offset is null on the last page. Only issues about what you can see are listed. Pure read.`,
  inputSchema: input({
    status: { type: "string", enum: ["open", "resolved", "all"] },
    kind: { type: "string", enum: [...ISSUE_KINDS] },
    limit: { type: "integer" },
    offset: { type: "integer" },
  }),
  outputSchema: output({
    type: "object",
    required: ["issues", "count", "total", "limit", "offset", "next_offset"],
    properties: {
      issues: { type: "array", items: { type: "object" } },
      count: { type: "integer" },
      total: { type: "integer" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      next_offset: { type: ["integer", "null"] },
    },
  }),
  examples: [
    {
      title: "every memory issue",
      input: { status: "all" },
    },
  ],
  kind: "read",
  run: (a, ctx) => listMemoryIssues(ctx, a),
});
