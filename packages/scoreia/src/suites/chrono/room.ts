/**
 * Generation of one clockmaker's room from its seed.
 *
 * Everything follows from Rng(suite id, generation, seed): changing the order of the draws below
 * changes every room, so it is frozen for generation "001". Append new draws at the end (or use a
 * new Rng stream) rather than inserting them, and bump the generation when the rooms change.
 */
import { Rng } from "../rng.ts";
import { evaluateFormula, type Factor, type Formula } from "./formula.ts";
import { buildKeys, type Constraint, type KeyDef } from "./keys.ts";

export const SUITE_ID = "chambre-chrono-v0";
export const GENERATION = "001";

export interface EventDef {
  id: string;
  text: string;
}

export interface ClockDef {
  /** Object id, e.g. "clock_oak". */
  id: string;
  wood: string;
  /** Minutes the clock shows ahead of true time (negative: behind). Never 0. */
  drift: number;
  /** The clock this one's card compares it with; null for the clock checked at the noon signal. */
  ref: string | null;
}

/** One logbook line: either a clock reading or a gap between two events. */
export type Entry =
  | { kind: "reading"; event: string; clock: string; reading: number }
  | { kind: "relative"; event: string; other: string; minutes: number; relation: "after" | "before" };

export interface ChronoRoom {
  /** Events in the order the logbook lists them (not the true order). */
  events: EventDef[];
  /** True time of each event, in minutes after midnight. */
  trueTime: Record<string, number>;
  /** Event ids in true chronological order: the stage-1 answer. */
  order: string[];
  /** Clocks in the order the room lists them; clocks[i].ref always names a listed clock. */
  clocks: ClockDef[];
  entries: Entry[];
  calendar: { day: number; weekday: string; month: string; signalClock: string; signalReading: number };
  drawer: Formula;
  keys: KeyDef[];
  constraints: Constraint[];
  bolt: Formula;
  answers: { sequence: string[]; time: string; number: number; master: string; bolt: number };
}

const EVENT_POOL: ReadonlyArray<EventDef> = [
  { id: "cuckoo", text: "the cuckoo clock called out of turn" },
  { id: "kettle", text: "the kettle boiled over" },
  { id: "lamp", text: "the workbench lamp was lit" },
  { id: "visitor", text: "a visitor knocked at the door" },
  { id: "cat", text: "the cat knocked a gear off the bench" },
  { id: "letter", text: "a letter was slipped under the door" },
  { id: "chime", text: "the church bell chimed" },
  { id: "spring", text: "a mainspring snapped" },
  { id: "oil", text: "the pendulum was oiled" },
  { id: "rain", text: "rain began on the skylight" },
  { id: "candle", text: "a candle guttered out" },
  { id: "apprentice", text: "the apprentice left for lunch" },
  { id: "winding", text: "the long-case clock was wound" },
  { id: "glass", text: "a watch glass cracked" },
];
const CLOCK_WOODS = ["oak", "walnut", "marble", "ebony", "cherry", "slate"] as const;
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const MONTHS = ["March", "April", "May", "June", "September", "October", "November"] as const;
/** Clock drifts are distinct, non-zero and small enough that no reading crosses midnight. */
const DRIFTS = [
  -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
];
export const NOON = 12 * 60;
/** Minimum disagreement, in minutes, between the two clocks the logbook's readings come from. */
const MIN_SPREAD = 8;

export function formatTime(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
}

export function buildRoom(seed: string): ChronoRoom {
  const rng = new Rng(SUITE_ID, GENERATION, seed);

  const n = rng.int(5, 6);
  const order = rng.sample(EVENT_POOL, n).map((e) => e.id);

  // Clocks: a tree of "runs N minutes ahead of/behind" cards, rooted at the clock whose reading
  // at the observatory noon signal is pencilled on the calendar (the only absolute reference).
  // Two clocks are used for the logbook's readings; they disagree by at least MIN_SPREAD minutes
  // so that their disagreement can reorder events (see the flip below).
  const woods = rng.sample(CLOCK_WOODS, rng.int(3, 4));
  const [ia, ib] = rng.sample(
    woods.map((_, i) => i),
    2,
  ) as [number, number];
  let drifts = rng.sample(DRIFTS, woods.length);
  for (let tries = 0; Math.abs((drifts[ia] ?? 0) - (drifts[ib] ?? 0)) < MIN_SPREAD; tries++) {
    drifts =
      tries < 64 ? rng.sample(DRIFTS, woods.length) : woods.map((_, i) => (i === ia ? 9 : i === ib ? -9 : i + 2));
  }
  const clocks: ClockDef[] = woods.map((wood, i) => ({
    id: `clock_${wood}`,
    wood,
    drift: drifts[i] ?? 0,
    ref: i === 0 ? null : `clock_${woods[rng.int(0, i - 1)]}`,
  }));
  const root = clocks[0] as ClockDef;
  const [fast, slow] = [clocks[ia], clocks[ib]].sort((x, y) => (y?.drift ?? 0) - (x?.drift ?? 0)) as [
    ClockDef,
    ClockDef,
  ];
  const spread = fast.drift - slow.drift;

  // True times 4..40 minutes apart (no ties), except that one adjacent pair (flip, flip + 1) is
  // closer than the two reading clocks' spread. The earlier event of that pair is tied to the fast
  // clock and the later one to the slow clock, so taking readings at face value puts the pair in
  // the wrong order: every room's order needs the drift correction, not just most rooms'.
  const flip = rng.int(0, n - 2);
  const trueTime: Record<string, number> = {};
  let t = rng.int(7 * 60, 17 * 60);
  order.forEach((id, i) => {
    trueTime[id] = t;
    t += i === flip ? rng.int(4, spread - 1) : rng.int(4, 40);
  });
  const events = rng.shuffle(EVENT_POOL.filter((e) => order.includes(e.id)));

  // Logbook: two groups of events, each tied to the day by one reading (fast or slow clock) and
  // internally by true gaps. Ordering across groups needs the two clocks' relative drift; the
  // absolute time (stage 2) additionally needs the noon signal.
  const rest = rng.shuffle(order.filter((_, i) => i !== flip && i !== flip + 1));
  const cut = rng.int(1, rest.length - 1);
  const groups: Array<[ClockDef, string[]]> = [
    [fast, rng.shuffle([order[flip] as string, ...rest.slice(0, cut)])],
    [slow, rng.shuffle([order[flip + 1] as string, ...rest.slice(cut)])],
  ];
  const entries: Entry[] = [];
  for (const [clock, group] of groups) {
    const anchor = group[0] as string;
    entries.push({ kind: "reading", event: anchor, clock: clock.id, reading: time(trueTime, anchor) + clock.drift });
    for (let i = 1; i < group.length; i++) {
      const child = group[i] as string;
      const parent = group[rng.int(0, i - 1)] as string;
      // Phrase the gap from either end so the sentence order says nothing about the true order.
      const [event, other] = rng.int(0, 1) === 0 ? [child, parent] : [parent, child];
      const delta = time(trueTime, event) - time(trueTime, other);
      entries.push({
        kind: "relative",
        event,
        other,
        minutes: Math.abs(delta),
        relation: delta > 0 ? "after" : "before",
      });
    }
  }

  const calendar = {
    day: rng.int(3, 28),
    weekday: rng.pick(WEEKDAYS),
    month: rng.pick(MONTHS),
    signalClock: root.id,
    signalReading: NOON + root.drift,
  };

  const drawer = pickDrawer(rng, order);
  const rack = buildKeys(rng, order, trueTime);
  const bolt = pickBolt(rng, order);
  const listedClocks = rng.shuffle(clocks);
  const shuffledEntries = rng.shuffle(entries);

  const last = order[order.length - 1] as string;
  const partial = { order, trueTime, day: calendar.day, master: rack.master, drawerNumber: 0 };
  const drawerNumber = evaluateFormula(drawer, (f) => quantity(partial, f));
  const full = { ...partial, drawerNumber };
  return {
    events,
    trueTime,
    order,
    clocks: listedClocks,
    entries: shuffledEntries,
    calendar,
    drawer,
    keys: rack.keys,
    constraints: rack.constraints,
    bolt,
    answers: {
      sequence: order,
      time: formatTime(time(trueTime, last)),
      number: drawerNumber,
      master: rack.master.label,
      bolt: evaluateFormula(bolt, (f) => quantity(full, f)),
    },
  };
}

function time(trueTime: Record<string, number>, id: string): number {
  const t = trueTime[id];
  if (t === undefined) throw new Error(`unknown event ${id}`);
  return t;
}

/** Drawer dial: one of three templates, each mixing the order (stage 1), true times (stage 2) and the calendar. */
function pickDrawer(rng: Rng, order: string[]): Formula {
  const [x, y] = rng.sample(order, 2) as [string, string];
  const day: Factor = { q: "day" };
  switch (rng.int(0, 2)) {
    case 0:
      return { terms: [[{ q: "span" }, day], [{ q: "position", event: x }]] };
    case 1:
      return { terms: [[{ q: "last_hhmm" }], [day, { q: "position", event: x }]] };
    default:
      return { terms: [[{ q: "first_minutes" }], [{ q: "gap", event: x, other: y }, day]] };
  }
}

/** Bolt track 0..99: each template needs the master key or the drawer, plus an earlier stage. */
function pickBolt(rng: Rng, order: string[]): Formula {
  const x = rng.pick(order);
  switch (rng.int(0, 2)) {
    case 0:
      return { terms: [[{ q: "key_teeth" }, { q: "key_hour" }], [{ q: "last_minute" }]], mod: 100 };
    case 1:
      return { terms: [[{ q: "drawer" }], [{ q: "position", event: x }, { q: "key_teeth" }]], mod: 100 };
    default:
      return { terms: [[{ q: "span" }], [{ q: "day" }, { q: "key_hour" }]], mod: 100 };
  }
}

interface QuantityContext {
  order: string[];
  trueTime: Record<string, number>;
  day: number;
  master: KeyDef;
  drawerNumber: number;
}

/** The oracle's value of a named quantity. */
export function quantity(ctx: QuantityContext, f: Exclude<Factor, { n: number }>): number {
  const first = time(ctx.trueTime, ctx.order[0] as string);
  const last = time(ctx.trueTime, ctx.order[ctx.order.length - 1] as string);
  switch (f.q) {
    case "span":
      return last - first;
    case "day":
      return ctx.day;
    case "position":
      return ctx.order.indexOf(f.event ?? "") + 1;
    case "last_hhmm":
      return Math.floor(last / 60) * 100 + (last % 60);
    case "first_minutes":
      return first;
    case "gap":
      return Math.abs(time(ctx.trueTime, f.event ?? "") - time(ctx.trueTime, f.other ?? ""));
    case "last_minute":
      return last % 60;
    case "key_teeth":
      return ctx.master.teeth;
    case "key_hour":
      return ctx.master.hour;
    case "drawer":
      return ctx.drawerNumber;
  }
}

/** Rooms are rebuilt on every call; a small FIFO memo keeps that cheap for busy seeds. */
const MEMO_LIMIT = 256;
const memo = new Map<string, ChronoRoom>();

export function roomFor(seed: string): ChronoRoom {
  const hit = memo.get(seed);
  if (hit) return hit;
  const room = buildRoom(seed);
  if (memo.size >= MEMO_LIMIT) {
    const oldest = memo.keys().next().value;
    if (oldest !== undefined) memo.delete(oldest);
  }
  memo.set(seed, room);
  return room;
}
