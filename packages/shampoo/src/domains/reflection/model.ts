import type { DomainError } from "kernel";
import { fail } from "../../platform/errors.ts";
import { canonical, type Finding } from "./rules/detect.ts";
import { MAX_OFFSET } from "./rules/vocabulary.ts";
import type { ReflectionRunRow } from "./schema.ts";
import type { CandidateWithApplied } from "./store/runs.ts";

/** Reflection's rows as its tools answer them, and its failures. */

/**
 * Reflection's error payloads (platform/errors.ts): `error` starts with the catalog's code,
 * `error_type` is the class shared with the other domains (not_found, invalid_argument,
 * invalid_state_transition). Not-found answers are one fixed string per kind: unknown, discarded
 * and foreign alike.
 */
export function runNotFound(): DomainError {
  return fail("not_found", "run_not_found");
}

export function candidateNotFound(): DomainError {
  return fail("not_found", "candidate_not_found");
}

/** A refused argument: `<code>: <detail>` (code: invalid_argument, instructions_too_long, …). */
export function badArgument(code: string, detail: string): DomainError {
  return fail("invalid_argument", `${code}: ${detail}`);
}

/** A refused lifecycle move on a run the caller can see (so its status is no secret). */
/** An offset past MAX_OFFSET (rules/vocabulary.ts offsetOf → null). */
export function pageOffset(offset: number | null): number {
  if (offset === null) throw badArgument("invalid_argument", `offset must be an integer from 0 to ${MAX_OFFSET}`);
  return offset;
}

export function badTransition(code: string, runId: string, status: string): DomainError {
  return fail("invalid_state_transition", code, { run_id: runId, status });
}

/** The public shape of a run (reflect_history, and its history events). */
export function runView(r: ReflectionRunRow): Record<string, unknown> {
  return {
    run_id: r.run_id,
    status: r.status,
    project: r.project,
    version: r.version,
    created_by: r.created_by,
    model: r.model,
    instructions: r.instructions,
    input: JSON.parse(r.input_json),
    summary: r.summary_json === null ? null : JSON.parse(r.summary_json),
    candidates_persisted: r.candidates_persisted,
    error_type: r.error_type,
    created_at: r.created_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    archived_at: r.archived_at,
  };
}

/**
 * A run as one reader sees it: a completed run's summary counts (by_category, total_candidates)
 * and candidates_persisted are those of the candidates `visible` says the reader may see
 * (reflect_review's gate), not every candidate the pass found.
 */
export function runViewFor(r: ReflectionRunRow, visible: Record<string, number> | undefined): Record<string, unknown> {
  const v = runView(r);
  if (r.status !== "completed" || !v.summary) return v;
  const summary = v.summary as { by_category?: Record<string, number> };
  const by = Object.fromEntries(Object.keys(summary.by_category ?? {}).map((c) => [c, visible?.[c] ?? 0]));
  const total = Object.values(by).reduce((a, b) => a + b, 0);
  return { ...v, summary: { ...summary, by_category: by, total_candidates: total }, candidates_persisted: total };
}

/** What reflect_start answers about the run it started. */
export function startView(r: ReflectionRunRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    run_id: r.run_id,
    status: r.status,
    candidates_persisted: r.candidates_persisted,
    summary: r.summary_json === null ? null : JSON.parse(r.summary_json),
  };
  if (r.error_type !== null) out.error_type = r.error_type;
  return out;
}

/** The public shape of a persisted candidate (reflect_review). */
export function candidateView(c: CandidateWithApplied): Record<string, unknown> {
  return {
    candidate_id: c.candidate_id,
    run_id: c.run_id,
    type: c.type,
    suggested_action: c.suggested_action,
    target_kind: c.target_kind,
    target_ref: c.target_ref,
    evidence: JSON.parse(c.evidence_json),
    confidence: c.confidence,
    decision: c.decision ?? "pending",
    decided_by: c.decided_by,
    decided_at: c.decided_at,
    created_at: c.created_at,
    applied_at: c.applied === null ? null : String(c.applied),
    already_applied: c.applied !== null,
  };
}

/**
 * A finding as the wire shows it (the fingerprint and gates stay internal); evidence in its
 * canonical key order, the same bytes reflect_review shows for the persisted candidate.
 */
export function findingView(f: Finding): Record<string, unknown> {
  return {
    type: f.type,
    target_kind: f.target_kind,
    target_ref: f.target_ref,
    suggested_action: f.suggested_action,
    confidence: f.confidence,
    evidence: JSON.parse(canonical(f.evidence)),
  };
}
