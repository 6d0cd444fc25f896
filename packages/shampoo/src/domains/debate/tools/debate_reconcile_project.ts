import { fx, input, output, tool } from "../../../tooling.ts";
import type { DebateReconcileProjectInput } from "../inputs.gen.ts";
import { D } from "../schemas.ts";
import { reconcileProject } from "../service/topics.ts";

export const debate_reconcile_project = tool<DebateReconcileProjectInput>({
  name: "debate_reconcile_project",
  title: "Set a legacy topic's project",
  description:
    "Sets a legacy (sentinel) topic's project exactly once, one way: the sole escape hatch for sentinel topics, which deny everyone (star and conductor included) on every other path until this call. Conductor callers only; the project must be an explicit, writable project ('*' and 'sentinel' are rejected). Unknown and already-set topics answer the same invalid-project refusal. Returns topic_id, project and matched (1): identifiers only, never transcript content.",
  kind: "write",
  access: ["conductor"],
  inputSchema: input(
    { topic_id: D.topicId, project: D.text(200, "Explicit project value; sentinel and wildcard values are rejected.") },
    ["topic_id", "project"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "project", "matched"],
    properties: { topic_id: { type: "string" }, project: { type: "string" }, matched: { type: "integer", enum: [1] } },
  }),
  examples: [
    {
      title: "reconcile an imported legacy topic",
      input: { topic_id: fx("debateSentinelTopicId"), project: fx("project") },
    },
  ],
  run: (a, ctx) => reconcileProject(ctx, a),
});
