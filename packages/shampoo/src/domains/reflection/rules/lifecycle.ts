import type { RunStatus } from "./vocabulary.ts";

/**
 * The run state machine (catalog reflect_start, reflect_cancel, reflect_discard, reflect_archive):
 *
 *   (start) → pending ─run→ running ─complete→ completed
 *                │            ├─fail──────→ failed
 *                │            └─cancel────→ canceled
 *                ├─cancel→ canceled
 *                └─fail──→ failed        (a best-effort marking when the pass breaks early)
 *   completed | failed | canceled ─discard→ discarded   (final: lifecycle retired, the run reads as absent)
 *   completed | failed | canceled ─archive→ same status, archived_at stamped once
 *
 * Every move is a compare-and-swap on the status the mover read (store.ts casRunStatus), so a
 * cancel racing the pass leaves exactly one of them standing.
 */

export type RunEvent = "run" | "complete" | "fail" | "cancel" | "discard";

export const TERMINAL: ReadonlySet<RunStatus> = new Set(["completed", "failed", "canceled"]);
export const ACTIVE: ReadonlySet<RunStatus> = new Set(["pending", "running"]);

const MOVES: Record<RunEvent, Partial<Record<RunStatus, RunStatus>>> = {
  run: { pending: "running" },
  complete: { running: "completed" },
  fail: { pending: "failed", running: "failed" },
  cancel: { pending: "canceled", running: "canceled" },
  discard: { completed: "discarded", failed: "discarded", canceled: "discarded" },
};

/** Why a move is refused, in the catalog's words (shape: an invalid_state_transition payload). */
export const REFUSALS: Record<RunEvent, string> = {
  run: "run_not_pending",
  complete: "run_not_running",
  fail: "run_not_active",
  cancel: "cannot_cancel_terminal_run",
  discard: "cannot_discard_active_run",
};

export type Move = { ok: true; to: RunStatus } | { ok: false; code: string };

/** The status `event` moves `from` to, or the refusal. Discarded runs never reach here (not found). */
export function move(from: RunStatus, event: RunEvent): Move {
  const to = MOVES[event][from];
  return to ? { ok: true, to } : { ok: false, code: REFUSALS[event] };
}

/** Archiving stamps archived_at on a terminal run; active runs refuse (cannot_archive_active_run). */
export function canArchive(status: RunStatus): boolean {
  return TERMINAL.has(status);
}

/** The moves as a table: [from, event, to], for the documentation and the exhaustive test. */
export function moveTable(): Array<[RunStatus, RunEvent, RunStatus]> {
  const rows: Array<[RunStatus, RunEvent, RunStatus]> = [];
  for (const [event, m] of Object.entries(MOVES) as Array<[RunEvent, Partial<Record<RunStatus, RunStatus>>]>) {
    for (const [from, to] of Object.entries(m) as Array<[RunStatus, RunStatus]>) rows.push([from, event, to]);
  }
  return rows;
}
