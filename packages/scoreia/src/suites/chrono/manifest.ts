/**
 * The public manifest of chambre-chrono-v0, generation 001. It is hashed into every card, so it
 * describes the family of rooms (kinds, formats, rules), never any seed's room or answers.
 */
import type { SuiteManifest } from "../types.ts";
import { VERDICTS } from "../verdicts.ts";
import { GENERATION, SUITE_ID } from "./room.ts";
import { JAM_AFTER, MAX_HINTS } from "./state.ts";

export const manifest: SuiteManifest = {
  suite_id: SUITE_ID,
  generation: GENERATION,
  engine: "chamber",
  title: "The clockmaker's room",
  summary:
    "A clockmaker's workroom where every clock keeps its own time. Reconstruct what truly happened from a logbook " +
    "of clock readings and relative gaps, then use those times to open a drawer, pick the master key and slide " +
    "the door's bolt. Five stages, each unlocked by the previous one.",
  ops: [
    {
      op: "look",
      value: "none (object optional)",
      description: "Describe the room, the current task and the visible objects; with an object, its surface.",
    },
    {
      op: "inspect",
      value: "none (object required)",
      description: "Read an object's clue; text plus structured data.",
    },
    {
      op: "hint",
      value: "none",
      description: `Reveal one intermediate step for the current stage (at most 2 per stage, ${MAX_HINTS} per attempt). Counted.`,
    },
    {
      op: "submit_sequence",
      value: "array of event ids (or one string separated by commas), earliest first, each event once",
      description: "Stage 1: the true order of the logbook's events.",
    },
    { op: "submit_time", value: 'string "HH:MM", 24-hour', description: "Stage 2: the true time of the last event." },
    { op: "submit_number", value: "string of digits, 0 to 9999", description: "Stage 3: the drawer's dial number." },
    {
      op: "submit_master",
      value: 'string: a key letter from the rack, e.g. "C"',
      description: "Stage 4: the master key.",
    },
    { op: "submit_bolt", value: "string of digits, 0 to 99", description: "Stage 5: the mark to slide the bolt to." },
  ],
  objects: [
    {
      kind: "logbook",
      description: "Today's events (with ids) and entries: clock readings of some events and true gaps between others.",
    },
    {
      kind: "clock_<wood>",
      description:
        "Three or four wall clocks; each card says how many minutes the clock runs ahead of or behind another clock.",
    },
    {
      kind: "calendar",
      description: "The date, and the reading of one clock at the observatory noon signal (true noon).",
    },
    {
      kind: "drawer",
      description: "A combination dial 0-9999 with its formula engraved; opening it reveals the note.",
    },
    { kind: "key_rack", description: "Six to eight keys: tag letter, number of teeth, bow metal, engraved hour." },
    { kind: "note", description: "Appears when the drawer opens: the constraints the master key satisfies." },
    {
      kind: "door",
      description: "The bolt's track 0-99; its plate formula is readable once the master key is turned.",
    },
  ],
  stages: [
    {
      name: "order",
      op: "submit_sequence",
      rule: "Give every logbook event once, in true chronological order. Readings must be corrected by the clocks' relative drifts.",
    },
    {
      name: "time",
      op: "submit_time",
      rule: "Give the true time of the last event. True time = reading minus the clock's drift; the noon signal fixes one clock's drift.",
    },
    {
      name: "drawer",
      op: "submit_number",
      rule: "Evaluate the formula engraved on the drawer (a sum of products of named quantities) and dial the result.",
    },
    {
      name: "master",
      op: "submit_master",
      rule: "Choose the only key on the rack that satisfies every constraint of the note.",
    },
    {
      name: "bolt",
      op: "submit_bolt",
      rule: "Evaluate the formula on the door's bolt plate (a remainder modulo 100) and slide the bolt there.",
    },
  ],
  scoring: {
    verdicts: VERDICTS.map((v) => ({ ...v })),
    counted: ["actions_used", "hints_used", "wrong_submissions", "stages_cleared"],
    hint_cost:
      "Each hint costs one action and is counted in hints_used. When the current stage has no hint left, hint leaves allowed_ops and is refused at no cost.",
    rule:
      `Solved when the bolt slides (stage 5 cleared). A wrong submission costs an action and is counted; after ${JAM_AFTER} wrong ` +
      "submissions at one stage its mechanism jams and the room ends: verdict failed. Using all 64 actions unsolved is " +
      "exhausted; sealing earlier is abandoned. Refused actions (op not allowed now, unknown object, malformed value) " +
      "cost nothing. The card records actions, hints and wrong submissions as they were: there is no rank.",
  },
  limits: { max_actions: 64, max_hints: MAX_HINTS },
};
