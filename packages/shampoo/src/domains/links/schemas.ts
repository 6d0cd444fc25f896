import type { JsonSchema } from "kernel";
import { SIGNALS } from "./rules.ts";

/** Result shapes shared by the link tools. */

export const LABEL_PROGRESS: JsonSchema = {
  type: "object",
  required: ["accepted", "rejected", "total"],
  additionalProperties: false,
  properties: { accepted: { type: "integer" }, rejected: { type: "integer" }, total: { type: "integer" } },
};

const perSignal = (value: JsonSchema): JsonSchema => ({
  type: "object",
  required: [...SIGNALS],
  additionalProperties: false,
  properties: Object.fromEntries(SIGNALS.map((s) => [s, value])),
});

export const SUGGESTION: JsonSchema = {
  type: "object",
  required: [
    "entity_id",
    "entity_name",
    "entity_type",
    "score",
    "signals",
    "reasons",
    "matched_aliases",
    "shared_keywords",
    "fts_rank",
    "vector_rank",
    "existing_decision",
    "rank",
  ],
  additionalProperties: false,
  properties: {
    entity_id: { type: "string" },
    entity_name: { type: "string" },
    entity_type: { type: "string" },
    score: { type: "number" },
    signals: {
      type: "object",
      required: ["raw", "weights", "contributions"],
      additionalProperties: false,
      properties: {
        raw: perSignal({ type: ["number", "null"] }),
        weights: perSignal({ type: "number" }),
        contributions: perSignal({ type: "number" }),
      },
    },
    reasons: { type: "array", items: { type: "string" } },
    matched_aliases: { type: "array", items: { type: "string" } },
    shared_keywords: { type: "array", items: { type: "string" } },
    fts_rank: { type: ["integer", "null"] },
    vector_rank: { type: ["integer", "null"] },
    existing_decision: {
      type: ["object", "null"],
      required: ["decision_id", "decision", "source", "decided_at"],
      properties: {
        decision_id: { type: "string" },
        decision: { type: "string" },
        source: { type: "string" },
        decided_at: { type: "string" },
      },
    },
    rank: { type: "integer" },
  },
};
