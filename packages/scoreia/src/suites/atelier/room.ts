/**
 * The atelier as a Suite: state, allowed ops and the effect of each action.
 *
 * The state is six small counters (plain JSON for the database); the room itself is rebuilt from
 * the seed on every call (generate.ts, memoised). Refusals return no state, so they cost nothing
 * and change nothing; the lifecycle only counts actions that come back "ok".
 */

import { say } from "../say.ts";
import type { ActionOp, ActionOutcome, Observation, RoomAction, RoomState, Suite, SuiteManifest } from "../types.ts";
import { buildRoom, type Room } from "./generate.ts";
import { ENGINE, GENERATION, orderOk, placeOk, SUITE_ID } from "./model.ts";
import { FORMATS, parseBins, parseCode, parseOrder, parsePlacement } from "./values.ts";
import { inspect, STAGE_OBJECTS, surface, visibleObjects } from "./views.ts";

export const MAX_HINTS = 3;
/** A stage jams after this many wrong submissions, ending the room: guessing cannot pay. */
export const MAX_WRONG_PER_STAGE = 3;

export const STAGES = [
  { name: "sort", op: "submit_bins", goal: "sort the six parts into the three bins" },
  { name: "place", op: "submit_placement", goal: "place the six parts on the board's six slots" },
  { name: "assemble", op: "submit_order", goal: "give the order in which the six parts are fitted" },
  { name: "bolt", op: "submit_bolt", goal: "set the dials of the bolt's lock and slide it" },
] as const;
type StageOp = (typeof STAGES)[number]["op"];
type Ok = Extract<ActionOutcome, { kind: "ok" }>;
type Extra = Partial<Pick<Ok, "correct" | "solved" | "private">>;
type Reply = (next: AtelierState, observation: Observation, extra?: Extra) => ActionOutcome;

interface AtelierState {
  /** Stages cleared so far (0..4); 4 means solved. */
  stage: number;
  hints_used: number;
  /** Hints taken in the current stage: the next hint reveals the next fact of this stage. */
  stage_hints: number;
  wrong_submissions: number;
  stage_wrong: number;
  jammed: boolean;
}

function read(state: RoomState): AtelierState {
  const n = (k: string) => (typeof state[k] === "number" ? (state[k] as number) : 0);
  return {
    stage: n("stage"),
    hints_used: n("hints_used"),
    stage_hints: n("stage_hints"),
    wrong_submissions: n("wrong_submissions"),
    stage_wrong: n("stage_wrong"),
    jammed: state.jammed === true,
  };
}

const live = (s: AtelierState) => !s.jammed && s.stage < STAGES.length;

/** Hints left now: the room's budget, and what the current stage still has to give. */
function hintsLeft(room: Room, s: AtelierState): number {
  const stage = (room.hints[s.stage] ?? []).length - s.stage_hints;
  return Math.max(0, Math.min(MAX_HINTS - s.hints_used, stage));
}

function allowed(s: AtelierState, room: Room): ActionOp[] {
  if (!live(s)) return [];
  const ops: ActionOp[] = ["look", "inspect"];
  if (hintsLeft(room, s) > 0) ops.push("hint");
  ops.push((STAGES[s.stage] as (typeof STAGES)[number]).op);
  return ops;
}

const refuse = (code: "op_not_allowed" | "object_not_available" | "value_format_invalid", message: string) =>
  ({ kind: "refused", code, message }) as const;

/** The room as `look` shows it (only reachable while the room is live). */
function describe(room: Room, s: AtelierState): Observation {
  const objects = visibleObjects(room, s.stage);
  const ops = allowed(s, room);
  const head =
    "The atelier: a bench with a tray of six parts, three bins (bin-a, bin-b, bin-c) and a workshop manual. A board, a sketch, a blueprint and a bolted door come into play as the work goes on.";
  const st = STAGES[s.stage] as (typeof STAGES)[number];
  const text = [
    head,
    `Stage ${s.stage + 1} of ${STAGES.length} (${st.name}): ${st.goal}, with ${st.op}.`,
    `Value: ${FORMATS[st.op]}.`,
    `Objects: ${objects.join(", ")}.`,
    `Inspect an object to read it. ${say.hintsLeft(hintsLeft(room, s), `at most ${MAX_HINTS} per room, as many per stage as its facts`)}`,
    `Wrong tries left at this stage before it jams: ${MAX_WRONG_PER_STAGE - s.stage_wrong}.`,
  ].join(" ");
  return {
    text,
    data: {
      stage: s.stage + 1,
      stage_name: st.name,
      stages_total: STAGES.length,
      op: st.op,
      value_format: FORMATS[st.op],
      objects,
      allowed_ops: ops,
      hints_left: hintsLeft(room, s),
      tries_left: MAX_WRONG_PER_STAGE - s.stage_wrong,
    },
  };
}

interface Verdict {
  expected: string;
  submitted: string;
  /** Said on a wrong answer: true of the submission, silent about the answer. */
  why: string;
}

/** Compares a submission with the oracle; null when the value is malformed. */
function judge(room: Room, op: StageOp, value: unknown): Verdict | null {
  const { answer, env } = room;
  switch (op) {
    case "submit_bins": {
      const bins = parseBins(room, value);
      if (!bins) return null;
      const off = room.parts.filter((p) => bins[p.id] !== answer.bins[p.id]).length;
      const canon = (b: Record<string, string>) => room.parts.map((p) => `${p.id}:${b[p.id]}`).join(",");
      return {
        expected: canon(answer.bins),
        submitted: canon(bins),
        why: `${off} of the 6 parts ${off === 1 ? "is" : "are"} in the wrong bin`,
      };
    }
    case "submit_placement": {
      const ids = parsePlacement(room, value);
      if (!ids) return null;
      const at = ids.map((id) => env.index[id] as number);
      const slotOf = room.parts.map((_, i) => at.indexOf(i));
      const board = room.boardRules.findIndex((r) => !placeOk(r, at, slotOf, env));
      const sketch = room.sketchRules.findIndex((r) => !placeOk(r, at, slotOf, env));
      const canon = (x: string[]) => x.map((id, i) => `${i + 1}:${id}`).join(",");
      return {
        expected: canon(answer.placement),
        submitted: canon(ids),
        why:
          board >= 0
            ? `it breaks engraving (${board + 1}) on the board`
            : `it breaks note (${sketch + 1}) on the sketch`,
      };
    }
    case "submit_order": {
      const ids = parseOrder(room, value);
      if (!ids) return null;
      const stepOf = room.parts.map((p) => ids.indexOf(p.id));
      const broken = room.orderRules.findIndex((r) => !orderOk(r, stepOf, env));
      return {
        expected: answer.order.join(","),
        submitted: ids.join(","),
        why: `it breaks note (${broken + 1}) on the blueprint`,
      };
    }
    case "submit_bolt": {
      const code = parseCode(room, value);
      if (code === null) return null;
      return { expected: answer.code, submitted: code, why: "the bolt does not move" };
    }
  }
}

function act(seed: string, state: RoomState, action: RoomAction): ActionOutcome {
  const room = buildRoom(seed);
  const s = read(state);
  const ops = allowed(s, room);
  if (!ops.includes(action.op)) {
    if (action.op === "hint" && live(s)) {
      const where = s.hints_used >= MAX_HINTS ? `in this room (${MAX_HINTS} at most)` : "for this stage";
      return refuse("op_not_allowed", say.noHintLeft(where, ops));
    }
    return refuse("op_not_allowed", say.opNotAllowed(action.op, ops));
  }
  const objects = visibleObjects(room, s.stage);
  const object = action.object?.trim().toLowerCase() || undefined;
  if (object !== undefined && !objects.includes(object)) {
    return refuse("object_not_available", say.noObject(action.object as string, objects));
  }
  const ok: Reply = (next, observation, extra = {}) => ({ kind: "ok", state: { ...next }, observation, ...extra });

  switch (action.op) {
    case "look":
      return ok(s, object ? surface(room, object) : describe(room, s));
    case "inspect":
      if (!object) return refuse("object_not_available", say.inspectNeedsObject(objects));
      // A copy: the room is memoised and shared, and the caller may keep or alter what it gets.
      return ok(s, structuredClone(inspect(room, object)));
    case "hint": {
      // allowed() offers hint only while the stage has one left
      const text = (room.hints[s.stage] ?? [])[s.stage_hints] as string;
      const next = { ...s, hints_used: s.hints_used + 1, stage_hints: s.stage_hints + 1 };
      return ok(next, { text: `Hint ${next.hints_used} of ${MAX_HINTS} (recorded on the card): ${text}` });
    }
    default:
      return submit(room, s, action.op as StageOp, action.value, ok);
  }
}

function submit(room: Room, s: AtelierState, op: StageOp, value: unknown, ok: Reply): ActionOutcome {
  const v = judge(room, op, value);
  if (!v) return refuse("value_format_invalid", `${op} takes ${FORMATS[op]}. Nothing was submitted.`);
  const stage = STAGES[s.stage] as (typeof STAGES)[number];
  const priv = { stage: stage.name, expected: v.expected, submitted: v.submitted };
  if (v.submitted === v.expected) {
    const next = { ...s, stage: s.stage + 1, stage_hints: 0, stage_wrong: 0 };
    if (next.stage === STAGES.length) {
      return ok(
        next,
        { text: "Correct: the bolt slides and the door swings open. The room is solved." },
        {
          correct: true,
          solved: true,
          private: priv,
        },
      );
    }
    const up = STAGES[next.stage] as (typeof STAGES)[number];
    const fresh = STAGE_OBJECTS[next.stage] ?? [];
    return ok(
      next,
      {
        text: `Correct: stage ${s.stage + 1} (${stage.name}) is cleared. Stage ${next.stage + 1} of ${STAGES.length} (${up.name}) is open: ${up.goal}, with ${up.op}. Value: ${FORMATS[up.op]}. New objects: ${fresh.join(", ")}.`,
        data: {
          stage: next.stage + 1,
          stage_name: up.name,
          op: up.op,
          value_format: FORMATS[up.op],
          new_objects: [...fresh],
        },
      },
      { correct: true, private: priv },
    );
  }
  const next = { ...s, wrong_submissions: s.wrong_submissions + 1, stage_wrong: s.stage_wrong + 1 };
  next.jammed = next.stage_wrong >= MAX_WRONG_PER_STAGE;
  const left = MAX_WRONG_PER_STAGE - next.stage_wrong;
  const tail = next.jammed
    ? "The mechanism jams: the room has failed."
    : `${left} wrong ${left === 1 ? "try" : "tries"} left at this stage before it jams.`;
  return ok(
    next,
    { text: `Wrong: ${v.why}. ${tail}`, data: { tries_left: left, jammed: next.jammed } },
    {
      correct: false,
      private: priv,
    },
  );
}

export function makeSuite(manifest: SuiteManifest): Suite {
  return {
    id: SUITE_ID,
    generation: GENERATION,
    engine: ENGINE,
    manifest,
    init: () => ({ stage: 0, hints_used: 0, stage_hints: 0, wrong_submissions: 0, stage_wrong: 0, jammed: false }),
    objects: (seed, state) => visibleObjects(buildRoom(seed), read(state).stage),
    allowedOps: (seed, state) => allowed(read(state), buildRoom(seed)),
    observe: (seed, state, object) => {
      const key = object.trim().toLowerCase();
      return visibleObjects(buildRoom(seed), read(state).stage).includes(key) ? surface(buildRoom(seed), key) : null;
    },
    act,
    solved: (state) => read(state).stage >= STAGES.length,
    failed: (state) => read(state).jammed,
    tally: (state) => {
      const s = read(state);
      return {
        stages_total: STAGES.length,
        stages_cleared: Math.min(s.stage, STAGES.length),
        hints_used: s.hints_used,
        wrong_submissions: s.wrong_submissions,
      };
    },
  };
}
