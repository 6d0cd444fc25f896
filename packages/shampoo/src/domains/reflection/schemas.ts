import type { JsonSchema } from "kernel";
import { CATEGORIES, DEFAULTS } from "./rules/vocabulary.ts";

/** Property and result schemas shared by the reflection tools. */

const days = (what: string, dflt: number): JsonSchema => ({
  type: "integer",
  minimum: 0,
  maximum: 36_500,
  default: dflt,
  description: what,
});

export const P = {
  runId: {
    type: "string",
    minLength: 1,
    maxLength: 100,
    description: "A reflection run id (reflect_start).",
  } as JsonSchema,
  project: {
    type: "string",
    maxLength: 200,
    description: "Single-project filter; empty means every project, which requires star scope.",
  } as JsonSchema,
  staleDays: days(
    "not_started tasks due more than this many days ago count as stale (default 60).",
    DEFAULTS.stale_days,
  ),
  inboxDays: days("Inbox items untouched this long are flagged (default 30).", DEFAULTS.abandoned_inbox_days),
  limitPerCategory: {
    type: "integer",
    default: DEFAULTS.limit_per_category,
    description: "Cap on candidates per category (default 20; below 1 counts as 1).",
  } as JsonSchema,
  actor: (what: string): JsonSchema => ({
    type: "string",
    maxLength: 200,
    default: "user",
    description: `${what} Attribution only: stored verbatim, grants nothing (default user).`,
  }),
};

export const FINDING: JsonSchema = {
  type: "object",
  required: ["type", "target_kind", "target_ref", "suggested_action", "confidence", "evidence"],
  properties: {
    type: { type: "string", enum: [...CATEGORIES] },
    target_kind: { type: "string", enum: ["task", "entity"] },
    target_ref: { type: "string" },
    suggested_action: { type: "string" },
    confidence: { type: "number" },
    evidence: { type: "object" },
  },
};

export const SUMMARY: JsonSchema = {
  type: "object",
  required: ["total_candidates", "by_category", "applied_filters"],
  properties: {
    total_candidates: { type: "integer" },
    by_category: { type: "object" },
    applied_filters: { type: "object" },
  },
};

export const RUN: JsonSchema = {
  type: "object",
  required: ["run_id", "status", "project", "version", "created_by", "candidates_persisted", "created_at"],
  properties: {
    run_id: { type: "string" },
    status: { type: "string" },
    project: { type: ["string", "null"] },
    version: { type: "string" },
    created_by: { type: "string" },
    candidates_persisted: { type: "integer" },
    created_at: { type: "string" },
    archived_at: { type: ["string", "null"] },
  },
};
