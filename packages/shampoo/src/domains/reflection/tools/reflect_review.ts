import { fx, input, output, tool } from "../../../tooling.ts";
import type { ReflectReviewInput } from "../inputs.gen.ts";
import { CATEGORIES, REVIEW_LIMIT } from "../rules/vocabulary.ts";
import { P } from "../schemas.ts";
import { reviewCandidates } from "../service/candidates.ts";

export const reflect_review = tool<ReflectReviewInput>({
  name: "reflect_review",
  title: "Review a run's candidates",
  description:
    "Pages through a run's persisted candidates in run order, with parsed evidence, decision fields and an already_applied flag from the apply snapshots. Pure read. Candidates are filtered by their evidence project too, so you see (and count) only what your grants allow; a run you cannot reach reads as the empty shape.",
  inputSchema: input(
    {
      run_id: { ...P.runId, description: "Parent run id." },
      candidate_type_filter: {
        type: "string",
        description: `Optional category narrowing, one of ${CATEGORIES.join(", ")} (e.g. 'stale_overdue_tasks').`,
      },
      decision_filter: {
        type: "string",
        description: "Empty, pending, accept, reject, or defer; anything else is an error (unknown_decision_filter).",
      },
      limit: {
        type: "integer",
        default: REVIEW_LIMIT.default,
        description: `Max rows (default ${REVIEW_LIMIT.default}, clamped ${REVIEW_LIMIT.min}..${REVIEW_LIMIT.max}).`,
      },
      offset: { type: "integer", description: "Pagination cursor; negative behaves as 0." },
    },
    ["run_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["candidates", "total", "limit", "offset", "decision_filter", "candidate_type_filter"],
    properties: {
      candidates: {
        type: "array",
        items: {
          type: "object",
          required: [
            "candidate_id",
            "run_id",
            "type",
            "target_kind",
            "target_ref",
            "evidence",
            "decision",
            "already_applied",
          ],
          properties: {
            candidate_id: { type: "string" },
            run_id: { type: "string" },
            type: { type: "string" },
            suggested_action: { type: "string" },
            target_kind: { type: "string" },
            target_ref: { type: "string" },
            evidence: { type: "object" },
            confidence: { type: "number" },
            decision: { type: "string" },
            already_applied: { type: "boolean" },
          },
        },
      },
      total: { type: "integer" },
      limit: { type: "integer" },
      offset: { type: "integer" },
      decision_filter: { type: "string" },
      candidate_type_filter: { type: "string" },
    },
  }),
  examples: [
    {
      title: "review a run's candidates",
      input: { run_id: fx("runArchive"), decision_filter: "" },
    },
  ],
  kind: "read",
  run: (a, ctx) => reviewCandidates(ctx, a),
});
