/**
 * Reflection's vocabulary (catalog "Reflection" and "Global enums and constants"): the six
 * deterministic audit categories with their suggested actions, the run and decision enums, the
 * skip reasons, and the argument defaults and bounds. Pure data, no database.
 */

export const CONTRACT_VERSION = "reflect_v1.0";

/** The six categories, in the order every report and run lists them. */
export const CATEGORIES = [
  "exact_duplicate_titles",
  "stale_overdue_tasks",
  "empty_description_notes",
  "orphan_parent_tasks",
  "abandoned_inbox_items",
  "entities_no_observations",
] as const;
export type Category = (typeof CATEGORIES)[number];

export type TargetKind = "task" | "entity";

/**
 * Per category: what the finding suggests, what it targets, and a fixed confidence. The audit
 * is deterministic, so confidence is not a probability of the finding (every finding is a fact
 * about the rows); it says how safe the suggested action is to accept without a second look:
 * a redundant copy or a dangling link is cleanly fixed, an old inbox item may still matter.
 */
export const CATEGORY_RULES: Record<Category, { action: string; target: TargetKind; confidence: number }> = {
  exact_duplicate_titles: { action: "merge_or_archive", target: "task", confidence: 0.9 },
  stale_overdue_tasks: { action: "archive_or_reschedule", target: "task", confidence: 0.7 },
  empty_description_notes: { action: "fill_or_archive", target: "task", confidence: 0.8 },
  orphan_parent_tasks: { action: "clear_parent_or_relink", target: "task", confidence: 0.95 },
  abandoned_inbox_items: { action: "promote_to_section_or_archive", target: "task", confidence: 0.6 },
  entities_no_observations: { action: "add_observations_or_archive", target: "entity", confidence: 0.5 },
};

export function isCategory(v: string): v is Category {
  return (CATEGORIES as readonly string[]).includes(v);
}

export const RUN_STATUSES = ["pending", "running", "completed", "failed", "canceled", "discarded"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const DECISIONS = ["accept", "reject", "defer"] as const;
export type Decision = (typeof DECISIONS)[number];
/** reflect_review's decision_filter: "" = every candidate, pending = not decided yet. */
export const DECISION_FILTERS = ["", "pending", ...DECISIONS] as const;

/**
 * Why reflect_apply left an accepted candidate alone (data, not errors). The catalog names the
 * first three; `target_changed` is ours: the target (or, for a duplicate, the copy it keeps)
 * was written after the run saw it, so applying would overwrite work done since (issue 17:
 * reflection never clobbers concurrent work). `no_archive_primitive`: entity targets skip
 * ("no archive primitive yet").
 */
export const SKIP_REASONS = [
  "already_applied",
  "target_out_of_scope",
  "target_not_found",
  "target_changed",
  "no_archive_primitive",
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** reflect_start persists at most this many candidates; more fails the run (candidate_limit_exceeded). */
export const CANDIDATE_CAP = 10_000;
export const INSTRUCTIONS_MAX = 4096;

export const DEFAULTS = { stale_days: 60, abandoned_inbox_days: 30, limit_per_category: 20 } as const;
/**
 * reflect_audit answers in one response: at most 1,000 candidates a category (the bound of the
 * catalog's other pages). reflect_start has no upper bound of its own: its run fails past the
 * 10,000-candidate cap, and a category is never read beyond cap + 1 rows.
 */
export const AUDIT_LIMIT_MAX = 1000;

/** reflect_review paging (catalog: default 100, clamped 1..1000, negative offset = 0). */
export const REVIEW_LIMIT = { default: 100, min: 1, max: 1000 } as const;
/** reflect_history paging (not in the catalog; the bounds of quorum_list and lane_list). */
export const HISTORY_LIMIT = { default: 20, min: 1, max: 100 } as const;

export function clamp(v: number | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined || !Number.isFinite(v)) return dflt;
  return Math.min(max, Math.max(min, Math.trunc(v)));
}

/** The largest offset a page may start at: beyond it no page exists, and SQL integers end. */
export const MAX_OFFSET = 1_000_000;

/** A page's offset (negative or absent = 0); null past MAX_OFFSET (the service refuses it). */
export function offsetOf(v: number | undefined): number | null {
  if (v === undefined || Number.isNaN(v) || v < 0) return 0;
  return v > MAX_OFFSET ? null : Math.trunc(v);
}

/** The thresholds of one audit pass, resolved. */
export interface AuditParams {
  /** null: every visible project (star only). */
  project: string | null;
  stale_days: number;
  abandoned_inbox_days: number;
  limit_per_category: number;
}

/** Day and instant cut-offs of a pass at `now` (ms): due before `staleBefore`, untouched before `abandonedBefore`. */
export function cutoffs(p: AuditParams, now: number): { staleBefore: string; abandonedBefore: string } {
  const DAY = 86_400_000;
  return {
    staleBefore: new Date(now - p.stale_days * DAY).toISOString().slice(0, 10),
    abandonedBefore: new Date(now - p.abandoned_inbox_days * DAY).toISOString(),
  };
}
