/**
 * What the agent reads: room description, object clues and hints. Text is written for an LLM to
 * read; `data` carries the same facts for a program. Neither ever states a stage answer; hints
 * state one intermediate step each.
 */

import { plural, say } from "../say.ts";
import type { Observation } from "../types.ts";
import { describeFactor, describeFormula, type Factor, type Formula } from "./formula.ts";
import type { Constraint } from "./keys.ts";
import { type ChronoRoom, type ClockDef, formatTime, quantity } from "./room.ts";
import { type ChronoState, HINTS_PER_STAGE, hintsLeft, isLive, MAX_HINTS } from "./state.ts";

const ROMAN = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"];

export function roman(n: number): string {
  return ROMAN[n] ?? String(n);
}

/** Objects visible now; the note appears once the drawer is open. */
export function objectIds(room: ChronoRoom, s: ChronoState): string[] {
  const ids = ["logbook", ...room.clocks.map((c) => c.id), "calendar", "drawer", "key_rack", "door"];
  if (s.stage >= 3) ids.push("note");
  return ids;
}

const TASKS = [
  "put the logbook's events in their true order, earliest first (submit_sequence; value: the event ids).",
  'give the true time of the last event (submit_time; value "HH:MM", 24-hour).',
  "open the drawer (submit_number; value: the dial number).",
  "take the master key from the rack (submit_master; value: the key's letter).",
  "slide the bolt (submit_bolt; value: the mark, 0 to 99).",
];

export function task(s: ChronoState): string {
  if (s.jammed) return "A mechanism has jammed: the room is over.";
  return isLive(s) ? `Task now: ${TASKS[s.stage]}` : "The door stands open: the room is solved.";
}

export function lookRoom(room: ChronoRoom, s: ChronoState): Observation {
  const objects = objectIds(room, s);
  const text = [
    `A clockmaker's workroom, ${room.calendar.weekday} ${room.calendar.day} ${room.calendar.month}.`,
    `${room.clocks.length} wall clocks tick out of step. A logbook lies open by a calendar; a drawer has a combination dial;`,
    "a rack of keys hangs by a door held by a sliding bolt. Clock readings are what a clock's face showed, not the true time.",
    `Objects: ${objects.join(", ")}.`,
    task(s),
    ...(isLive(s)
      ? [say.hintsLeft(hintsLeft(s), `at most ${HINTS_PER_STAGE} per stage, ${MAX_HINTS} per attempt`)]
      : []),
  ].join(" ");
  return {
    text,
    data: { objects, stage: s.stage + 1, stages_total: TASKS.length, task: task(s), hints_left: hintsLeft(s) },
  };
}

const SURFACES: Record<string, string> = {
  logbook: "A leather logbook lies open; inspect it to read today's entries.",
  calendar: "A wall calendar with a pencilled note in its margin; inspect it to read.",
  drawer: "A desk drawer with a combination dial and an engraving on its lip; inspect it to read.",
  key_rack: "A rack of tagged keys; inspect it to see each key.",
  door: "A heavy door held by a sliding bolt over a keyhole; inspect it for details.",
  note: "A folded note from the drawer; inspect it to read.",
};

/** The free surface of an object (observe_chamber): what it is, never its clue. */
export function surface(object: string): Observation {
  const text = SURFACES[object] ?? "A wall clock with a card tucked in its frame; inspect it to read the card.";
  return { text, data: { object } };
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "An" : "A";
}

function clockName(room: ChronoRoom, id: string): string {
  const c = room.clocks.find((k) => k.id === id);
  return c ? `the ${c.wood} clock (${c.id})` : id;
}

export function inspect(room: ChronoRoom, s: ChronoState, object: string): Observation {
  if (object === "logbook") return inspectLogbook(room);
  if (object === "calendar") return inspectCalendar(room);
  if (object === "drawer") return inspectDrawer(room, s);
  if (object === "key_rack") return inspectRack(room);
  if (object === "note") return inspectNote(room);
  if (object === "door") return inspectDoor(room, s);
  const clock = room.clocks.find((c) => c.id === object);
  if (clock) return inspectClock(room, clock);
  return surface(object);
}

function inspectLogbook(room: ChronoRoom): Observation {
  const lines = room.entries.map((e, i) =>
    e.kind === "reading"
      ? `${i + 1}. [${e.event}] was noted at ${formatTime(e.reading)} by ${clockName(room, e.clock)}.`
      : `${i + 1}. [${e.event}] happened ${plural(e.minutes, "minute")} ${e.relation} [${e.other}].`,
  );
  const text = [
    "The logbook, in the clockmaker's hand. Today's events (ids in brackets):",
    ...room.events.map((e) => `- [${e.id}] ${e.text}`),
    "Entries:",
    ...lines,
    "A reading is what that clock's face showed; gaps between events are true durations.",
  ].join("\n");
  const entries = room.entries.map((e) => (e.kind === "reading" ? { ...e, reading: formatTime(e.reading) } : { ...e }));
  return { text, data: { events: room.events.map((e) => ({ ...e })), entries } };
}

function inspectClock(room: ChronoRoom, clock: ClockDef): Observation {
  const ref = room.clocks.find((c) => c.id === clock.ref);
  if (!ref) {
    const text = `${article(clock.wood)} ${clock.wood} wall clock (${clock.id}). Its card is blank: this is the clock that was checked against the observatory noon signal (see the calendar).`;
    return { text, data: { clock: clock.id, compared_with: null } };
  }
  const minutes = Math.abs(clock.drift - ref.drift);
  const relation = clock.drift > ref.drift ? "ahead of" : "behind";
  const text = `${article(clock.wood)} ${clock.wood} wall clock (${clock.id}). A card tucked in its frame reads: "Runs ${plural(minutes, "minute")} ${relation} ${clockName(room, ref.id)}."`;
  return {
    text,
    data: { clock: clock.id, compared_with: ref.id, minutes, relation: relation === "ahead of" ? "ahead" : "behind" },
  };
}

function inspectCalendar(room: ChronoRoom): Observation {
  const c = room.calendar;
  const showed = formatTime(c.signalReading);
  const text = `A wall calendar open at ${c.weekday} ${c.day} ${c.month}. Pencilled in the margin: "Observatory noon signal today (true 12:00): ${clockName(room, c.signalClock)} showed ${showed} when it sounded."`;
  return {
    text,
    data: { weekday: c.weekday, day: c.day, month: c.month, noon_signal: { clock: c.signalClock, showed } },
  };
}

function inspectDrawer(room: ChronoRoom, s: ChronoState): Observation {
  const open = s.stage >= 3;
  const text = [
    `A desk drawer with a combination dial numbered 0 to 9999. Engraved on its lip: "Dial = ${describeFormula(room.drawer)}."`,
    open ? "The drawer stands open; the note that lay inside is now an object (note)." : "The drawer is locked.",
  ].join(" ");
  return { text, data: { dial: [0, 9999], formula: room.drawer, open } };
}

function inspectRack(room: ChronoRoom): Observation {
  const text = [
    `A rack of ${room.keys.length} keys. Each tag gives a letter; each key has teeth, a bow (handle) of some metal and an hour engraved in Roman numerals:`,
    ...room.keys.map((k) => `- ${k.label}: ${k.teeth} teeth, ${k.bow} bow, hour ${roman(k.hour)}`),
  ].join("\n");
  return { text, data: { keys: room.keys.map((k) => ({ ...k })) } };
}

export function describeConstraint(c: Constraint): string {
  switch (c.rule) {
    case "equals_event_hour":
      return `its engraved hour is the hour at which [${c.event}] truly happened, on a 12-hour dial (14:35 -> II)`;
    case "equals_position_plus":
      return `its number of teeth is the position of [${c.event}] in the true order (first = 1) plus ${c.value}`;
    case "greater_than":
      return c.prop === "teeth"
        ? `it has more than ${c.value} teeth`
        : `its engraved hour is greater than ${roman(c.value)} (${c.value})`;
    case "less_than":
      return c.prop === "teeth"
        ? `it has fewer than ${c.value} teeth`
        : `its engraved hour is less than ${roman(c.value)} (${c.value})`;
    case "odd":
    case "even":
      return c.prop === "teeth" ? `it has an ${c.rule} number of teeth` : `its engraved hour is ${c.rule}`;
    case "is":
      return `its bow is ${c.value}`;
    case "is_not":
      return `its bow is not ${c.value}`;
  }
}

function inspectNote(room: ChronoRoom): Observation {
  const text = [
    "A note in the clockmaker's hand: \"Only the master key opens the door. Of all the keys on the rack, it is the one where:",
    ...room.constraints.map((c) => `- ${describeConstraint(c)}`),
    '"',
  ].join("\n");
  return { text, data: { constraints: room.constraints.map((c) => ({ ...c })) } };
}

function inspectDoor(room: ChronoRoom, s: ChronoState): Observation {
  if (s.stage < 4) {
    const text =
      "A heavy door held shut by a bolt that slides along a track marked 0 to 99. Below it is a keyhole: the bolt will not move until the master key is turned in it.";
    return { text, data: { track: [0, 99], unlocked: false } };
  }
  const text = `The master key is turned in the lock. A plate under the bolt, hidden until now, reads: "Slide the bolt to the mark equal to ${describeFormula(room.bolt)}."`;
  return { text, data: { track: [0, 99], unlocked: true, formula: room.bolt } };
}

/** Hint k (0-based) of the current stage: one intermediate step, never the stage answer. */
export function hint(room: ChronoRoom, stage: number, k: number): Observation | null {
  if (k >= HINTS_PER_STAGE) return null;
  const text = hintTexts(room, stage)[k];
  return text === undefined ? null : { text: `Hint: ${text}`, data: { stage: stage + 1, hint: k + 1 } };
}

function hintTexts(room: ChronoRoom, stage: number): string[] {
  const order = room.order;
  const last = order[order.length - 1] as string;
  const readings = room.entries.flatMap((e) => (e.kind === "reading" ? [e] : []));
  const lastTime = room.trueTime[last] ?? 0;
  switch (stage) {
    case 0: {
      // A reading that is not the last event, so the stage-2 answer is never given away.
      const r = readings.find((e) => e.event !== last) ?? readings[0];
      const first = `the first event of the day was [${order[0]}].`;
      if (!r) return [first];
      return [`[${r.event}] truly happened at ${formatTime(room.trueTime[r.event] ?? 0)}.`, first];
    }
    case 1: {
      // The reading that anchors the last event's group, and the true gap from it.
      const anchor = readings.find((r) => reaches(room, r.event, last)) ?? readings[0];
      if (!anchor) return [];
      const clock = room.clocks.find((c) => c.id === anchor.clock);
      const drift = clock?.drift ?? 0;
      const gap = lastTime - (room.trueTime[anchor.event] ?? 0);
      return [
        `${clockName(room, anchor.clock)} runs ${plural(Math.abs(drift), "minute")} ${drift > 0 ? "fast" : "slow"} against true time.`,
        gap === 0
          ? "the last event is itself one of the logbook's clock readings."
          : `the last event happened ${plural(gap, "minute")} after the reading of [${anchor.event}].`,
      ];
    }
    case 2:
      return formulaHints(room, room.drawer);
    case 3: {
      const decoys = room.keys.filter((k) => k.label !== room.answers.master);
      return decoys.slice(0, HINTS_PER_STAGE).map((k) => `key ${k.label} is not the master key.`);
    }
    default:
      return formulaHints(room, room.bolt);
  }
}

/** Whether two events are linked by relative entries (same logbook group). */
function reaches(room: ChronoRoom, from: string, to: string): boolean {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length > 0) {
    const e = stack.pop() as string;
    if (e === to) return true;
    for (const x of room.entries) {
      if (x.kind !== "relative") continue;
      const next = x.event === e ? x.other : x.other === e ? x.event : null;
      if (next && !seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return false;
}

/** The values of a formula's worked-out quantities (the calendar day is read directly, so skipped). */
function formulaHints(room: ChronoRoom, formula: Formula): string[] {
  const master = room.keys.find((k) => k.label === room.answers.master);
  if (!master) return [];
  const ctx = {
    order: room.order,
    trueTime: room.trueTime,
    day: room.calendar.day,
    master,
    drawerNumber: room.answers.number,
  };
  const factors = formula.terms.flat().filter((f): f is Exclude<Factor, { n: number }> => "q" in f && f.q !== "day");
  return factors.slice(0, HINTS_PER_STAGE).map((f) => `${describeFactor(f)} is ${quantity(ctx, f)}.`);
}
