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
 * Storage faults (store/faults.ts storeFault): the database failed underneath a request, nothing
 * was changed, and the same call can succeed later. Kept as plain metadata so the kernel's error
 * table can fold them in: `retryable` goes into the product's error envelope, `httpStatus` is
 * the status an HTTP surface answers them with.
 */
export const STORE_FAULT_CODES = {
  /** PostgreSQL unreachable, its connection lost mid-request, or a timeout hit; the pool reconnects by itself. */
  db_unavailable: {
    retryable: true,
    httpStatus: 503,
    message: "the database is unavailable; nothing was changed, retry",
  },
  /** Another process holds the SQLite write lock longer than a write may wait. */
  database_busy: {
    retryable: true,
    httpStatus: 503,
    message: "the database is busy with another process's write; nothing was changed, retry",
  },
  /** The disk (or the database's size limit) is full; writes succeed again once space is freed. */
  storage_full: {
    retryable: true,
    httpStatus: 507,
    message: "the database's storage is full; nothing was changed, retry once space is freed",
  },
} as const;

export type StoreFaultCode = keyof typeof STORE_FAULT_CODES;
