/**
 * Builds one atelier room from its seed. Deterministic: every random choice comes from
 * Rng(suite id, generation, seed, stream), one stream per stage, and a stage whose draw fails a
 * check is redrawn from the same stream, so a seed always yields the same room.
 *
 * Uniqueness is checked here, not hoped for: the sort is a decision list (one answer by
 * construction), and the placement and order clues are chosen until exactly one of the 720
 * permutations survives (perms.ts).
 */

import { Rng } from "../rng.ts";
import type {
  BinId,
  BinRule,
  Board,
  BoltFormula,
  Env,
  Finish,
  Material,
  OrderRule,
  Part,
  PlaceRule,
  Pred,
  SortPuzzle,
} from "./model.ts";
import {
  BIN_IDS,
  boardFor,
  boltCode,
  FINISHES,
  GENERATION,
  MATERIALS,
  orderBits,
  orderOk,
  PART_NAMES,
  placeBits,
  SUITE_ID,
  sortPart,
} from "./model.ts";
import { and, type Bits, fullBits, N, only, PERM_LIST, pickUnique } from "./perms.ts";
import { ordinal } from "./text.ts";

/** Everything about one room, oracle included. Never sent to an agent as a whole. */
export interface Room {
  seed: string;
  /** Sorted by id, the order the room lists them in. */
  parts: Part[];
  sort: SortPuzzle;
  board: Board;
  boardRules: PlaceRule[];
  sketchRules: PlaceRule[];
  orderRules: OrderRule[];
  bolt: BoltFormula;
  /** Oracle: bins, placement and the answers of every stage. */
  env: Env;
  answer: { bins: Record<string, BinId>; placement: string[]; order: string[]; code: string };
  /** Hint texts per stage, revealed in this order. */
  hints: string[][];
}

const MAX_DRAWS = 400;

export function generateRoom(seed: string): Room {
  const rng = (stream: string) => new Rng(SUITE_ID, GENERATION, seed, stream);
  const parts = drawParts(rng("parts"));
  const sort = drawSort(rng("sort"), parts);
  const bins: Record<string, BinId> = {};
  for (const p of parts) bins[p.id] = sortPart(p, sort, { manual: true, order: sort.checkOrder });
  const index: Record<string, number> = {};
  parts.forEach((p, i) => {
    index[p.id] = i;
  });
  const place = drawPlacement(rng("place"), parts, index, bins);
  const env: Env = { parts, index, board: place.board, bins, placement: place.at };
  const ord = drawOrder(rng("order"), env);
  const boltRng = rng("bolt");
  const bolt = drawBolt(boltRng, env);
  const placement = place.at.map((i) => (parts[i] as Part).id);
  const order = ord.seq.map((i) => (parts[i] as Part).id);
  const code = boltCode(bolt, env, order);
  const hints = [
    boltRng.shuffle(parts).map((p) => `The ${p.id} belongs in ${bins[p.id]}.`),
    boltRng.shuffle(placement.map((id, s) => `Slot ${s + 1} holds the ${id}.`)),
    boltRng.shuffle(order.map((id, s) => `The ${id} is fitted ${ordinal(s + 1)}.`)),
    code.split("").map((d, i) => `Dial ${i + 1} of the bolt shows ${d}.`),
  ];
  return {
    seed,
    parts,
    sort,
    board: place.board,
    boardRules: place.rules.filter((r) => r.kind === "slot_holds" || r.kind === "slot_not" || r.kind === "heavier"),
    sketchRules: place.rules.filter((r) => r.kind === "part_in" || r.kind === "touches" || r.kind === "touches_none"),
    orderRules: ord.rules,
    bolt,
    env,
    answer: { bins, placement, order, code },
    hints,
  };
}

// Regenerating costs about two milliseconds; a small memo keeps a busy attempt from paying it on
// every call. Bounded so a flood of seeds cannot grow memory (oldest entry evicted first).
// Rooms from the memo are shared: treat them as read-only.
const MEMO_MAX = 256;
const memo = new Map<string, Room>();

export function buildRoom(seed: string): Room {
  const hit = memo.get(seed);
  if (hit) return hit;
  const room = generateRoom(seed);
  if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value as string);
  memo.set(seed, room);
  return room;
}

// ---------------------------------------------------------------- parts

function drawParts(rng: Rng): Part[] {
  const names = rng.sample(PART_NAMES, N);
  const weights = rng.sample(
    Array.from({ length: 88 }, (_, i) => i + 11),
    N,
  );
  const parts = names.map((id, i) => ({
    id,
    material: rng.pick(MATERIALS),
    finish: rng.pick(FINISHES),
    weight: weights[i] as number,
    mark: rng.int(1, 9),
  }));
  return parts.sort((a, b) => (a.id < b.id ? -1 : 1));
}

// ---------------------------------------------------------------- stage 1: sort

type Family = "material" | "finish" | "weight";
const FAMILIES: readonly Family[] = ["material", "finish", "weight"];

function present<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function drawPred(rng: Rng, family: Family, parts: readonly Part[]): Pred {
  if (family === "material") {
    const mats = present(parts.map((p) => p.material));
    const m = rng.pick(mats);
    const shape = rng.int(0, 2);
    if (shape === 1 && mats.length > 2) {
      const other = rng.pick(mats.filter((x) => x !== m));
      return { test: "material_in", arg: MATERIALS.filter((x): x is Material => x === m || x === other) };
    }
    return shape === 2 ? { test: "material_not", arg: m } : { test: "material_in", arg: [m] };
  }
  if (family === "finish") {
    const f: Finish = rng.pick(present(parts.map((p) => p.finish)));
    return rng.int(0, 1) === 0 ? { test: "finish_is", arg: f } : { test: "finish_not", arg: f };
  }
  const grams = rng.int(2, 8) * 10 + 5 * rng.int(0, 1);
  return rng.int(0, 1) === 0 ? { test: "weight_below", arg: grams } : { test: "weight_at_least", arg: grams };
}

function drawSort(rng: Rng, parts: readonly Part[]): SortPuzzle {
  for (let k = 0; k < MAX_DRAWS; k++) {
    const [b0, b1, leftover] = rng.shuffle(BIN_IDS) as [BinId, BinId, BinId];
    const rules: BinRule[] = BIN_IDS.map((bin) => ({ bin, lid: null, addendum: null, erratum: null }));
    const rule = (bin: BinId) => rules.find((r) => r.bin === bin) as BinRule;
    for (const bin of [b0, b1]) {
      const fam = rng.pick(FAMILIES);
      rule(bin).lid = drawPred(rng, fam, parts);
      if (rng.int(0, 9) < 6) rule(bin).addendum = drawPred(rng, rng.pick(FAMILIES.filter((f) => f !== fam)), parts);
    }
    if (rng.int(0, 2) === 0) {
      const r = rule(rng.pick([b0, b1]));
      const e = drawPred(rng, rng.pick(FAMILIES), parts);
      if (JSON.stringify(e) !== JSON.stringify(r.lid)) r.erratum = e;
    }
    const puzzle: SortPuzzle = { checkOrder: [b0, b1], leftover, rules };
    const run = (manual: boolean, order: BinId[]) => parts.map((p) => sortPart(p, puzzle, { manual, order })).join();
    const truth = run(true, [b0, b1]);
    // Every bin used; the manual's rules matter; the manual's check order matters; and reading
    // only the lids in alphabetical order (the lazy reading) gives a different answer.
    const ok =
      BIN_IDS.every((b) => truth.split(",").includes(b)) &&
      run(false, [b0, b1]) !== truth &&
      run(true, [b1, b0]) !== truth &&
      run(false, [b0, b1].sort()) !== truth;
    if (ok) return puzzle;
  }
  throw new Error("atelier: no sort puzzle found");
}

// ---------------------------------------------------------------- stage 2: placement

const LAYOUTS: readonly Board["layout"][] = ["grid", "ring", "line"];
const key = (x: unknown) => JSON.stringify(x);

function drawPlacement(rng: Rng, parts: readonly Part[], index: Record<string, number>, bins: Record<string, BinId>) {
  for (let k = 0; k < MAX_DRAWS; k++) {
    const board = boardFor(rng.pick(LAYOUTS));
    const at = rng.shuffle(parts.map((_, i) => i));
    const env: Env = { parts, index, board, bins, placement: at };
    const { pool, direct } = placementPool(rng, env);
    // One clue that needs the sorted bins goes first and is kept, so stage 2 builds on stage 1.
    const binClues = pool.filter((r) => "test" in r && r.test === "in_bin");
    if (binClues.length === 0) continue;
    const first = rng.pick(binClues);
    const rules: PlaceRule[] = [first, ...rng.shuffle(pool.filter((r) => r !== first)), ...rng.shuffle(direct)];
    const cache = new Map<number, Bits>();
    const bits = (i: number) => {
      let b = cache.get(i);
      if (!b) {
        const r = rules[i] as PlaceRule;
        b = placeBits(r, env);
        cache.set(i, b);
      }
      return b;
    };
    const chosen = pickUnique(
      bits,
      rules.map((_, i) => i),
      (c) => rng.shuffle(c),
      new Set([0]),
    );
    if (!chosen || chosen.length > 9) continue;
    const picked = rng.shuffle(chosen.map((i) => rules[i] as PlaceRule));
    const onBoard = picked.filter((r) => r.kind === "slot_holds" || r.kind === "slot_not" || r.kind === "heavier");
    if (onBoard.length === 0 || onBoard.length === picked.length) continue;
    assertSingle(chosen.map(bits), at);
    return { board, at, rules: picked };
  }
  throw new Error("atelier: no placement puzzle found");
}

function assertSingle(sets: Bits[], expected: readonly number[]) {
  const all = sets.reduce(and, fullBits());
  const p = only(all);
  if (key(PERM_LIST[p]) !== key(expected)) throw new Error("atelier: clue set does not single out the answer");
}

/**
 * Identity of a placement rule for de-duplication: every field, in a fixed order (the same
 * equality as comparing the rules' JSON, at a fraction of the cost; this runs for every clue).
 */
function ruleKey(r: PlaceRule): string {
  const f = r as Partial<Record<"slot" | "than" | "part" | "test" | "arg" | "slots", unknown>>;
  return `${r.kind}|${f.slot}|${f.than}|${f.part}|${f.test}|${Array.isArray(f.arg) ? `[${f.arg.join(",")}]` : f.arg}|${f.slots}`;
}

/** Every clue that is true of the placement; `direct` clues (slot holds the X) are a last resort. */
function placementPool(rng: Rng, env: Env) {
  const { parts, bins, board, placement: at } = env;
  const seen = new Set<string>();
  const pool: PlaceRule[] = [];
  const direct: PlaceRule[] = [];
  const add = (r: PlaceRule, list = pool) => {
    const k = ruleKey(r);
    if (!seen.has(k)) {
      seen.add(k);
      list.push(r);
    }
  };
  const mats = present(parts.map((p) => p.material));
  const fins = present(parts.map((p) => p.finish));
  const part = (slot: number) => parts[at[slot - 1] as number] as Part;
  for (let s = 1; s <= N; s++) {
    const p = part(s);
    add({ kind: "slot_holds", slot: s, test: "material_in", arg: [p.material] });
    add({ kind: "slot_holds", slot: s, test: "finish_is", arg: p.finish });
    add({ kind: "slot_holds", slot: s, test: "in_bin", arg: bins[p.id] as BinId });
    add({ kind: "slot_holds", slot: s, test: "is_part", arg: p.id }, direct);
    for (const m of mats) if (m !== p.material) add({ kind: "slot_not", slot: s, test: "material_in", arg: [m] });
    for (const f of fins) if (f !== p.finish) add({ kind: "slot_not", slot: s, test: "finish_is", arg: f });
    for (const b of BIN_IDS) if (b !== bins[p.id]) add({ kind: "slot_not", slot: s, test: "in_bin", arg: b });
    for (let t = 1; t <= N; t++) if (part(s).weight > part(t).weight) add({ kind: "heavier", slot: s, than: t });
  }
  for (let s = 1; s <= N; s++) {
    const p = part(s);
    const others = rng.shuffle([1, 2, 3, 4, 5, 6].filter((x) => x !== s));
    add({ kind: "part_in", part: p.id, slots: [s, others[0] as number].sort((a, b) => a - b) });
    add({ kind: "part_in", part: p.id, slots: [s, others[1] as number, others[2] as number].sort((a, b) => a - b) });
    const near = (board.adjacency[s - 1] ?? []).map(part);
    for (const q of near) {
      add({ kind: "touches", part: p.id, test: "is_part", arg: q.id });
      add({ kind: "touches", part: p.id, test: "material_in", arg: [q.material] });
      add({ kind: "touches", part: p.id, test: "in_bin", arg: bins[q.id] as BinId });
    }
    for (const q of parts) {
      if (q !== p && !near.includes(q)) add({ kind: "touches_none", part: p.id, test: "is_part", arg: q.id });
    }
    for (const m of mats) {
      if (!near.some((q) => q.material === m)) add({ kind: "touches_none", part: p.id, test: "material_in", arg: [m] });
    }
    for (const b of BIN_IDS) {
      if (!near.some((q) => bins[q.id] === b)) add({ kind: "touches_none", part: p.id, test: "in_bin", arg: b });
    }
  }
  return { pool, direct };
}

// ---------------------------------------------------------------- stage 3: assembly order

function drawOrder(rng: Rng, env: Env) {
  const { parts, placement } = env;
  const slotOfPart = (i: number) => placement.indexOf(i) + 1;
  for (let k = 0; k < MAX_DRAWS; k++) {
    const seq = rng.shuffle(parts.map((_, i) => i));
    // Half the mentions name a slot instead of a part, so the order cannot be read without the
    // placement from stage 2.
    const ref = (i: number) => (rng.int(0, 1) === 0 ? { part: (parts[i] as Part).id } : { slot: slotOfPart(i) });
    const pool: OrderRule[] = [];
    const steps: OrderRule[] = [];
    for (let x = 0; x < N; x++) {
      for (let y = x + 1; y < N; y++) pool.push({ kind: "before", a: ref(seq[x] as number), b: ref(seq[y] as number) });
      if (x > 0) pool.push({ kind: "right_after", a: ref(seq[x] as number), b: ref(seq[x - 1] as number) });
      steps.push({ kind: "step", a: ref(seq[x] as number), step: x + 1 });
    }
    const stepOf = new Array<number>(N).fill(0);
    seq.forEach((part, step) => {
      stepOf[part] = step;
    });
    for (const b of BIN_IDS) {
      for (const c of BIN_IDS) {
        const r: OrderRule = { kind: "bin_before", bin: b, than: c };
        if (b !== c && orderOk(r, stepOf, env)) pool.push(r);
      }
    }
    for (let s = 1; s <= N; s++) {
      const r: OrderRule = { kind: "leads_neighbours", slot: s };
      if (orderOk(r, stepOf, env)) pool.push(r);
    }
    const slotClues = pool.filter((r) => r.kind === "leads_neighbours" || ("a" in r && "slot" in r.a));
    if (slotClues.length === 0) continue;
    const first = rng.pick(slotClues);
    const rules: OrderRule[] = [first, ...rng.shuffle(pool.filter((r) => r !== first)), ...rng.shuffle(steps)];
    const cache = new Map<number, Bits>();
    const bits = (i: number) => {
      let b = cache.get(i);
      if (!b) {
        const r = rules[i] as OrderRule;
        b = orderBits(r, env);
        cache.set(i, b);
      }
      return b;
    };
    const chosen = pickUnique(
      bits,
      rules.map((_, i) => i),
      (c) => rng.shuffle(c),
      new Set([0]),
    );
    if (!chosen || chosen.length > 9) continue;
    assertSingle(chosen.map(bits), seq);
    return { seq, rules: rng.shuffle(chosen.map((i) => rules[i] as OrderRule)) };
  }
  throw new Error("atelier: no order puzzle found");
}

// ---------------------------------------------------------------- stage 4: bolt

function drawBolt(rng: Rng, env: Env): BoltFormula {
  const kind = rng.int(0, 2);
  if (kind === 0) {
    // Leave out a bin of 1 to 3 parts so the code keeps 3 to 5 digits.
    const sizes = BIN_IDS.map((b) => env.parts.filter((p) => env.bins[p.id] === b).length);
    const bin = rng.pick(BIN_IDS.filter((_, i) => (sizes[i] as number) <= 3));
    return { kind: "marks_skip_bin", bin, dials: N - (sizes[BIN_IDS.indexOf(bin)] as number) };
  }
  if (kind === 1) return { kind: "mark_plus_slot", dials: 4 };
  return { kind: "steps_of_slots", slots: rng.sample([1, 2, 3, 4, 5, 6], 4), dials: 4 };
}
