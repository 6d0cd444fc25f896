/**
 * The key rack and the note of engraved constraints (stage 4).
 *
 * Built constructively rather than by trial and error, so generation stays cheap: the three
 * constraints each bear on a different property, the master key satisfies all three, and every
 * other key breaks at least one. For each constraint there is a key that breaks only that one,
 * so no constraint can be skipped, and one of the constraints depends on earlier stages (the true
 * hour of an event, or its position in the true order), so the key cannot be chosen first.
 */
import type { Rng } from "../rng.ts";

export const METALS = ["brass", "iron", "copper", "silver", "steel"] as const;
export const TEETH_RANGE = [2, 9] as const;
export const HOUR_RANGE = [1, 12] as const;

export interface KeyDef {
  label: string;
  teeth: number;
  bow: string;
  /** Engraved hour, 1..12 (shown as a Roman numeral). */
  hour: number;
}

export type KeyProp = "teeth" | "hour" | "bow";

export type Constraint =
  | { prop: "hour"; rule: "equals_event_hour"; event: string }
  | { prop: "teeth"; rule: "equals_position_plus"; event: string; value: number }
  | { prop: "teeth" | "hour"; rule: "greater_than" | "less_than"; value: number }
  | { prop: "teeth" | "hour"; rule: "odd" | "even" }
  | { prop: "bow"; rule: "is" | "is_not"; value: string };

type Value = number | string;

/** Hour on a 12-hour dial: 13:xx -> 1, 00:xx -> 12. */
export function dialHour(minutes: number): number {
  return ((Math.floor(minutes / 60) + 11) % 12) + 1;
}

function range([lo, hi]: readonly [number, number]): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

function domain(prop: KeyProp): Value[] {
  if (prop === "bow") return [...METALS];
  return range(prop === "teeth" ? TEETH_RANGE : HOUR_RANGE);
}

/** Whether a property value satisfies a constraint, given the room's true order and times. */
export function satisfies(c: Constraint, v: Value, order: string[], trueTime: Record<string, number>): boolean {
  switch (c.rule) {
    case "equals_event_hour":
      return v === dialHour(trueTime[c.event] ?? -1);
    case "equals_position_plus":
      return v === order.indexOf(c.event) + 1 + c.value;
    case "greater_than":
      return typeof v === "number" && v > c.value;
    case "less_than":
      return typeof v === "number" && v < c.value;
    case "odd":
      return typeof v === "number" && v % 2 === 1;
    case "even":
      return typeof v === "number" && v % 2 === 0;
    case "is":
      return v === c.value;
    case "is_not":
      return v !== c.value;
  }
}

/** A plain constraint on a numeric property; thresholds keep both sides of the rule non-empty. */
function simpleNumeric(rng: Rng, prop: "teeth" | "hour"): Constraint {
  const [lo, hi] = prop === "teeth" ? TEETH_RANGE : HOUR_RANGE;
  switch (rng.int(0, 3)) {
    case 0:
      return { prop, rule: "greater_than", value: rng.int(lo + 1, hi - 2) };
    case 1:
      return { prop, rule: "less_than", value: rng.int(lo + 2, hi - 1) };
    case 2:
      return { prop, rule: "odd" };
    default:
      return { prop, rule: "even" };
  }
}

export function buildKeys(
  rng: Rng,
  order: string[],
  trueTime: Record<string, number>,
): { keys: KeyDef[]; constraints: Constraint[]; master: KeyDef } {
  const event = rng.pick(order);
  const derived: Constraint =
    rng.int(0, 1) === 0
      ? { prop: "hour", rule: "equals_event_hour", event }
      : { prop: "teeth", rule: "equals_position_plus", event, value: rng.int(1, 3) };
  const other: Constraint = derived.prop === "hour" ? simpleNumeric(rng, "teeth") : simpleNumeric(rng, "hour");
  const metal = rng.pick(METALS);
  const bow: Constraint = { prop: "bow", rule: rng.int(0, 1) === 0 ? "is" : "is_not", value: metal };
  const constraints = [derived, other, bow];

  const sides = constraints.map((c) => {
    const all = domain(c.prop);
    return {
      yes: all.filter((v) => satisfies(c, v, order, trueTime)),
      no: all.filter((v) => !satisfies(c, v, order, trueTime)),
    };
  });

  const draw = (broken: number): Omit<KeyDef, "label"> => {
    const props: Partial<Record<KeyProp, Value>> = {};
    constraints.forEach((c, i) => {
      const side = sides[i];
      if (!side) return;
      props[c.prop] = rng.pick((broken >> i) & 1 ? side.no : side.yes);
    });
    return { teeth: Number(props.teeth), hour: Number(props.hour), bow: String(props.bow) };
  };

  const master = draw(0);
  // Decoys: one breaking only each constraint (so each is needed), the rest breaking any mix.
  const decoys = [draw(1), draw(2), draw(4)];
  // The decoy that breaks only the derived rule sits one hour off when that rule is an hour:
  // exactly the key an agent picks if it forgets a clock's drift.
  if (derived.rule === "equals_event_hour" && decoys[0]) {
    const target = master.hour;
    decoys[0].hour = rng.int(0, 1) === 0 ? (target % 12) + 1 : ((target + 10) % 12) + 1;
  }
  const total = rng.int(6, 8);
  while (decoys.length < total - 1) decoys.push(draw(rng.int(1, 7)));

  const labels = "ABCDEFGH";
  const rack = rng.shuffle([master, ...decoys]);
  const keys = rack.map((k, i) => ({ ...k, label: labels[i] ?? "?" }));
  // Every decoy breaks a constraint, so the master is the only key with its properties.
  const masterKey = keys[rack.indexOf(master)] as KeyDef;
  return { keys, constraints: rng.shuffle(constraints), master: masterKey };
}
