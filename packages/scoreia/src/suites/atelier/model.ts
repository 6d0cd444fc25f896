/**
 * The atelier's vocabulary: parts, the tests written on lids and in notes, and the rules of each
 * stage, with the one function per kind that says whether a candidate answer satisfies it.
 *
 * Rules travel verbatim in observation `data` (documented in docs/rooms/atelier.md), so they are
 * kept flat: a part test is spread into its rule as `test` + `arg` rather than nested, because
 * the tool envelope caps JSON depth at 8 (seed 000 `max_json_depth`).
 */

import { at, atAny, type Bits, bitsOf, emptyBits, N, not, orAndInto, orInto } from "./perms.ts";

export const SUITE_ID = "chambre-atelier-v0";
export const GENERATION = "002";
export const ENGINE = "atelier";

export const MATERIALS = ["brass", "steel", "copper", "oak"] as const;
export type Material = (typeof MATERIALS)[number];
export const FINISHES = ["polished", "matte", "oiled"] as const;
export type Finish = (typeof FINISHES)[number];
export const BIN_IDS = ["bin-a", "bin-b", "bin-c"] as const;
export type BinId = (typeof BIN_IDS)[number];
/** Part ids are their names; six are drawn per room. */
export const PART_NAMES = [
  "gear",
  "spring",
  "cam",
  "axle",
  "lever",
  "pawl",
  "pinion",
  "ratchet",
  "spindle",
  "flywheel",
] as const;

export interface Part {
  id: string;
  material: Material;
  finish: Finish;
  /** Grams; distinct within a room so "heavier" is always decided. */
  weight: number;
  /** Digit 1..9 stamped on the part; the bolt reads these. */
  mark: number;
}

/** A test on one part. `in_bin` and `is_part` only appear after sorting (stage 2 onwards). */
export type Pred =
  | { test: "material_in"; arg: Material[] }
  | { test: "material_not"; arg: Material }
  | { test: "finish_is"; arg: Finish }
  | { test: "finish_not"; arg: Finish }
  | { test: "weight_below"; arg: number }
  | { test: "weight_at_least"; arg: number }
  | { test: "is_part"; arg: string }
  | { test: "in_bin"; arg: BinId };

export function holds(pred: Pred, part: Part, bins: Readonly<Record<string, BinId>>): boolean {
  switch (pred.test) {
    case "material_in":
      return pred.arg.includes(part.material);
    case "material_not":
      return part.material !== pred.arg;
    case "finish_is":
      return part.finish === pred.arg;
    case "finish_not":
      return part.finish !== pred.arg;
    case "weight_below":
      return part.weight < pred.arg;
    case "weight_at_least":
      return part.weight >= pred.arg;
    case "is_part":
      return part.id === pred.arg;
    case "in_bin":
      return bins[part.id] === pred.arg;
  }
}

// ---------------------------------------------------------------- stage 1: sort

/** What one bin accepts. The leftover bin (checked last) has no lid test. */
export interface BinRule {
  bin: BinId;
  lid: Pred | null;
  /** From the manual: an extra condition, ANDed with the lid. */
  addendum: Pred | null;
  /** From the manual: replaces the misprinted lid test. */
  erratum: Pred | null;
}

export interface SortPuzzle {
  /** The two ruled bins in the order they are checked; the third bin takes the rest. */
  checkOrder: [BinId, BinId];
  leftover: BinId;
  rules: BinRule[];
}

export function sortPart(part: Part, p: SortPuzzle, opts: { manual: boolean; order: BinId[] }): BinId {
  for (const bin of opts.order) {
    const r = p.rules.find((x) => x.bin === bin);
    if (!r?.lid) continue;
    const lid = opts.manual && r.erratum ? r.erratum : r.lid;
    if (!holds(lid, part, {})) continue;
    if (opts.manual && r.addendum && !holds(r.addendum, part, {})) continue;
    return bin;
  }
  return p.leftover;
}

// ---------------------------------------------------------------- stage 2: placement

/** Slot-centric rules are engraved on the board, part-centric ones are on the sketch. */
export type PlaceRule =
  | ({ kind: "slot_holds"; slot: number } & Pred)
  | ({ kind: "slot_not"; slot: number } & Pred)
  | { kind: "heavier"; slot: number; than: number }
  | { kind: "part_in"; part: string; slots: number[] }
  | ({ kind: "touches"; part: string } & Pred)
  | ({ kind: "touches_none"; part: string } & Pred);

export interface Board {
  layout: "grid" | "ring" | "line";
  /** adjacency[s - 1] lists the slots next to slot s (slots are 1..6). */
  adjacency: number[][];
}

/**
 * What a rule is checked against. Candidate answers are index arrays (part index by slot or by
 * step) so the generator can test 720 permutations per rule without allocating.
 */
export interface Env {
  parts: readonly Part[];
  /** Part id -> index into `parts`. */
  index: Readonly<Record<string, number>>;
  board: Board;
  bins: Readonly<Record<string, BinId>>;
  /** Part index on each slot (slot s at s - 1); needed by order rules that name slots. */
  placement: readonly number[];
}

/**
 * `at[s - 1]` is the index of the part on slot s; `slotOf[i]` is the slot (0-based) of part i.
 * Hot path (720 calls per candidate rule): no closures or allocations in here.
 */
export function placeOk(rule: PlaceRule, at: readonly number[], slotOf: readonly number[], env: Env): boolean {
  switch (rule.kind) {
    case "slot_holds":
      return holds(rule, partOn(rule.slot, at, env), env.bins);
    case "slot_not":
      return !holds(rule, partOn(rule.slot, at, env), env.bins);
    case "heavier":
      return partOn(rule.slot, at, env).weight > partOn(rule.than, at, env).weight;
    case "part_in":
      return rule.slots.includes((slotOf[env.index[rule.part] as number] as number) + 1);
    case "touches":
      return touching(rule.part, rule, at, slotOf, env);
    case "touches_none":
      return !touching(rule.part, rule, at, slotOf, env);
  }
}

/**
 * The placements (permutations of part indices over slots) that satisfy a rule, built from the
 * per-position tables of perms.ts: the same set placeBitsByScan computes by testing each of the
 * 720 placements with placeOk (a test checks the two agree on every rule of many rooms).
 */
export function placeBits(rule: PlaceRule, env: Env): Bits {
  switch (rule.kind) {
    case "slot_holds":
      return atAny(rule.slot - 1, partMask(rule, env));
    case "slot_not":
      return atAny(rule.slot - 1, ALL_PARTS & ~partMask(rule, env));
    case "heavier": {
      const out = emptyBits();
      for (let i = 0; i < N; i++) {
        for (let j = 0; j < N; j++) {
          if ((env.parts[i] as Part).weight > (env.parts[j] as Part).weight) {
            orAndInto(out, at(rule.slot - 1, i), at(rule.than - 1, j));
          }
        }
      }
      return out;
    }
    case "part_in": {
      const k = env.index[rule.part] as number;
      const out = emptyBits();
      for (const slot of rule.slots) orInto(out, at(slot - 1, k));
      return out;
    }
    case "touches":
      return touchingBits(rule, env);
    case "touches_none":
      return not(touchingBits(rule, env));
  }
}

/** placeBits by testing every placement: the definition placeBits must match. */
export function placeBitsByScan(rule: PlaceRule, env: Env): Bits {
  return bitsOf((at, slotOf) => placeOk(rule, at, slotOf, env));
}

const ALL_PARTS = (1 << N) - 1;

/** Bit i set when part i passes the test. */
function partMask(pred: Pred, env: Env): number {
  let m = 0;
  for (let i = 0; i < N; i++) if (holds(pred, env.parts[i] as Part, env.bins)) m |= 1 << i;
  return m;
}

/** Placements where some slot next to the rule's part holds a part passing the test. */
function touchingBits(rule: { part: string } & Pred, env: Env): Bits {
  const k = env.index[rule.part] as number;
  const mask = partMask(rule, env);
  const out = emptyBits();
  for (let s = 0; s < N; s++) {
    const near = emptyBits();
    for (const n of env.board.adjacency[s] ?? []) orInto(near, atAny(n - 1, mask));
    orAndInto(out, at(s, k), near);
  }
  return out;
}

function partOn(slot: number, at: readonly number[], env: Env): Part {
  return env.parts[at[slot - 1] as number] as Part;
}

function touching(id: string, pred: Pred, at: readonly number[], slotOf: readonly number[], env: Env): boolean {
  for (const n of env.board.adjacency[slotOf[env.index[id] as number] as number] ?? []) {
    if (holds(pred, partOn(n, at, env), env.bins)) return true;
  }
  return false;
}

export function boardFor(layout: Board["layout"]): Board {
  const adj: Record<Board["layout"], number[][]> = {
    // 1 2 3 over 4 5 6
    grid: [
      [2, 4],
      [1, 3, 5],
      [2, 6],
      [1, 5],
      [2, 4, 6],
      [3, 5],
    ],
    ring: [
      [2, 6],
      [1, 3],
      [2, 4],
      [3, 5],
      [4, 6],
      [5, 1],
    ],
    line: [[2], [1, 3], [2, 4], [3, 5], [4, 6], [5]],
  };
  return { layout, adjacency: adj[layout] };
}

// ---------------------------------------------------------------- stage 3: assembly order

/** A part named directly, or "the part on slot n" (needs the placement). */
export type Ref = { part: string } | { slot: number };

export type OrderRule =
  | { kind: "before"; a: Ref; b: Ref }
  /** a is fitted at the step right after b. */
  | { kind: "right_after"; a: Ref; b: Ref }
  | { kind: "step"; a: Ref; step: number }
  | { kind: "bin_before"; bin: BinId; than: BinId }
  /** The part on this slot is fitted before every part on a neighbouring slot. */
  | { kind: "leads_neighbours"; slot: number };

/**
 * The orders (permutations of part indices over steps) that satisfy a rule. Rules on single
 * steps are read off the per-position tables; the rest are tested order by order
 * (orderBitsByScan, the definition; a test checks the two agree).
 */
export function orderBits(rule: OrderRule, env: Env): Bits {
  if (rule.kind === "step") return at(rule.step - 1, refIndex(rule.a, env));
  if (rule.kind === "right_after") {
    const a = refIndex(rule.a, env);
    const b = refIndex(rule.b, env);
    const out = emptyBits();
    for (let step = 1; step < N; step++) orAndInto(out, at(step, a), at(step - 1, b));
    return out;
  }
  if (rule.kind === "before") {
    const a = refIndex(rule.a, env);
    const b = refIndex(rule.b, env);
    const out = emptyBits();
    for (let sa = 0; sa < N; sa++) {
      const later = emptyBits();
      for (let sb = sa + 1; sb < N; sb++) orInto(later, at(sb, b));
      orAndInto(out, at(sa, a), later);
    }
    return out;
  }
  return orderBitsByScan(rule, env);
}

export function orderBitsByScan(rule: OrderRule, env: Env): Bits {
  return bitsOf((_, stepOf) => orderOk(rule, stepOf, env));
}

/** Index of the part a reference names. */
function refIndex(r: Ref, env: Env): number {
  return "part" in r ? (env.index[r.part] as number) : (env.placement[r.slot - 1] as number);
}

/** `stepOf[i]` is the step (0-based) at which part i is fitted. Hot path: no closures. */
export function orderOk(rule: OrderRule, stepOf: readonly number[], env: Env): boolean {
  switch (rule.kind) {
    case "before":
      return (stepOf[refIndex(rule.a, env)] as number) < (stepOf[refIndex(rule.b, env)] as number);
    case "right_after":
      return stepOf[refIndex(rule.a, env)] === (stepOf[refIndex(rule.b, env)] as number) + 1;
    case "step":
      return stepOf[refIndex(rule.a, env)] === rule.step - 1;
    case "bin_before": {
      let last = -1;
      let first = 99;
      for (let i = 0; i < env.parts.length; i++) {
        const bin = env.bins[(env.parts[i] as Part).id];
        const s = stepOf[i] as number;
        if (bin === rule.bin && s > last) last = s;
        if (bin === rule.than && s < first) first = s;
      }
      return last < first;
    }
    case "leads_neighbours": {
      const own = stepOf[env.placement[rule.slot - 1] as number] as number;
      for (const n of env.board.adjacency[rule.slot - 1] ?? []) {
        if ((stepOf[env.placement[n - 1] as number] as number) <= own) return false;
      }
      return true;
    }
  }
}

// ---------------------------------------------------------------- stage 4: bolt

export type BoltFormula =
  /** Marks of the parts in fitting order, leaving out the parts of one bin. */
  | { kind: "marks_skip_bin"; bin: BinId; dials: number }
  /** Dial i: last digit of (mark + slot) of the i-th part fitted. */
  | { kind: "mark_plus_slot"; dials: number }
  /** Dial i: the step at which the part on slots[i] was fitted. */
  | { kind: "steps_of_slots"; slots: number[]; dials: number };

/** The code, from the sorted bins, the placement (part ids by slot) and the order (part ids by step). */
export function boltCode(f: BoltFormula, env: Env, order: readonly string[]): string {
  const part = (id: string) => env.parts[env.index[id] as number] as Part;
  const slot = (id: string) => env.placement.indexOf(env.index[id] as number) + 1;
  switch (f.kind) {
    case "marks_skip_bin":
      return order
        .filter((id) => env.bins[id] !== f.bin)
        .map((id) => part(id).mark)
        .join("");
    case "mark_plus_slot":
      return order
        .slice(0, f.dials)
        .map((id) => (part(id).mark + slot(id)) % 10)
        .join("");
    case "steps_of_slots":
      return f.slots.map((s) => order.indexOf((env.parts[env.placement[s - 1] as number] as Part).id) + 1).join("");
  }
}
