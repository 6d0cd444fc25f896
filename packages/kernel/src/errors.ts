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
