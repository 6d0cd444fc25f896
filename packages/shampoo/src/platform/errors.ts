import { DomainError, type ErrorSpec, errorSpec, errorTable } from "kernel";

/**
 * SHAMPOO's one error table: every code a SHAMPOO tool may fail with is here, with its MCP form,
 * HTTP status and retryability (the kernel's table plus SHAMPOO's own codes). Code throws only
 * through `fail(code, …)` (or the helpers below), so a code outside this table does not compile,
 * and `test/platform/errors.test.ts` fails on any `new DomainError(` outside this file.
 *
 * A failure reaches the caller as the catalog's error payload `{error, error_type, …fields}` with
 * `isError: true` (tooling.ts formatRejection). `error_type` is the code itself, except where the
 * catalog names the class otherwise (PAYLOAD_TYPE).
 */
const result = (http: number, retryable = false): ErrorSpec => ({ mcp: "result", http, retryable });

export const SHAMPOO_ERRORS = errorTable({
  /** A well-typed argument whose value the tool cannot take (reflection's codes name which). */
  invalid_argument: result(400),
  /** The object exists and is visible, but its state does not allow the move. */
  invalid_state: result(409),
  /** A reflection run's lifecycle move that its status does not allow. */
  invalid_state_transition: result(409),
  /** `"*"` given as a project value. */
  invalid_project: result(400),
  /** ready_context with a mode outside ready / suggested / prime. */
  invalid_mode: result(400),
  /** query_tasks with a sort outside the allowlist. */
  invalid_sort: result(400),
  /** record_human_answer on a frozen chunk. */
  cannot_record: result(409),
  /** queue_clarification on a frozen chunk. */
  cannot_queue: result(409),
  /** enable_toolset with a name that is no toolset. */
  unknown_toolset: result(400),
  /** enable_toolset beyond what the caller may use (the server's --tools ∩ its config entry). */
  toolset_not_allowed: result(403),
  /** A debate read of a topic the caller cannot reach: missing, foreign and outsider alike. */
  unknown_topic: result(404),
  /** Any failure of handshake_challenge / handshake_complete: one answer, no oracle (domains/auth). */
  handshake_failed: result(401),
  /** issue_ticket with a bad user, projects, role, kind or TTL, or a grant beyond the issuer's own. */
  ticket_issue_failed: result(400),
  /** Coordination: a quorum that is missing, malformed or not visible (no oracle). */
  unknown_quorum: result(404),
  /** Coordination: a lane that is missing, malformed or not visible (no oracle). */
  unknown_lane: result(404),
  /** Coordination: a write on a quorum that is resolved or cancelled. */
  quorum_not_open: result(409),
  /** Coordination: quorum_resolve while a lane of the quorum is not terminal. */
  quorum_has_open_lanes: result(409),
  /** Coordination: a lane execution move the axis does not allow (or a lost compare-and-swap). */
  illegal_lane_transition: result(409),
  /** Coordination: lane_merge whose gates are not met. */
  lane_not_mergeable: result(409),
  /** Coordination: lane_review submit over a review already decided or pending. */
  review_closed: result(409),
  /** Coordination: a review verdict with nothing pending. */
  nothing_under_review: result(409),
  /** Coordination: job_complete / job_release on a job that is not claimed. */
  job_not_claimed: result(409),
  /** Coordination: the caller's own lease ran out (nobody took the job yet): claim again. */
  lease_expired: result(409),
  /** Coordination: job_complete with another outcome than the one the job ended with. */
  job_already_terminal: result(409),
  /** Coordination: a participant whose kind or ref is malformed, or a backward mark. */
  invalid_participant: result(400),
  /** Inbound: an item not pending, missing, or changed since it was listed (whole call refused). */
  inbound_ineligible: result(409),
  /** Inbound: the principal that staged an item may not approve it. */
  inbound_self_approval: result(403),
});

export type ShampooErrorCode = keyof typeof SHAMPOO_ERRORS;

/** The payload's `error_type` where the catalog names it differently from the code. */
const PAYLOAD_TYPE: Partial<Record<ShampooErrorCode, string>> = {
  forbidden: "requires-conductor",
  scope_denied: "scope",
  invalid_project: "validation",
  invalid_mode: "validation",
};

/** The `error_type` a failure with `code` carries in its payload. */
export function payloadType(code: string): string {
  return PAYLOAD_TYPE[code as ShampooErrorCode] ?? code;
}

/** The spec (MCP form, HTTP status, retryable) of a SHAMPOO code. */
export function shampooErrorSpec(code: string): ErrorSpec {
  return errorSpec(code, SHAMPOO_ERRORS);
}

/**
 * The one way a SHAMPOO service or tool fails: a code of the table, a message for people (never
 * repeating the code as a prefix), and optional fields the payload carries beside `error` and
 * `error_type` (e.g. `valid_modes`, `current_state`).
 */
export function fail(code: ShampooErrorCode, message: string, fields: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, message, { error_type: payloadType(code), ...fields });
}

/** "<What> not found": the same bytes for a missing object and a foreign one. */
export function notFound(what: string): DomainError {
  return fail("not_found", `${what} not found`);
}

/** A value the validator let through but the tool refuses (default code: validation). */
export function invalid(message: string, code: ShampooErrorCode = "validation"): DomainError {
  return fail(code, message);
}

/**
 * The one blank-means-absent rule (catalog: "empty string behaves as absent"): a string that is
 * empty or only whitespace, `null` and `undefined` are all absent; anything else is given as is.
 */
export function given(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}
