import { input, output, tool } from "../../../tooling.ts";
import type { ReadyContextInput } from "../inputs.gen.ts";
import { READY_CONTRACT_VERSION, READY_LIMIT, READY_MODES, READY_STATES } from "../rules/ready.ts";
import { readyContext } from "../service/ready.ts";

const RECORD = {
  type: "object",
  required: [
    "id",
    "title",
    "ready_state",
    "score",
    "urgency",
    "reasons",
    "reason_primary",
    "blockers",
    "provenance",
    "sort_position",
  ],
  properties: {
    id: { type: "string" },
    title: { type: "string" },
    ready_state: { enum: [...READY_STATES] },
    score: { type: "number" },
    urgency: { enum: ["critical", "high", "medium", "low"] },
    reasons: { type: "array", items: { type: "string" } },
    reason_primary: { type: "string" },
    blockers: { type: "array", items: { type: "object", required: ["kind", "detail"] } },
    provenance: { type: "object", required: ["source_kind", "source_id", "rule_version"] },
    sort_position: { type: "integer", minimum: 0 },
  },
};
const RECORDS = { type: "array", items: RECORD };

export const ready_context = tool<ReadyContextInput>({
  name: "ready_context",
  title: "Ready context",
  description:
    "What to work on next, deterministically, across every project you can see: live tasks scored into ready states (ready_now, suggested_ready, blocked, waiting, cleanup_candidate, deferred) with reasons, urgency, blockers and provenance. Consult it before broad memory search. mode ready (default): scored records; suggested: task-shaped candidates; prime: a compact session boot pack. contract_version ready_context.v1.",
  inputSchema: input({
    include_readings: {
      type: "boolean",
      description: "Also score live notes as readings (state reading; prime adds a readings list). Off by default.",
    },
    limit: {
      type: "integer",
      description: `Items per list, clamped to ${READY_LIMIT.min}..${READY_LIMIT.max} (default ${READY_LIMIT.default}).`,
    },
    mode: {
      type: "string",
      maxLength: 40,
      description:
        "ready (scored records, default) | suggested (task-shaped candidates) | prime (session boot pack). Anything else returns an error with valid_modes.",
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["contract_version", "mode", "today_used"],
    properties: {
      contract_version: { const: READY_CONTRACT_VERSION },
      mode: { enum: [...READY_MODES] },
      today_used: { type: "string" },
      count: { type: "integer", minimum: 0 },
      total: { type: "integer", minimum: 0 },
      truncated: { type: "boolean" },
      items: { type: "array", items: { type: "object", required: ["id", "title", "ready_state", "sort_position"] } },
      mandate: { type: "string" },
      guidance: { type: "string" },
      items_empty: { type: "boolean" },
      top_ready_items: RECORDS,
      blocked_or_waiting: RECORDS,
      cleanup_candidates: RECORDS,
      explicit_exclusions: { type: "array", items: { type: "object", required: ["id", "title", "status"] } },
      risk_or_escalation_items: RECORDS,
      evidence_refs: { type: "array", items: { type: "object" } },
      readings: RECORDS,
    },
    // One shape per mode (const-discriminated, so exactly one applies).
    oneOf: [
      { properties: { mode: { const: "ready" } }, required: ["count", "total", "truncated", "items"] },
      { properties: { mode: { const: "suggested" } }, required: ["count", "total", "truncated", "items"] },
      {
        properties: { mode: { const: "prime" } },
        required: [
          "mandate",
          "guidance",
          "items_empty",
          "top_ready_items",
          "blocked_or_waiting",
          "cleanup_candidates",
          "explicit_exclusions",
          "risk_or_escalation_items",
          "evidence_refs",
        ],
      },
    ],
  }),
  examples: [
    {
      title: "what is ready to work on",
      input: {},
    },
  ],
  kind: "read",
  run: (a, ctx) => readyContext(ctx, a),
});
