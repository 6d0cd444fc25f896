import type { DomainError } from "kernel";
import { fail } from "../../platform/errors.ts";
import type { ExistingDecision, Suggestion } from "./rules.ts";
import type { TaskLinkRow } from "./schema.ts";
import type { Decision } from "./store.ts";

/** Links' rows as its tools answer them and its history events record them, and its failures. */

/** suggest_task_links' own wording (the catalog's lowercase shape; the other tools say "Task not found"). */
export function taskNotFoundLower(): DomainError {
  return fail("not_found", "task not found");
}

/**
 * A link as its history events record it (old_json / new_json, read back by replay_memory): the
 * event shape keeps its names, so a link's history reads alike on both sides of the lifecycle
 * migration. `status` is active (lifecycle live) or removed (void); removed_at/removed_by are the
 * void stamps.
 */
export function linkView(l: TaskLinkRow): Record<string, unknown> {
  return {
    id: l.id,
    task_id: l.task_id,
    entity_id: l.entity_id,
    link_type: l.link_type,
    score: l.score,
    status: l.lifecycle === "live" ? "active" : "removed",
    created_at: l.created_at,
    created_by: l.created_by,
    removed_at: l.voided_at,
    removed_by: l.voided_by,
    removal_marker: l.removal_marker === null ? null : JSON.parse(l.removal_marker),
    revived_at: l.revived_at,
    revived_by: l.revived_by,
  };
}

/** The removal marker an unlink keeps: the link's detail before it was voided. */
export function removalMarker(old: TaskLinkRow): string {
  return JSON.stringify({
    link_type: old.link_type,
    score: old.score,
    created_at: old.created_at,
    created_by: old.created_by,
    updated_at: old.updated_at,
  });
}

/** The receipt a decision keeps: why the scorer scored the pair as it did. */
export function receipt(s: Suggestion): string {
  return JSON.stringify({
    signals: s.signals,
    reasons: s.reasons,
    matched_aliases: s.matched_aliases,
    shared_keywords: s.shared_keywords,
  });
}

/** A pair's latest decision as a suggestion shows it. */
export function decisionView(d: Decision): ExistingDecision {
  return { decision_id: d.decision_id, decision: d.decision, source: d.source, decided_at: d.decided_at };
}
