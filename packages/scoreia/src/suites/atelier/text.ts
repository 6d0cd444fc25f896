/**
 * English renderings of the atelier's rules. Every sentence here has a structured twin in the
 * observation `data`; the wording is kept plain and unambiguous because LLM agents read it.
 */

import type { BinRule, Board, BoltFormula, OrderRule, Part, PlaceRule, Pred, Ref, SortPuzzle } from "./model.ts";

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"];

export function ordinal(n: number): string {
  return ORDINALS[n - 1] ?? `#${n}`;
}

function an(phrase: string): string {
  return `${/^[aeiou]/.test(phrase) ? "an" : "a"} ${phrase}`;
}

function joinList(items: readonly (string | number)[], word: "and" | "or"): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${word} ${items[items.length - 1]}`;
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The noun phrase without article: "brass part", "part lighter than 40 g". */
function noun(p: Pred): string {
  switch (p.test) {
    case "material_in":
      return `${p.arg.join(" or ")} part`;
    case "material_not":
      return `part that is not ${p.arg}`;
    case "finish_is":
      return `${p.arg} part`;
    case "finish_not":
      return `part that is not ${p.arg}`;
    case "weight_below":
      return `part lighter than ${p.arg} g`;
    case "weight_at_least":
      return `part of ${p.arg} g or more`;
    case "is_part":
      return p.arg;
    case "in_bin":
      return `part from ${p.arg}`;
  }
}

/** "a brass part", "the cam". */
export function one(p: Pred): string {
  return p.test === "is_part" ? `the ${p.arg}` : an(noun(p));
}

/** "brass parts", "parts lighter than 40 g". */
export function many(p: Pred): string {
  switch (p.test) {
    case "material_not":
    case "finish_not":
      return `parts that are not ${p.arg}`;
    case "is_part":
      return `the ${p.arg}`;
    default: {
      const n = noun(p);
      return n.startsWith("part ") ? `parts${n.slice(4)}` : `${n}s`;
    }
  }
}

/** "any brass part", "the cam". */
function any(p: Pred): string {
  return p.test === "is_part" ? `the ${p.arg}` : `any ${noun(p)}`;
}

export function partText(p: Part): string {
  return `The ${p.id}: ${an(p.material)} part, ${p.finish} finish, ${p.weight} g. Stamped mark: ${p.mark}.`;
}

export function lidText(r: BinRule): string {
  return r.lid
    ? `Lid of ${r.bin}: "Only ${many(r.lid)}."`
    : `Lid of ${r.bin}: "Leftovers: any part that the other bins refuse."`;
}

export function manualText(s: SortPuzzle): string {
  const [first, second] = s.checkOrder;
  const lines = [
    `Workshop manual, sorting chapter. Check the bins in this order: ${first}, then ${second}.`,
    `A part goes into the first bin whose whole rule it meets; ${s.leftover} takes whatever both refuse.`,
    "A bin's whole rule is its lid rule (or the erratum below, if there is one) together with any addendum below.",
  ];
  for (const r of s.rules) {
    if (r.erratum)
      lines.push(`Erratum for ${r.bin}: its lid is misprinted; the true lid reads "Only ${many(r.erratum)}."`);
    if (r.addendum) lines.push(`Addendum for ${r.bin}: it also accepts only ${many(r.addendum)}.`);
  }
  if (s.rules.every((r) => !r.erratum && !r.addendum)) lines.push("No errata, no addenda.");
  return lines.join(" ");
}

export function boardText(board: Board): string {
  const shape = {
    grid: "in two rows: slots 1, 2, 3 on top, slots 4, 5, 6 below",
    ring: "in a ring: 1, 2, 3, 4, 5, 6 and back to 1",
    line: "in a single line: 1, 2, 3, 4, 5, 6",
  }[board.layout];
  const touch = board.adjacency.map((n, i) => `slot ${i + 1} touches ${joinList(n, "and")}`).join("; ");
  return `The board has 6 numbered slots ${shape}. Parts on neighbouring slots touch: ${touch}.`;
}

export function placeRuleText(r: PlaceRule): string {
  switch (r.kind) {
    case "slot_holds":
      return `Slot ${r.slot} holds ${one(r)}.`;
    case "slot_not":
      return `Slot ${r.slot} does not hold ${one(r)}.`;
    case "heavier":
      return `The part on slot ${r.slot} is heavier than the part on slot ${r.than}.`;
    case "part_in":
      return `The ${r.part} sits on slot ${joinList(r.slots, "or")}.`;
    case "touches":
      return `The ${r.part} touches ${one(r)}.`;
    case "touches_none":
      return `The ${r.part} does not touch ${any(r)}.`;
  }
}

function ref(r: Ref): string {
  return "part" in r ? `the ${r.part}` : `the part on slot ${r.slot}`;
}

export function orderRuleText(r: OrderRule): string {
  switch (r.kind) {
    case "before":
      return `${capitalize(ref(r.a))} is fitted before ${ref(r.b)}.`;
    case "right_after":
      return `${capitalize(ref(r.a))} is fitted right after ${ref(r.b)}.`;
    case "step":
      return `${capitalize(ref(r.a))} is fitted ${ordinal(r.step)}.`;
    case "bin_before":
      return `Every part from ${r.bin} is fitted before every part from ${r.than}.`;
    case "leads_neighbours":
      return `The part on slot ${r.slot} is fitted before every part that touches it on the board.`;
  }
}

export function numbered(lines: readonly string[]): string {
  return lines.map((l, i) => `(${i + 1}) ${l}`).join(" ");
}

export function boltText(f: BoltFormula): string {
  const head = `The bolt has a lock of ${f.dials} dials, each showing one digit 0-9.`;
  switch (f.kind) {
    case "marks_skip_bin":
      return `${head} Set the dials to the stamped marks of the parts in the order they were fitted, leaving out every part sorted into ${f.bin}.`;
    case "mark_plus_slot":
      return `${head} Dial i takes the last digit of (stamped mark + slot number) of the i-th part fitted, for i = 1 to ${f.dials}.`;
    case "steps_of_slots":
      return `${head} Read slots ${f.slots.join(", ")} in that order: each dial takes the step (1 = fitted first, 6 = fitted last) at which the part on that slot was fitted.`;
  }
}
