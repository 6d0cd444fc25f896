/**
 * One error type for every domain: a stable machine code, a human message, and optional
 * fields a product adds to its error envelope (retryable, recovery_hint, current index...).
 * Handlers throw DomainError; the tool pipeline turns it into an `isError: true` tool result
 * through the product's `formatError`, and anything else is converted once, at the boundary.
 */
export class DomainError extends Error {
  readonly code: string;
  readonly extra: Record<string, unknown>;

  constructor(code: string, message: string, extra: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DomainError";
    this.code = code;
    this.extra = extra;
  }
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

/**
 * How a code travels. `result`: an `isError: true` tool result (a failure of a known tool);
 * `protocol`: a JSON-RPC error (only for calls that never reach a tool: unknown names, -32602).
 */
export interface ErrorSpec {
  mcp: "result" | "protocol";
  /** JSON-RPC error code, for `protocol` codes. */
  jsonRpc?: number;
  /** The status an HTTP surface answers with. */
  http: number;
  /** May the same call succeed if simply repeated later (no change of input)? */
  retryable: boolean;
}

/**
 * The one error table: every code a domain throws, its MCP form, HTTP status and retryability.
 * A product adds its own codes with `errorTable({...})`; a code missing from the table is a
 * non-retryable 400 result (`errorSpec`), so a new code can never be mistaken for a retryable one.
 */
export const ERRORS = {
  validation: { mcp: "result", http: 400, retryable: false },
  not_found: { mcp: "result", http: 404, retryable: false },
  scope_denied: { mcp: "result", http: 403, retryable: false },
  forbidden: { mcp: "result", http: 403, retryable: false },
  unknown_tool: { mcp: "protocol", jsonRpc: -32602, http: 404, retryable: false },
  /** A compare-and-swap lost: the object moved on; re-read and decide again. */
  state_conflict: { mcp: "result", http: 409, retryable: false },
  conflict: { mcp: "result", http: 409, retryable: false },
  /** A lease is no longer the caller's (expired, or taken over with a newer fencing token). */
  lease_lost: { mcp: "result", http: 409, retryable: false },
  /** The resource is leased by someone else right now; it may be free later. */
  lease_held: { mcp: "result", http: 409, retryable: true },
  /** The store could not take a lock in time (another writer); the same call may succeed. */
  busy: { mcp: "result", http: 503, retryable: true },
  unavailable: { mcp: "result", http: 503, retryable: true },
  internal_error: { mcp: "result", http: 500, retryable: false },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

const DEFAULT_SPEC: ErrorSpec = { mcp: "result", http: 400, retryable: false };

/** The spec of `code` in `table` (default: the kernel's), or the non-retryable 400 default. */
export function errorSpec(code: string, table: Record<string, ErrorSpec> = ERRORS): ErrorSpec {
  return Object.hasOwn(table, code) ? (table[code] as ErrorSpec) : DEFAULT_SPEC;
}

/** The kernel's table plus a product's codes (a product may not redefine a kernel code). */
export function errorTable<T extends Record<string, ErrorSpec>>(extra: T): typeof ERRORS & T {
  for (const k of Object.keys(extra)) {
    if (Object.hasOwn(ERRORS, k)) throw new Error(`error code ${k} is already in the kernel table`);
  }
  return { ...ERRORS, ...extra };
}
