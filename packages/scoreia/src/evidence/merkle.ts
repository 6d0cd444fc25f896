import { createHash } from "node:crypto";

/**
 * RFC 6962 (§2.1) Merkle tree hashes and proofs, as the card transparency log uses them
 * (docs/evidence-0.2.md §15). Hashes are raw 32-byte SHA-256 values here; the log's documents
 * write them as `sha256:` + hex. Verification follows RFC 9162 §2.1.3.2 and §2.1.4.2 (the same
 * algorithms, restated without the "PATH/PROOF" recursion), checked against the
 * transparency-dev vectors in testdata/merkle.
 */

export function leafHash(leaf: Uint8Array): Buffer {
  return createHash("sha256").update(Buffer.of(0)).update(leaf).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash("sha256").update(Buffer.of(1)).update(left).update(right).digest();
}

export const EMPTY_ROOT = createHash("sha256").digest();

/** The largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * Where subtree hashes come from: `node(level, index)` is the hash of the complete subtree of
 * 2^level leaves starting at leaf index × 2^level (level 0 = leaf hashes). The log keeps exactly
 * these; everything else is computed from O(log n) of them.
 */
export type NodeSource = (level: number, index: number) => Promise<Buffer>;

/** MTH of leaves [start, start + n), start aligned as RFC 6962's recursion leaves it. */
export async function subtreeHash(node: NodeSource, start: number, n: number): Promise<Buffer> {
  if (n === 0) return EMPTY_ROOT;
  // A power-of-two range aligned on its size is one stored node.
  if ((n & (n - 1)) === 0 && start % n === 0) return node(Math.log2(n), start / n);
  const k = split(n);
  return nodeHash(await subtreeHash(node, start, k), await subtreeHash(node, start + k, n - k));
}

/** RFC 6962 §2.1.1 PATH(m, D[n]): the audit path of leaf m in the first n leaves. */
export async function inclusionProof(node: NodeSource, m: number, n: number, start = 0): Promise<Buffer[]> {
  if (n <= 1) return [];
  const k = split(n);
  if (m < k) return [...(await inclusionProof(node, m, k, start)), await subtreeHash(node, start + k, n - k)];
  return [...(await inclusionProof(node, m - k, n - k, start + k)), await subtreeHash(node, start, k)];
}

/** RFC 6962 §2.1.2 PROOF(m, D[n]): consistency of the first m leaves with the first n. */
export async function consistencyProof(node: NodeSource, m: number, n: number): Promise<Buffer[]> {
  if (m <= 0 || m >= n) return [];
  return subproof(node, m, 0, n, true);
}

async function subproof(node: NodeSource, m: number, start: number, n: number, complete: boolean): Promise<Buffer[]> {
  if (m === n) return complete ? [] : [await subtreeHash(node, start, n)];
  const k = split(n);
  if (m <= k) return [...(await subproof(node, m, start, k, complete)), await subtreeHash(node, start + k, n - k)];
  return [...(await subproof(node, m - k, start + k, n - k, false)), await subtreeHash(node, start, k)];
}

/** Every value is a 32-byte SHA-256 output. */
function hashes(values: Uint8Array[]): boolean {
  return values.every((v) => v.length === 32);
}

/** RFC 9162 §2.1.3.2: does `proof` prove leaf `index` (hash `leaf`) in a tree of `size` with `root`? */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!hashes([leaf, root, ...proof])) return false;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && Buffer.from(r).equals(Buffer.from(root));
}

/** RFC 9162 §2.1.4.2: is the tree (size1, root1) a prefix of (size2, root2)? */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0 || size2 < size1) return false;
  // A consistency check from the empty tree proves nothing; the vectors refuse it, even 0 → 0.
  if (size1 === 0) return false;
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
  if (size1 === size2) return proof.length === 0 && same(root1, root2);
  if (!hashes([root1, root2, ...proof])) return false;
  if (proof.length === 0) return false;
  let path = proof;
  // If size1 is a power of two, root1 is itself the first node of the path.
  if ((size1 & (size1 - 1)) === 0) path = [root1, ...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Uint8Array;
  let sr = path[0] as Uint8Array;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(fr, root1) && same(sr, root2);
}
