import { fx, input, output, tool } from "../../../tooling.ts";
import type { PromoteCandidateInput } from "../inputs.gen.ts";
import { MODES } from "../rules/promotion.ts";
import { promoteCandidate } from "../service/claims.ts";

export const promote_candidate = tool<PromoteCandidateInput>({
  name: "promote_candidate",
  title: "Promote a candidate claim to a fact",
  description:
    "Promotes a candidate claim to a canonical fact, or reinforces an identical live fact (same subject, predicate, object, scope and project: reused_existing_fact true; never duplicated). mode defaults to human_confirmed. Policy gates: sensitive scopes (mapping, validation, bridge, export) accept only human_confirmed; multi_evidence needs memory scope, at least 3 evidence entries and confidence ≥ 0.7; imported needs memory scope and one evidence entry; auto_layer1 is pipeline-internal (enrich_context) and refused here. A blocked promotion answers promoted false with its reason (human_confirmation_required, insufficient_evidence, low_confidence, wrong_scope, pipeline_internal), not an error. On success the evidence is copied into provenance, structural contradictions (same subject, predicate and scope for a single-valued predicate) are linked with counts refreshed, and history plus a run-history entry are recorded. A claim already promoted answers an error (nothing changes); unknown claims 'claim not found'.",
  inputSchema: input(
    {
      claim_id: { type: "string", minLength: 1, maxLength: 200 },
      mode: { type: "string", enum: [...MODES], description: "Default human_confirmed." },
    },
    ["claim_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["claim_id", "promoted"],
    properties: {
      claim_id: { type: "string" },
      promoted: { type: "boolean" },
      reason: { type: "string" },
      fact_id: { type: "string" },
      subject: { type: "string" },
      predicate: { type: "string" },
      object: { type: "string" },
      scope: { type: "string" },
      validation_mode: { type: "string", enum: [...MODES] },
      reused_existing_fact: { type: "boolean" },
    },
  }),
  examples: [
    {
      title: "promote a candidate claim",
      input: { claim_id: fx("claimId") },
    },
  ],
  kind: "write",
  run: (a, ctx) => promoteCandidate(ctx, a),
});
