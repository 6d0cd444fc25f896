import type { Fingerprint } from "./detect.ts";
import { type Category, DECISION_FILTERS, DECISIONS, type Decision, type SkipReason } from "./vocabulary.ts";

/**
 * Decisions and the apply plan: what reflect_apply does with one accepted candidate, given what
 * the target looks like now. Pure: the service reads the rows (locked) and writes the result.
 */

export function isDecision(v: string): v is Decision {
  return (DECISIONS as readonly string[]).includes(v);
}

export function isDecisionFilter(v: string): boolean {
  return (DECISION_FILTERS as readonly string[]).includes(v);
}

/** Only accept is picked up by apply; reject and defer stay recorded; undecided reads as pending. */
export function applicable(decision: string | null): boolean {
  return decision === "accept";
}

/**
 * The conservative mutation per category: archive (reversible through update_task, nothing
 * removed) or clear one dangling link. Never a merge, never a rewrite of text.
 */
export const MUTATIONS: Record<
  Exclude<Category, "entities_no_observations">,
  { status?: "archived"; parent_id?: null }
> = {
  exact_duplicate_titles: { status: "archived" },
  stale_overdue_tasks: { status: "archived" },
  empty_description_notes: { status: "archived" },
  orphan_parent_tasks: { parent_id: null },
  abandoned_inbox_items: { status: "archived" },
};

/** A task's state as apply needs it. */
export interface TargetNow {
  id: string;
  last_event_id: string;
  status: string;
  parent_id: string | null;
}

export interface PlanInput {
  type: Category;
  target_kind: "task" | "entity";
  fingerprint: Fingerprint;
  /** A snapshot of this candidate exists (it was applied before). */
  applied: boolean;
  /** The target as the caller sees it, or null. */
  target: TargetNow | null;
  /** Whether a row with the target's id exists in the profile at all (only asked when target is null). */
  targetExists: boolean;
  /** exact_duplicate_titles: the kept copy as the caller sees it, or null. */
  keeper?: TargetNow | null;
  /** orphan_parent_tasks: whether the target's parent is visible now. */
  parentVisible?: boolean;
}

export type Plan = { skip: SkipReason } | { set: { status?: "archived"; parent_id?: null } };

export function plan(c: PlanInput): Plan {
  if (c.applied) return { skip: "already_applied" };
  if (c.target_kind === "entity" || c.type === "entities_no_observations") return { skip: "no_archive_primitive" };
  if (!c.target) return { skip: c.targetExists ? "target_out_of_scope" : "target_not_found" };
  // Written since the run saw it: the finding may no longer hold, and the write was someone's work.
  if (c.target.last_event_id !== c.fingerprint.target) return { skip: "target_changed" };
  if (c.type === "exact_duplicate_titles") {
    const k = c.fingerprint.keeper;
    // Archiving a copy is safe only while the copy that stays is still there as the run saw it.
    if (!k || !c.keeper || c.keeper.id !== k.id || c.keeper.last_event_id !== k.event)
      return { skip: "target_changed" };
  }
  if (c.type === "orphan_parent_tasks" && c.parentVisible) return { skip: "target_changed" };
  return { set: { ...MUTATIONS[c.type] } };
}
