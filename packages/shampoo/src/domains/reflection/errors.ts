import type { DomainError } from "kernel";
import { fail } from "../../platform/errors.ts";

/**
 * Reflection's error payloads: `error` starts with the catalog's code, `error_type` is the
 * class shared with the other domains (not_found, invalid_argument, invalid_state_transition).
 * Not-found answers are one fixed string per kind: unknown, discarded and foreign alike.
 */

export function runNotFound(): DomainError {
  return fail("not_found", "run_not_found");
}

export function candidateNotFound(): DomainError {
  return fail("not_found", "candidate_not_found");
}

export function badArgument(code: string, detail: string): DomainError {
  return fail("invalid_argument", `${code}: ${detail}`);
}

/** A refused lifecycle move on a run the caller can see (so its status is no secret). */
export function badTransition(code: string, runId: string, status: string): DomainError {
  return fail("invalid_state_transition", code, {
    run_id: runId,
    status,
  });
}
