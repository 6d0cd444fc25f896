/**
 * chambre-chrono-v0 (engine "chamber", generation "001"): the clockmaker's room.
 *
 * Stages: order the logbook's events (submit_sequence) -> true time of the last event
 * (submit_time) -> drawer dial (submit_number) -> master key (submit_master) -> bolt
 * (submit_bolt). See docs/rooms/chrono.md.
 */

import { say } from "../say.ts";
import type { ActionOutcome, Observation, RoomAction, RoomState, Suite } from "../types.ts";
import { manifest } from "./manifest.ts";
import { hint, inspect, lookRoom, objectIds, surface, task } from "./observe.ts";
import { type ChronoRoom, formatTime, GENERATION, roomFor, SUITE_ID } from "./room.ts";
import {
  allowed,
  type ChronoState,
  hintsUsed,
  initialState,
  isLive,
  isSolved,
  JAM_AFTER,
  MAX_HINTS,
  readState,
  STAGES_TOTAL,
  toRoomState,
} from "./state.ts";
import { parseInteger, parseKey, parseSequence, parseTime } from "./values.ts";

export { manifest };

function refuse(
  code: "op_not_allowed" | "object_not_available" | "value_format_invalid",
  message: string,
): ActionOutcome {
  return { kind: "refused", code, message };
}

function ok(s: ChronoState, observation: Observation): ActionOutcome {
  return { kind: "ok", state: toRoomState(s), observation };
}

function act(seed: string, raw: RoomState, action: RoomAction): ActionOutcome {
  const s = readState(raw);
  const room = roomFor(seed);
  const ops = allowed(s);
  if (!ops.includes(action.op)) {
    if (action.op === "hint" && isLive(s)) {
      const where = hintsUsed(s) >= MAX_HINTS ? `in this attempt (${MAX_HINTS} at most)` : "for this stage";
      return refuse("op_not_allowed", say.noHintLeft(where, ops));
    }
    return refuse("op_not_allowed", say.opNotAllowed(action.op, ops));
  }
  const objects = objectIds(room, s);
  if (action.object !== undefined && !objects.includes(action.object)) {
    return refuse("object_not_available", say.noObject(action.object, objects));
  }

  switch (action.op) {
    case "look":
      return ok(s, action.object === undefined ? lookRoom(room, s) : surface(action.object));
    case "inspect":
      if (action.object === undefined) return refuse("object_not_available", say.inspectNeedsObject(objects));
      return ok(s, inspect(room, s, action.object));
    case "hint":
      return giveHint(room, s);
    default:
      return submit(room, s, action);
  }
}

function giveHint(room: ChronoRoom, s: ChronoState): ActionOutcome {
  const given = s.hints[s.stage] ?? 0;
  const h = hint(room, s.stage, given);
  // allowed() offers hint only while one is left, so this cannot happen; refusing keeps it free if it did.
  if (!h) return refuse("op_not_allowed", say.noHintLeft("for this stage", allowed(s)));
  const hints = s.hints.map((n, i) => (i === s.stage ? n + 1 : n));
  return ok({ ...s, hints }, h);
}

/** Judges a submission for the current stage (the op was already checked against allowed()). */
function submit(room: ChronoRoom, s: ChronoState, action: RoomAction): ActionOutcome {
  const a = room.answers;
  let got: string;
  let expected: string;
  let fact = "";
  switch (action.op) {
    case "submit_sequence": {
      const p = parseSequence(
        action.value,
        room.events.map((e) => e.id),
      );
      if (!p.ok) return refuse("value_format_invalid", p.message);
      got = p.value.join(",");
      expected = a.sequence.join(",");
      const placed = p.value.filter((id, i) => a.sequence[i] === id).length;
      fact = `${placed} of the ${a.sequence.length} events are in their right place.`;
      break;
    }
    case "submit_time": {
      const p = parseTime(action.value);
      if (!p.ok) return refuse("value_format_invalid", p.message);
      got = formatTime(p.value);
      expected = a.time;
      // Zero-padded "HH:MM" strings compare like the times they denote.
      fact = `The last event truly happened ${got < expected ? "later" : "earlier"} than that.`;
      break;
    }
    case "submit_number": {
      const p = parseInteger(action.value, "submit_number", 9999);
      if (!p.ok) return refuse("value_format_invalid", p.message);
      got = String(p.value);
      expected = String(a.number);
      fact = `The dial springs back: the combination is ${p.value < a.number ? "higher" : "lower"}.`;
      break;
    }
    case "submit_master": {
      const p = parseKey(
        action.value,
        room.keys.map((k) => k.label),
      );
      if (!p.ok) return refuse("value_format_invalid", p.message);
      got = p.value;
      expected = a.master;
      fact = "That key does not turn.";
      break;
    }
    default: {
      const p = parseInteger(action.value, "submit_bolt", 99);
      if (!p.ok) return refuse("value_format_invalid", p.message);
      got = String(p.value);
      expected = String(a.bolt);
      fact = "The bolt will not slide to that mark.";
    }
  }
  const priv = { stage: s.stage + 1, expected, submitted: got };
  if (got === expected) {
    const next: ChronoState = { ...s, stage: s.stage + 1, stage_wrong: 0 };
    const text = `${SUCCESS[s.stage] ?? "Correct."} ${task(next)}`;
    return {
      kind: "ok",
      state: toRoomState(next),
      observation: { text, data: { correct: true, stage_cleared: s.stage + 1 } },
      correct: true,
      solved: isSolved(next),
      private: priv,
    };
  }
  const stageWrong = s.stage_wrong + 1;
  const next: ChronoState = { ...s, wrong: s.wrong + 1, stage_wrong: stageWrong, jammed: stageWrong >= JAM_AFTER };
  const left = JAM_AFTER - stageWrong;
  const tail = next.jammed
    ? "The mechanism jams: the room is over."
    : `${TRIES[left] ?? "Some tries"} left before this stage's mechanism jams.`;
  return {
    kind: "ok",
    state: toRoomState(next),
    observation: { text: `Wrong. ${fact} ${tail}`, data: { correct: false, tries_left: left } },
    correct: false,
    solved: false,
    private: priv,
  };
}

// Numbers in words, so a small count can never be mistaken for a submitted or expected value.
const TRIES = ["No tries", "One try", "Two tries", "Three tries"];

const SUCCESS = [
  "The logbook's pages settle: that is the true order.",
  "The clocks fall silent for a beat: that is when it truly happened.",
  "The dial clicks home and the drawer slides open. Inside lies a note (new object: note).",
  "The key turns in the door's lock, and a plate under the bolt becomes readable (inspect door).",
  "The bolt slides and the door swings open.",
];

export const chronoSuite: Suite = {
  id: SUITE_ID,
  generation: GENERATION,
  engine: "chamber",
  manifest,
  init: () => toRoomState(initialState()),
  objects: (seed, state) => objectIds(roomFor(seed), readState(state)),
  allowedOps: (_seed, state) => allowed(readState(state)),
  observe(seed, state, object) {
    const objects = objectIds(roomFor(seed), readState(state));
    return objects.includes(object) ? surface(object) : null;
  },
  act,
  solved: (state) => isSolved(readState(state)),
  failed: (state) => readState(state).jammed,
  tally(state) {
    const s = readState(state);
    return {
      stages_total: STAGES_TOTAL,
      stages_cleared: s.stage,
      hints_used: hintsUsed(s),
      wrong_submissions: s.wrong,
    };
  },
};
