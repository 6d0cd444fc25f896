import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  type NodeSource,
  nodeHash,
  subtreeHash,
  verifyConsistency,
  verifyInclusion,
} from "./merkle.ts";

// transparency-dev/merkle vectors, copied with their licence (testdata/merkle/PROVENANCE.md).
const DIR = fileURLToPath(new URL("../../../../testdata/merkle/", import.meta.url));

function vectors(kind: "inclusion" | "consistency"): Array<{ file: string; v: Record<string, unknown> }> {
  const out: Array<{ file: string; v: Record<string, unknown> }> = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith(".json")) out.push({ file: p.slice(DIR.length), v: JSON.parse(readFileSync(p, "utf8")) });
    }
  };
  walk(join(DIR, kind));
  return out;
}

const b64 = (s: unknown) => (typeof s === "string" ? Buffer.from(s, "base64") : Buffer.alloc(0));
const proofOf = (p: unknown) => (Array.isArray(p) ? p.map(b64) : []);

// The eight-leaf reference tree of RFC 6962's test suite.
const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(
  (h) => leafHash(Buffer.from(h, "hex")),
);

/** Complete subtrees of LEAVES, computed the slow way: what the log stores per (level, index). */
const source: NodeSource = async (level, index) => {
  let row = LEAVES.slice();
  for (let l = 0; l < level; l++) {
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < row.length; i += 2) next.push(nodeHash(row[i] as Buffer, row[i + 1] as Buffer));
    row = next;
  }
  const h = row[index];
  if (!h) throw new Error(`no node ${level}/${index}`);
  return h;
};

describe("RFC 6962 Merkle log against the transparency-dev vectors", () => {
  it("every inclusion vector: happy paths verify, every corruption is refused", () => {
    const all = vectors("inclusion");
    expect(all.length).toBeGreaterThan(40);
    for (const { file, v } of all) {
      const ok = verifyInclusion(Number(v.leafIdx), Number(v.treeSize), b64(v.leafHash), proofOf(v.proof), b64(v.root));
      expect(ok, file).toBe(v.wantErr === false);
    }
  });

  it("every consistency vector: happy paths verify, every corruption is refused", () => {
    const all = vectors("consistency");
    expect(all.length).toBeGreaterThan(40);
    for (const { file, v } of all) {
      const ok = verifyConsistency(Number(v.size1), Number(v.size2), proofOf(v.proof), b64(v.root1), b64(v.root2));
      expect(ok, file).toBe(v.wantErr === false);
    }
  });

  it("the proofs we generate are the vectors' happy paths, byte for byte", async () => {
    for (const { file, v } of vectors("inclusion").filter((x) => x.file.endsWith("happy-path.json"))) {
      const n = Number(v.treeSize);
      if (n > 8 || n === 0) continue;
      const root = await subtreeHash(source, 0, n);
      expect(root.toString("base64"), file).toBe(v.root);
      const proof = await inclusionProof(source, Number(v.leafIdx), n);
      expect(
        proof.map((p) => p.toString("base64")),
        file,
      ).toEqual(v.proof ?? []);
    }
    for (const { file, v } of vectors("consistency").filter((x) => x.file.endsWith("happy-path.json"))) {
      const proof = await consistencyProof(source, Number(v.size1), Number(v.size2));
      expect(
        proof.map((p) => p.toString("base64")),
        file,
      ).toEqual(v.proof ?? []);
    }
  });

  it("generated proofs verify for every pair of sizes of the reference tree", async () => {
    for (let n = 1; n <= 8; n++) {
      const root = await subtreeHash(source, 0, n);
      for (let m = 0; m < n; m++) {
        expect(verifyInclusion(m, n, LEAVES[m] as Buffer, await inclusionProof(source, m, n), root)).toBe(true);
        expect(verifyInclusion(m, n, LEAVES[(m + 1) % 8] as Buffer, await inclusionProof(source, m, n), root)).toBe(
          false,
        );
      }
      for (let m = 1; m <= n; m++) {
        const r1 = await subtreeHash(source, 0, m);
        expect(verifyConsistency(m, n, await consistencyProof(source, m, n), r1, root), `${m}→${n}`).toBe(true);
      }
    }
  });
});
