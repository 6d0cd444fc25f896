/**
 * When the database fails underneath a request (docs/storage.md, "Faults"): the connection
 * settings that turn a stalled network into an error, and the translation of driver errors into
 * the three storage codes callers can act on (errors.ts STORE_FAULT_CODES). Everything else stays
 * an internal error.
 */
import { DomainError, STORE_FAULT_CODES, type StoreFaultCode } from "../errors.ts";

/**
 * PostgreSQL timeouts (milliseconds). A URL may override each with a query parameter of the same
 * name (connect_timeout in seconds, as in libpq; the others in milliseconds, as pg reads them).
 * - connect: opening a connection (TCP + startup), else "timeout exceeded when trying to connect".
 * - statement: the server cancels a statement running longer (SQLSTATE 57014).
 * - query: the client gives up waiting for an answer (a stalled network, where the server's own
 *   timeout never reaches us); longer than `statement`, so a slow statement is cancelled by the
 *   server first and its connection stays usable.
 * - idleInTransaction: the server ends a session left inside a transaction (a client that died).
 * - lock: the server stops a statement waiting this long for a lock (SQLSTATE 55P03): a writer
 *   queued behind a row lock (SELECT … FOR UPDATE) held by a stalled connection answers
 *   database_busy (retryable) at 5 s instead of waiting out the statement timeout (31.6 s seen).
 */
export const PG_TIMEOUTS = {
  connect: 10_000,
  statement: 30_000,
  query: 35_000,
  idleInTransaction: 60_000,
  lock: 5_000,
};

/** The pool settings for `target`, and the URL left for pg (our connect_timeout removed). */
export function pgConnectionSettings(target: string): { url: string; pool: Record<string, unknown> } {
  const u = new URL(target);
  if (!decodeURIComponent(u.username) && !process.env.PGUSER && !process.env.USER) {
    // pg would otherwise fail deep in its startup with a dump of its internals (issue 14 §6).
    throw new Error(
      "the postgres:// URL names no user and neither PGUSER nor USER is set: write postgres://USER@HOST/DB",
    );
  }
  const ms = (name: string, fallback: number, scale = 1): number => {
    const v = u.searchParams.get(name);
    if (v === null) return fallback;
    const n = Number(v) * scale;
    if (!Number.isFinite(n) || n < 0) throw new Error(`postgres URL: ${name} must be a non-negative number, got ${v}`);
    return n;
  };
  const connect = ms("connect_timeout", PG_TIMEOUTS.connect, 1000);
  const statement = ms("statement_timeout", PG_TIMEOUTS.statement);
  const query = ms("query_timeout", Math.max(PG_TIMEOUTS.query, statement + 5000));
  const idle = ms("idle_in_transaction_session_timeout", PG_TIMEOUTS.idleInTransaction);
  const lock = ms("lock_timeout", PG_TIMEOUTS.lock);
  for (const p of [
    "connect_timeout",
    "statement_timeout",
    "query_timeout",
    "idle_in_transaction_session_timeout",
    "lock_timeout",
  ]) {
    u.searchParams.delete(p);
  }
  return {
    url: u.toString(),
    pool: {
      connectionTimeoutMillis: connect,
      statement_timeout: statement,
      query_timeout: query,
      idle_in_transaction_session_timeout: idle,
      lock_timeout: lock,
      // Dead peers are noticed by the kernel too, not only at the next query.
      keepAlive: true,
    },
  };
}

/** PostgreSQL SQLSTATEs that mean the connection or the server went away (class 08, 57P0x). */
const PG_GONE = /^(08\d{3}|57P0[1-4])$/;
/** Node socket errors of a lost or refused connection. */
const NET_GONE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
]);
/** pg's own messages for a lost connection or a timeout (it sets no code on these). */
const PG_MESSAGES =
  /Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout/;

function fault(code: StoreFaultCode, detail: string, cause: unknown): DomainError {
  const meta = STORE_FAULT_CODES[code];
  return new DomainError(code, `${meta.message} (${detail})`, { retryable: meta.retryable }, { cause });
}

/**
 * The storage fault `e` is, as a DomainError a caller can act on (retry), or undefined when `e`
 * is something else. Walks `cause` chains (Kysely and the migrator wrap driver errors).
 */
export function storeFault(e: unknown): DomainError | undefined {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof DomainError) return STORE_FAULT_CODES[cur.code as StoreFaultCode] ? cur : undefined;
    const code = (cur as { code?: unknown }).code;
    const message = String((cur as { message?: unknown }).message ?? "");
    if (typeof code === "string") {
      if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
        return fault("database_busy", "another process holds the SQLite write lock", cur);
      }
      if (code === "SQLITE_FULL" || code === "53100" || code === "ENOSPC") {
        return fault(
          "storage_full",
          code === "53100" ? "PostgreSQL: disk full" : "no space left for the database",
          cur,
        );
      }
      if (code === "55P03")
        return fault(
          "database_busy",
          "PostgreSQL: a lock wait passed lock_timeout (another writer holds the row)",
          cur,
        );
      if (code === "57014")
        return fault("db_unavailable", "PostgreSQL cancelled a statement at statement_timeout", cur);
      if (PG_GONE.test(code)) return fault("db_unavailable", `PostgreSQL connection lost (${code})`, cur);
      if (NET_GONE.has(code)) return fault("db_unavailable", `cannot reach PostgreSQL (${code})`, cur);
    }
    if (PG_MESSAGES.test(message)) return fault("db_unavailable", message, cur);
  }
  return undefined;
}
