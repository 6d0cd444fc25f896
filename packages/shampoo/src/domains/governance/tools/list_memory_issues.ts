import { scopeOf } from "../../../access/caller.ts";
import { read } from "../../../platform/write.ts";
import { input, output, tool } from "../../../tooling.ts";
import { ISSUE_KINDS, issueView } from "../service/audit.ts";
import { issues } from "../store.ts";

export const LIST_DEFAULT = 20;
export const LIST_MAX = 100;

export const list_memory_issues = tool({
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
  run: (a, ctx) => {
    const limit = Math.max(1, Math.min(LIST_MAX, typeof a.limit === "number" ? a.limit : LIST_DEFAULT));
    const offset = Math.max(0, typeof a.offset === "number" ? a.offset : 0);
    const status = typeof a.status === "string" ? a.status : "open";
    return read(ctx, async (db) => {
      let q = issues(db, scopeOf(ctx.caller));
      if (status !== "all") q = q.where("status", "=", status);
      if (typeof a.kind === "string") q = q.where("kind", "=", a.kind);
      const total = Number((await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
      const rows = await q
        .selectAll()
        .orderBy("first_seen_at")
        .orderBy("issue_id")
        .limit(limit)
        .offset(offset)
        .execute();
      return {
        issues: rows.map(issueView),
        count: rows.length,
        total,
        limit,
        offset,
        next_offset: offset + rows.length < total ? offset + rows.length : null,
      };
    });
  },
});
