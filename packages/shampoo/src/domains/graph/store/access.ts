import { type Database, iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { GraphAccessRow } from "../schema.ts";

/**
 * The best-effort access note of knowledge-graph reads (open_nodes, read_graph, search_nodes).
 * One append-only row per read call in shampoo_graph_access: who read which entities, when,
 * through which tool. It is telemetry, not history: reads are not mutations, so they never touch
 * shampoo_history or the profile clock.
 *
 * Notes are queued when the read has produced its result and written together, in one
 * transaction, at most ACCESS_FLUSH_MS later (or at once when ACCESS_BATCH are waiting, and when
 * the server closes): the read itself writes nothing, so on SQLite its commit appends nothing to
 * the log and a search does not pay a write per call (about a tenth of a search_nodes call over
 * stdio at 1,000 entities). Any failure is swallowed: a note can never fail, delay or change a
 * read. Best effort also means a process that dies loses the notes of its last few milliseconds.
 *
 * On SQLite another process may hold the write lock for a while (a bulk import is one
 * transaction). The flush does not wait for it, which would block this whole process for the
 * busy timeout: it gives up at once, keeps the notes (up to ACCESS_MAX_WAITING, the oldest
 * dropped beyond) and tries again ACCESS_RETRY_MS later.
 */

/** A note waits at most this long before it is written. */
export const ACCESS_FLUSH_MS = 25;
/** This many waiting notes are written at once. */
export const ACCESS_BATCH = 256;
/** While another process holds the write lock: the next try, and the most notes kept meanwhile. */
export const ACCESS_RETRY_MS = 1000;
export const ACCESS_MAX_WAITING = 10_000;

type Note = Omit<GraphAccessRow, "seq">;

interface Queue {
  notes: Note[];
  timer: ReturnType<typeof setTimeout> | null;
  /** The last flush found the write lock taken: the next try waits for the retry timer. */
  blocked: boolean;
  /** The writes so far, one after the other. */
  written: Promise<void>;
}

const queues = new WeakMap<object, Queue>();

/** Queues the note of one read (see the module comment). */
export function noteAccess(ctx: ShampooCtx, tool: string, entityIds: string[]): void {
  let q = queues.get(ctx.database);
  if (!q) {
    q = { notes: [], timer: null, blocked: false, written: Promise.resolve() };
    queues.set(ctx.database, q);
  }
  q.notes.push({
    profile: ctx.caller.profile,
    principal: ctx.caller.principal,
    session_id: ctx.source.session ?? null,
    tool,
    at: iso(ctx.clock.now()),
    entity_ids: JSON.stringify(entityIds),
  });
  const database = ctx.database;
  if (q.notes.length >= ACCESS_BATCH && !q.blocked) void flushAccessNotes(database);
  else if (!q.timer) flushLater(q, database, ACCESS_FLUSH_MS);
}

/** (Re)sets the queue's one timer to flush `ms` from now. */
function flushLater(q: Queue, database: Database<ShampooDB>, ms: number): void {
  if (q.timer) clearTimeout(q.timer);
  q.timer = setTimeout(() => void flushAccessNotes(database), ms);
  // A waiting note never keeps a process alive; closing the server writes it (app.ts).
  q.timer.unref?.();
}

/** Writes the waiting notes of a database now; resolves once every note queued so far is written (or lost). */
export function flushAccessNotes(database: Database<ShampooDB>): Promise<void> {
  const q = queues.get(database);
  if (!q) return Promise.resolve();
  if (q.timer) clearTimeout(q.timer);
  q.timer = null;
  const notes = q.notes.splice(0);
  if (notes.length > 0) {
    const queue = q;
    q.written = q.written.then(async () => {
      try {
        await database.transaction(
          async (db) => {
            for (let i = 0; i < notes.length; i += 100)
              await db
                .insertInto("shampoo_graph_access")
                .values(notes.slice(i, i + 100))
                .execute();
          },
          { busyTimeoutMs: 0 },
        );
        queue.blocked = false;
      } catch (e) {
        if (isBusy(e)) {
          // Another process is writing: keep the notes (oldest first) and try again later.
          queue.notes = [...notes, ...queue.notes].slice(-ACCESS_MAX_WAITING);
          queue.blocked = true;
          flushLater(queue, database, ACCESS_RETRY_MS);
        }
        // Otherwise best effort by contract: a full disk, a closed handle or a missing table
        // loses the notes, never a read.
      }
    });
  }
  return q.written;
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}
