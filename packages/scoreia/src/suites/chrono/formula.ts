/**
 * Dial formulas engraved on the drawer and on the door's bolt plate.
 *
 * A formula is a flat sum of products, optionally reduced modulo N. It is flat on purpose: it
 * travels in observation `data`, and the tool envelope limits JSON depth (seed 000
 * `max_json_depth` 8), so a nested expression tree could be cut off by the transport.
 *
 * Every factor names a public quantity (something an agent can work out from the room) or is a
 * constant. The format is documented in docs/rooms/chrono.md so agents can evaluate it.
 */

export type Quantity =
  | "span"
  | "day"
  | "position"
  | "last_hhmm"
  | "first_minutes"
  | "gap"
  | "last_minute"
  | "key_teeth"
  | "key_hour"
  | "drawer";

export type Factor = { q: Quantity; event?: string; other?: string } | { n: number };

export interface Formula {
  /** The value is the sum over terms of the product of each term's factors. */
  terms: Factor[][];
  /** When present, the result is reduced modulo this number (the remainder, 0..mod-1). */
  mod?: number;
}

/** Words for a quantity, as engraved: precise enough that an agent cannot misread it. */
export function describeFactor(f: Factor): string {
  if ("n" in f) return String(f.n);
  switch (f.q) {
    case "span":
      return "the minutes from the first event to the last event (true time)";
    case "day":
      return "the day of the month on the calendar";
    case "position":
      return `the position of [${f.event}] in the true order (first = 1)`;
    case "last_hhmm":
      return "the true time of the last event written as a number (10:07 -> 1007)";
    case "first_minutes":
      return "the true time of the first event in minutes after midnight (10:07 -> 607)";
    case "gap":
      return `the minutes between [${f.event}] and [${f.other}] (true time)`;
    case "last_minute":
      return "the minutes part of the true time of the last event (10:07 -> 7)";
    case "key_teeth":
      return "the number of teeth on the master key";
    case "key_hour":
      return "the hour engraved on the master key";
    case "drawer":
      return "the drawer combination";
  }
}

export function describeFormula(formula: Formula): string {
  const sum = formula.terms.map((term) => term.map((f) => `(${describeFactor(f)})`).join(" × ")).join(" + ");
  return formula.mod === undefined ? sum : `the remainder when [${sum}] is divided by ${formula.mod}`;
}

/** Evaluates a formula given a way to value each named quantity. */
export function evaluateFormula(formula: Formula, value: (f: Exclude<Factor, { n: number }>) => number): number {
  let total = 0;
  for (const term of formula.terms) {
    let product = 1;
    for (const f of term) product *= "n" in f ? f.n : value(f);
    total += product;
  }
  return formula.mod === undefined ? total : ((total % formula.mod) + formula.mod) % formula.mod;
}
