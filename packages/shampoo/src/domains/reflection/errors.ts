import { DomainError } from "kernel";

/**
 * Reflection's error payloads: `error` starts with the catalog's code, `error_type` is the
 * class shared with the other domains (not_found, invalid_argument, invalid_state_transition).
 * Not-found answers are one fixed string per kind: unknown, discarded and foreign alike.
 */

export function runNotFound(): DomainError {
  return new DomainError("not_found", "run_not_found", { error_type: "not_found" });
}

export function candidateNotFound(): DomainError {
  return new DomainError("not_found", "candidate_not_found", { error_type: "not_found" });
}

export function badArgument(code: string, detail: string): DomainError {
  return new DomainError("invalid_argument", `${code}: ${detail}`, { error_type: "invalid_argument" });
}

/** A refused lifecycle move on a run the caller can see (so its status is no secret). */
export function badTransition(code: string, runId: string, status: string): DomainError {
  return new DomainError("invalid_state_transition", code, {
    error_type: "invalid_state_transition",
    run_id: runId,
    status,
  });
}
