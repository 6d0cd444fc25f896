import type { JsonSchema } from "kernel";
import { CURSOR_MODES, ISO_UTC_PATTERN, KINDS, PRIORITIES, ROLE_PATTERN, TOPIC_STATES, UUID_PATTERN } from "./rules.ts";

/** JSON Schema pieces the debate tools share. */

const text = (maxLength: number, description: string): JsonSchema => ({ type: "string", maxLength, description });
const opt = (s: JsonSchema): JsonSchema => ({ ...s, type: ["string", "null"] });

export const D = {
  /** Self-describing, so it carries no description (which keeps inputs.gen.ts under 600 lines). */
  topicId: { type: "string", pattern: UUID_PATTERN },
  uuid: (description: string): JsonSchema => ({ type: "string", pattern: UUID_PATTERN, description }),
  optUuid: (description: string): JsonSchema => ({
    type: ["string", "null"],
    anyOf: [{ type: "string", pattern: UUID_PATTERN }, { type: "string", maxLength: 0 }, { type: "null" }],
    description,
  }),
  role: (description: string): JsonSchema => ({ type: "string", pattern: ROLE_PATTERN, description }),
  optRole: (description: string): JsonSchema => ({
    type: ["string", "null"],
    anyOf: [{ type: "string", pattern: ROLE_PATTERN }, { type: "string", maxLength: 0 }, { type: "null" }],
    description,
  }),
  text,
  optText: (maxLength: number, description: string): JsonSchema => opt(text(maxLength, description)),
  body: { type: "string", minLength: 1, maxLength: 200_000, description: "Message body; must not be blank." },
  priority: { type: "string", enum: [...PRIORITIES], description: "H | M | L | INFO." },
  kind: { type: "string", enum: [...KINDS], description: "Message kind (DECISION, Q, A, CLAIM, REBUT, STATUS, …)." },
  topicState: {
    type: "string",
    enum: [...TOPIC_STATES],
    description: "INIT | ACTIVE | RESOLVED | ARCHIVED; forward only.",
  },
  isoUtc: (description: string): JsonSchema => ({ type: "string", pattern: ISO_UTC_PATTERN, description }),
  optIsoUtc: (description: string): JsonSchema => ({
    type: ["string", "null"],
    anyOf: [{ type: "string", pattern: ISO_UTC_PATTERN }, { type: "string", maxLength: 0 }, { type: "null" }],
    description,
  }),
  cursorMode: { type: "string", enum: [...CURSOR_MODES], description: "head | copy | replay." },
  bool: (description: string): JsonSchema => ({ type: ["boolean", "null"], description }),
  int: (minimum: number, maximum: number, description: string): JsonSchema => ({
    type: ["integer", "null"],
    minimum,
    maximum,
    description,
  }),
  vehicle: {
    type: ["string", "null"],
    enum: ["", "analysis", "implementation", null],
    description: "analysis (default) or implementation (fails closed at worker claim).",
  },
} as const;

/** The post result (debate_post, debate_post_with_recipients, escalate, compact, watermark). */
export const POST_RESULT: JsonSchema = {
  type: "object",
  required: ["msg_id", "ts", "topic_state", "vehicle"],
  properties: {
    msg_id: { type: "string" },
    ts: { type: "string" },
    topic_state: { type: "string" },
    vehicle: { type: "string" },
    topic_id: { type: "string" },
    schema_version: { type: "string" },
    protocol_version: { type: "string" },
    round_no: { type: ["integer", "null"] },
    body_mode: { type: ["string", "null"] },
    protocol_state: { type: "object" },
    commitment: { type: "string" },
  },
};

/** The binding result (bind, add_role, rotate). */
export const BINDING_RESULT: JsonSchema = {
  type: "object",
  required: ["topic_id", "role", "session_id", "state", "generation", "retired_sessions", "retired_worker_claims"],
  properties: {
    topic_id: { type: "string" },
    role: { type: "string" },
    session_id: { type: "string" },
    runtime: { type: ["string", "null"] },
    state: { type: "string" },
    generation: { type: "integer" },
    retired_sessions: { type: "integer" },
    retired_worker_claims: { type: "integer" },
    added_role: { type: "boolean" },
  },
};

/** The transition result (debate_state, debate_close_topic). */
export const TRANSITION_RESULT: JsonSchema = {
  type: "object",
  required: [
    "old_state",
    "new_state",
    "ts",
    "blocking_questions",
    "transition_msg_id",
    "body",
    "retired_bindings",
    "retired_worker_claims",
  ],
  properties: {
    old_state: { type: "string" },
    new_state: { type: "string" },
    ts: { type: "string" },
    blocking_questions: { type: "array" },
    transition_msg_id: { type: ["string", "null"] },
    body: { type: ["string", "null"] },
    retired_bindings: { type: "integer" },
    retired_worker_claims: { type: "integer" },
    judge_flip_rates: { type: "array" },
  },
};

/** A message as reads return it (sealed blind positions show "[SEALED]"). */
export const MESSAGE: JsonSchema = {
  type: "object",
  required: ["msg_id", "ts", "role", "priority", "kind", "body"],
  properties: {
    msg_id: { type: "string" },
    ts: { type: "string" },
    role: { type: "string" },
    priority: { type: "string" },
    kind: { type: "string" },
    body: { type: "string" },
  },
};

/** A worker claim's answer. */
export const CLAIM_RESULT: JsonSchema = {
  type: "object",
  required: ["topic_id", "role", "parent_session_id", "trigger_msg_id", "state", "duplicate", "no_action"],
  properties: {
    topic_id: { type: "string" },
    role: { type: "string" },
    parent_session_id: { type: "string" },
    trigger_msg_id: { type: "string" },
    worker_session_id: { type: ["string", "null"] },
    state: { type: "string" },
    generation: { type: "integer" },
    duplicate: { type: "boolean" },
    no_action: { type: "boolean" },
  },
};
