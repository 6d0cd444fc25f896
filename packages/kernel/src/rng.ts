/**
 * mulberry32: a small seeded PRNG for tests and benchmarks, so that a failing run or a measured
 * corpus can be replayed from its seed. Not for anything that must be unpredictable (node:crypto
 * is), and not for Chamber rooms (scoreia's suites/rng.ts is keyed and versioned for that).
 */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
