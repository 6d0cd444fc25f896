import { type Scope, SENSITIVE } from "./claims.ts";

/**
 * Promotion modes and their policy gates (catalog "promotion modes"):
 * - human_confirmed (default): a person vouches for the claim; the only mode sensitive scopes
 *   (mapping, validation, bridge, export) accept.
 * - multi_evidence: memory scope, at least 3 evidence entries, confidence ≥ 0.7.
 * - imported: memory scope and at least one evidence entry (the claim came in with its source).
 * - auto_layer1: pipeline-internal (enrich_context's auto-promotion): memory scope, confidence
 *   ≥ 0.85, and a claim that does not require a human. Refused when a caller names it.
 * A refused promotion is data (promoted false with a reason), never an error.
 */
export const MODES = ["human_confirmed", "multi_evidence", "imported", "auto_layer1"] as const;
export type Mode = (typeof MODES)[number];

export const MULTI_EVIDENCE_MIN = 3;
/** Confidence is compared in hundredths (claims carry 2 digits), so 0.7 is never 0.69999…. */
export const MULTI_EVIDENCE_CONFIDENCE = 70;
export const AUTO_CONFIDENCE = 85;

export type BlockReason =
  | "human_confirmation_required"
  | "wrong_scope"
  | "insufficient_evidence"
  | "low_confidence"
  | "pipeline_internal";

export interface GateInput {
  mode: Mode;
  scope: Scope;
  confidence: number;
  evidence: number;
  requiresHuman: boolean;
  /** True only on enrich_context's internal path. */
  internal: boolean;
}

const hundredths = (c: number) => Math.round(c * 100);

/** null: the promotion may go ahead; otherwise the reason it is blocked. */
export function gate(g: GateInput): BlockReason | null {
  if (g.mode === "auto_layer1" && !g.internal) return "pipeline_internal";
  if (g.mode === "human_confirmed") return null;
  if (SENSITIVE.has(g.scope)) return "human_confirmation_required";
  if (g.scope !== "memory") return "wrong_scope";
  if (g.mode === "multi_evidence") {
    if (g.evidence < MULTI_EVIDENCE_MIN) return "insufficient_evidence";
    if (hundredths(g.confidence) < MULTI_EVIDENCE_CONFIDENCE) return "low_confidence";
    return null;
  }
  if (g.mode === "imported") return g.evidence >= 1 ? null : "insufficient_evidence";
  // auto_layer1
  if (g.requiresHuman) return "human_confirmation_required";
  return hundredths(g.confidence) >= AUTO_CONFIDENCE ? null : "low_confidence";
}
