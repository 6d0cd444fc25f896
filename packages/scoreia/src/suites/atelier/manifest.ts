/**
 * The public manifest of chambre-atelier-v0, hashed into every card. It is a constant: it
 * describes the family of rooms, never one room, so it cannot carry an oracle value.
 */

import type { SuiteManifest } from "../types.ts";
import { VERDICTS } from "../verdicts.ts";
import { ENGINE, GENERATION, SUITE_ID } from "./model.ts";
import { MAX_HINTS, MAX_WRONG_PER_STAGE } from "./room.ts";
import { FORMATS } from "./values.ts";

export const manifest: SuiteManifest = {
  suite_id: SUITE_ID,
  generation: GENERATION,
  engine: ENGINE,
  title: "The atelier",
  summary:
    "A workshop with six parts, three bins, a board of six slots and a bolted door. Sort the parts by rules split between the bins' lids and a manual, place them on the board under slot and neighbour rules, give the assembly order under precedence rules, then set the bolt's dials from what the earlier stages settled. Every answer is unique and follows from the clues alone.",
  ops: [
    {
      op: "look",
      value: "none",
      description:
        "Without object: the room, the current stage, its value format and the objects. With an object: a glance at it (not its clue).",
    },
    {
      op: "inspect",
      value: "none (object required)",
      description: "Read an object's clue: text plus structured data.",
    },
    {
      op: "hint",
      value: "none",
      description: `Reveal one fact of the current stage's answer. At most ${MAX_HINTS} per room; each is counted on the card.`,
    },
    { op: "submit_bins", value: FORMATS.submit_bins, description: "Stage 1: the bin of every part." },
    {
      op: "submit_placement",
      value: FORMATS.submit_placement,
      description: "Stage 2: the part on every slot of the board.",
    },
    { op: "submit_order", value: FORMATS.submit_order, description: "Stage 3: the assembly order." },
    { op: "submit_bolt", value: FORMATS.submit_bolt, description: "Stage 4: the bolt's code; clears the room." },
  ],
  objects: [
    {
      kind: "part",
      description:
        "Six parts named by what they are (gear, cam, ...). The tag gives material, finish, weight in grams and a stamped mark (digit).",
    },
    {
      kind: "bin",
      description: "bin-a, bin-b, bin-c. Two lids carry an acceptance rule, the third bin takes the leftovers.",
    },
    {
      kind: "manual",
      description:
        "The order in which the bins are checked, plus addenda (extra conditions) and errata (corrected lids).",
    },
    { kind: "board", description: "Stage 2 on: six numbered slots, which slots touch, and engraved slot rules." },
    { kind: "sketch", description: "Stage 2 on: notes about where parts sit and what they touch." },
    {
      kind: "blueprint",
      description: "Stage 3 on: precedence notes for the assembly; some name parts by the slot they sit on.",
    },
    {
      kind: "bolt",
      description: "Stage 4: the plate says how many dials the lock has and how to work out each digit.",
    },
  ],
  stages: [
    {
      name: "sort",
      op: "submit_bins",
      rule: "Check the bins in the manual's order; a part goes into the first bin whose whole rule (lid, or its erratum, and any addendum) it meets; the leftover bin takes the rest.",
    },
    {
      name: "place",
      op: "submit_placement",
      rule: "One part per slot, satisfying every engraving on the board and every note on the sketch. Exactly one placement does.",
    },
    {
      name: "assemble",
      op: "submit_order",
      rule: "Fit the six parts one at a time, satisfying every note on the blueprint. Exactly one order does.",
    },
    {
      name: "bolt",
      op: "submit_bolt",
      rule: "Compute the code from the plate's formula using the marks, the bins, the placement and the order. A correct code solves the room.",
    },
  ],
  scoring: {
    verdicts: VERDICTS.map((v) => ({ ...v })),
    counted: ["actions_used", "hints_used", "wrong_submissions", "stages_cleared"],
    hint_cost: `Each hint costs one action and is counted in hints_used; at most ${MAX_HINTS} per room. When none is left (for the room or the current stage), hint leaves allowed_ops and is refused at no cost.`,
    rule: `Solved when the bolt slides. A wrong submission costs an action, says it was wrong plus one fact about the submission itself (how many parts are misplaced, or which numbered note it breaks), and never the answer. After ${MAX_WRONG_PER_STAGE} wrong submissions at one stage the mechanism jams and the room ends: verdict failed. Using all 64 actions unsolved is exhausted; sealing earlier is abandoned. Refused actions (op not allowed now, unknown object, malformed value) cost nothing. The card records actions, hints and wrong submissions as they were: there is no rank.`,
  },
  limits: { max_actions: 64, max_hints: MAX_HINTS },
};
