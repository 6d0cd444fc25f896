/**
 * Room progress, stored as plain JSON between calls. Kept tiny: the room itself is rebuilt from
 * the seed, so only what the agent has done lives here.
 */
import type { ActionOp, RoomState } from "../types.ts";

/** Stage i is cleared by STAGE_OPS[i]; the room is solved once stage === STAGE_OPS.length. */
export const STAGE_OPS = ["submit_sequence", "submit_time", "submit_number", "submit_master", "submit_bolt"] as const;
export type StageOp = (typeof STAGE_OPS)[number];
export const STAGES_TOTAL = STAGE_OPS.length;

/** Wrong submissions at one stage before its mechanism jams and the room ends, verdict failed. */
export const JAM_AFTER = 3;
export const MAX_HINTS = 3;
export const HINTS_PER_STAGE = 2;

export interface ChronoState {
  /** Index of the current stage (number of stages cleared). */
  stage: number;
  /** Hints revealed, per stage. */
  hints: number[];
  /** Wrong submissions in total, and at the current stage. */
  wrong: number;
  stage_wrong: number;
  jammed: boolean;
}

export function initialState(): ChronoState {
  return { stage: 0, hints: STAGE_OPS.map(() => 0), wrong: 0, stage_wrong: 0, jammed: false };
}

function int(v: unknown): number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : 0;
}

/** Reads a stored state defensively (it round-trips through a database). */
export function readState(raw: RoomState): ChronoState {
  const hints = Array.isArray(raw.hints) ? raw.hints : [];
  return {
    stage: Math.min(int(raw.stage), STAGES_TOTAL),
    hints: STAGE_OPS.map((_, i) => int(hints[i])),
    wrong: int(raw.wrong),
    stage_wrong: int(raw.stage_wrong),
    jammed: raw.jammed === true,
  };
}

export function toRoomState(s: ChronoState): RoomState {
  return { stage: s.stage, hints: [...s.hints], wrong: s.wrong, stage_wrong: s.stage_wrong, jammed: s.jammed };
}

export function hintsUsed(s: ChronoState): number {
  return s.hints.reduce((a, b) => a + b, 0);
}

export function isSolved(s: ChronoState): boolean {
  return s.stage >= STAGES_TOTAL;
}

export function isLive(s: ChronoState): boolean {
  return !s.jammed && !isSolved(s);
}

/** Hints the current stage can still give: at most HINTS_PER_STAGE per stage, MAX_HINTS per attempt. */
export function hintsLeft(s: ChronoState): number {
  return Math.max(0, Math.min(HINTS_PER_STAGE - (s.hints[s.stage] ?? 0), MAX_HINTS - hintsUsed(s)));
}

/** The single source of truth for what act() accepts: allowedOps() and act() both use it. */
export function allowed(s: ChronoState): ActionOp[] {
  if (!isLive(s)) return [];
  const ops: ActionOp[] = ["look", "inspect"];
  if (hintsLeft(s) > 0) ops.push("hint");
  const op = STAGE_OPS[s.stage];
  if (op) ops.push(op);
  return ops;
}
