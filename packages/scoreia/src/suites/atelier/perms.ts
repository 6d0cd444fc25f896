/**
 * The 720 orderings of six items, and 720-bit sets over them.
 *
 * Both the placement (which part sits on each slot) and the assembly order (which part is fitted
 * at each step) are permutations of the room's six parts, so one table serves both. A rule is
 * compiled once into the set of permutations it allows; checking that a set of rules has exactly
 * one solution is then a few word-wise ANDs instead of a search (generation runs on every call,
 * so it has to stay cheap).
 */

export const N = 6;
export const PERM_COUNT = 720;
const WORDS = Math.ceil(PERM_COUNT / 32);

/** PERMS[p * N + i] is the item at position i of permutation p (lexicographic order). */
export const PERMS: Uint8Array = buildPerms();

function buildPerms(): Uint8Array {
  const out = new Uint8Array(PERM_COUNT * N);
  let k = 0;
  const cur: number[] = [];
  const used = new Array<boolean>(N).fill(false);
  const rec = () => {
    if (cur.length === N) {
      out.set(cur, k * N);
      k++;
      return;
    }
    for (let i = 0; i < N; i++) {
      if (used[i]) continue;
      used[i] = true;
      cur.push(i);
      rec();
      cur.pop();
      used[i] = false;
    }
  };
  rec();
  return out;
}

/** Every permutation as a plain array (position -> item), and its inverse (item -> position). */
export const PERM_LIST: readonly number[][] = Array.from({ length: PERM_COUNT }, (_, p) =>
  Array.from(PERMS.subarray(p * N, p * N + N)),
);
export const INV_LIST: readonly number[][] = PERM_LIST.map((arr) => {
  const inv = new Array<number>(N).fill(0);
  arr.forEach((item, pos) => {
    inv[item] = pos;
  });
  return inv;
});

export type Bits = Uint32Array;

export function fullBits(): Bits {
  const b = new Uint32Array(WORDS).fill(0xffffffff);
  // Clear the padding bits past 720 so counts stay exact.
  const extra = WORDS * 32 - PERM_COUNT;
  if (extra > 0) b[WORDS - 1] = 0xffffffff >>> extra;
  return b;
}

/** The set of permutations that satisfy `test` (given position -> item and item -> position). */
export function bitsOf(test: (at: readonly number[], pos: readonly number[]) => boolean): Bits {
  const b = new Uint32Array(WORDS);
  for (let p = 0; p < PERM_COUNT; p++) {
    if (test(PERM_LIST[p] as number[], INV_LIST[p] as number[])) b[p >>> 5] = (b[p >>> 5] as number) | (1 << (p & 31));
  }
  return b;
}

/**
 * POS_ITEM[pos * N + item]: the permutations with `item` at position `pos`. Most rules are unions
 * and intersections of these, which is far cheaper than testing all 720 permutations one by one.
 */
const POS_ITEM: readonly Bits[] = Array.from({ length: N * N }, (_, k) => {
  const pos = Math.floor(k / N);
  const item = k % N;
  return bitsOf((at) => at[pos] === item);
});

/** Permutations with `item` at position `pos` (shared table: do not modify). */
export function at(pos: number, item: number): Bits {
  return POS_ITEM[pos * N + item] as Bits;
}

/** Permutations whose item at `pos` is one of `items` (bit i of the mask = item i). */
export function atAny(pos: number, items: number): Bits {
  const out = new Uint32Array(WORDS);
  for (let item = 0; item < N; item++) {
    if (!((items >>> item) & 1)) continue;
    const b = POS_ITEM[pos * N + item] as Bits;
    for (let w = 0; w < WORDS; w++) out[w] = (out[w] as number) | (b[w] as number);
  }
  return out;
}

/** a ∪ b, in place into a. */
export function orInto(a: Bits, b: Bits): Bits {
  for (let w = 0; w < WORDS; w++) a[w] = (a[w] as number) | (b[w] as number);
  return a;
}

/** out ∪ (a ∩ b), in place into out, without allocating (the generator calls this a lot). */
export function orAndInto(out: Bits, a: Bits, b: Bits): Bits {
  for (let w = 0; w < WORDS; w++) out[w] = (out[w] as number) | ((a[w] as number) & (b[w] as number));
  return out;
}

/** The permutations not in `b` (padding bits stay clear). */
export function not(b: Bits): Bits {
  const out = fullBits();
  for (let w = 0; w < WORDS; w++) out[w] = (out[w] as number) & ~(b[w] as number);
  return out;
}

export function emptyBits(): Bits {
  return new Uint32Array(WORDS);
}

export function and(a: Bits, b: Bits): Bits {
  const out = new Uint32Array(WORDS);
  for (let i = 0; i < WORDS; i++) out[i] = (a[i] as number) & (b[i] as number);
  return out;
}

/** |a ∩ b| without building the intersection. */
export function countAnd(a: Bits, b: Bits): number {
  let n = 0;
  for (let i = 0; i < WORDS; i++) {
    let x = (a[i] as number) & (b[i] as number);
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

export function count(b: Bits): number {
  let n = 0;
  for (let i = 0; i < WORDS; i++) {
    let x = b[i] as number;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    n += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

/**
 * Choose a small set of rules that pins down exactly one permutation: walk the candidates in
 * `order`, keeping each one that still narrows the survivors, until one permutation is left; then
 * drop (walking `pruneOrder`) every kept rule that the others already imply, so each clue left is
 * needed. Indices in `keep` are never dropped (a clue that ties the stage to an earlier one).
 * `bitsOfRule` is called lazily because the walk usually stops long before the end of the pool.
 * Returns the chosen indices in pool order, or null when the pool cannot make the answer unique.
 */
export function pickUnique(
  bitsOfRule: (i: number) => Bits,
  order: readonly number[],
  pruneOrder: (chosen: number[]) => number[],
  keep: ReadonlySet<number>,
): number[] | null {
  let surv = fullBits();
  let left = PERM_COUNT;
  let chosen: number[] = [];
  for (const i of order) {
    const b = bitsOfRule(i);
    const n = countAnd(surv, b);
    if (n < left) {
      chosen.push(i);
      surv = and(surv, b);
      left = n;
      if (n === 1) break;
    }
  }
  if (left !== 1) return null;
  for (const i of pruneOrder(chosen.slice())) {
    if (keep.has(i)) continue;
    let rest = fullBits();
    for (const j of chosen) if (j !== i) rest = and(rest, bitsOfRule(j));
    if (count(rest) === 1) chosen = chosen.filter((j) => j !== i);
  }
  return chosen.sort((a, b) => a - b);
}

/** The index of the single permutation in a one-element set. */
export function only(b: Bits): number {
  for (let p = 0; p < PERM_COUNT; p++) if (((b[p >>> 5] as number) >>> (p & 31)) & 1) return p;
  return -1;
}
