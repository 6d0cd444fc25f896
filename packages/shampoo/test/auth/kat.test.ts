import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type KeyObject,
} from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hybridDecapsulate, hybridEncapsulate, hybridKeys, p256Shared } from "../../src/domains/auth/crypto/hybrid.ts";
import { mlkemDecapsulate, mlkemEncapsulate, mlkemKeygen } from "../../src/domains/auth/crypto/mlkem.ts";

/**
 * Known answers for the handshake's primitives, from the vectors copied into testdata/
 * (testdata/README.md: Wycheproof at dac1dd47…, the MLKEM768-P256 hybrid from noble-post-quantum).
 */
const vectors = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../../../testdata/${file}`, import.meta.url), "utf8"));
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

interface Group<T> {
  tests: T[];
  [k: string]: unknown;
}
const testsOf = <T>(file: string): Array<T & { group: Group<T> }> =>
  (vectors(file).testGroups as Group<T>[]).flatMap((group) => group.tests.map((t) => ({ ...t, group })));

describe("ML-KEM-768 (Wycheproof)", () => {
  it("derives every key pair of the seed vectors", () => {
    const tests = testsOf<{ seed: string; ek: string; dk: string; result: string }>(
      "wycheproof/mlkem_768_keygen_seed_test.json",
    );
    expect(tests.length).toBe(100);
    for (const t of tests) {
      const k = mlkemKeygen(hex(t.seed));
      expect(toHex(k.publicKey)).toBe(t.ek);
      expect(toHex(k.secretKey)).toBe(t.dk);
    }
  });

  it("encapsulates to the known answers and refuses unreduced or mis-sized keys", () => {
    const tests = testsOf<{ tcId: number; m: string; ek: string; c: string; K: string; result: string }>(
      "wycheproof/mlkem_768_encaps_test.json",
    );
    let valid = 0;
    let invalid = 0;
    for (const t of tests) {
      if (t.result === "valid") {
        const r = mlkemEncapsulate(hex(t.ek), hex(t.m));
        expect(toHex(r.cipherText), `tc ${t.tcId}`).toBe(t.c);
        expect(toHex(r.sharedSecret), `tc ${t.tcId}`).toBe(t.K);
        valid++;
      } else {
        expect(() => mlkemEncapsulate(hex(t.ek), hex(t.m)), `tc ${t.tcId}`).toThrow();
        invalid++;
      }
    }
    expect(valid).toBeGreaterThan(20);
    expect(invalid).toBeGreaterThan(100);
  });

  it("decapsulates (implicit rejection included) and refuses mis-sized ciphertexts", () => {
    const tests = testsOf<{ tcId: number; seed: string; ek: string; c: string; K: string; result: string }>(
      "wycheproof/mlkem_768_test.json",
    );
    let invalid = 0;
    for (const t of tests) {
      // invalid vectors: a mis-sized ciphertext, or a mis-sized seed (the private key) itself
      const decaps = () => toHex(mlkemDecapsulate(hex(t.c), mlkemKeygen(hex(t.seed)).secretKey));
      if (t.result === "valid") {
        expect(toHex(mlkemKeygen(hex(t.seed)).publicKey)).toBe(t.ek);
        expect(decaps(), `tc ${t.tcId}`).toBe(t.K);
      } else {
        expect(decaps, `tc ${t.tcId}`).toThrow();
        invalid++;
      }
    }
    expect(tests.length).toBe(193);
    expect(invalid).toBeGreaterThan(5);
  });

  it("refuses a decapsulation key whose embedded hash does not match", () => {
    const k = mlkemKeygen(new Uint8Array(64).fill(7));
    const { cipherText } = mlkemEncapsulate(k.publicKey, new Uint8Array(32).fill(1));
    const bad = k.secretKey.slice();
    bad[2400 - 40] = (bad[2400 - 40] as number) ^ 1;
    expect(() => mlkemDecapsulate(cipherText, bad)).toThrow();
  });
});

/**
 * The point of a P-256 SubjectPublicKeyInfo, as the handshake would receive it: only the named
 * curve (OID prime256v1) is P-256 here; explicit curve parameters, however close, are refused.
 */
const NAMED_P256 = "301306072a8648ce3d020106082a8648ce3d030107";
function spkiPoint(der: string): Uint8Array {
  if (!der.slice(4).startsWith(NAMED_P256) && !der.slice(6).startsWith(NAMED_P256)) throw new Error("not named P-256");
  return rawPoint(createPublicKey({ key: Buffer.from(der, "hex"), format: "der", type: "spki" }));
}

/** The raw uncompressed point of a parsed public key (how the handshake receives one). */
function rawPoint(key: KeyObject): Uint8Array {
  const jwk = key.export({ format: "jwk" }) as { crv?: string; x: string; y: string };
  if (jwk.crv !== "P-256") throw new Error("not P-256");
  const x = Buffer.from(jwk.x, "base64url");
  const y = Buffer.from(jwk.y, "base64url");
  return new Uint8Array(Buffer.concat([Buffer.of(4), Buffer.alloc(32 - x.length), x, Buffer.alloc(32 - y.length), y]));
}
const scalar = (h: string): Uint8Array => {
  const b = Buffer.from(h, "hex");
  const s = b.subarray(Math.max(0, b.length - 32));
  return new Uint8Array(Buffer.concat([Buffer.alloc(32 - s.length), s]));
};

describe("P-256 ECDH (Wycheproof)", () => {
  it("agrees on every valid vector and refuses every invalid point (SPKI encoding)", () => {
    const tests = testsOf<{ tcId: number; public: string; private: string; shared: string; result: string }>(
      "wycheproof/ecdh_secp256r1_test.json",
    );
    const counts = { valid: 0, invalid: 0 };
    for (const t of tests) {
      const attempt = (): string => toHex(p256Shared(scalar(t.private), spkiPoint(t.public)));
      if (t.result === "valid") {
        expect(attempt(), `tc ${t.tcId}`).toBe(t.shared);
        counts.valid++;
      } else if (t.result === "invalid") {
        expect(attempt, `tc ${t.tcId}`).toThrow();
        counts.invalid++;
      } else {
        // "acceptable": either outcome, but a result must then be the right one
        let got: string | undefined;
        try {
          got = attempt();
        } catch {
          got = undefined;
        }
        if (got !== undefined) expect(got).toBe(t.shared);
      }
    }
    expect(counts.valid).toBeGreaterThan(200);
    expect(counts.invalid).toBe(52);
  });

  it("agrees on every valid vector and refuses invalid points (WebCrypto JWK encoding)", () => {
    const tests = testsOf<{ tcId: number; public: object; private: { d: string }; shared: string; result: string }>(
      "wycheproof/ecdh_secp256r1_webcrypto_test.json",
    );
    let invalid = 0;
    for (const t of tests) {
      const attempt = () => {
        const d = new Uint8Array(Buffer.from(t.private.d, "base64url"));
        createPrivateKey({ key: t.private as never, format: "jwk" });
        return toHex(p256Shared(d, rawPoint(createPublicKey({ key: t.public as never, format: "jwk" }))));
      };
      if (t.result === "valid") expect(attempt(), `tc ${t.tcId}`).toBe(t.shared);
      else if (t.result === "invalid") {
        expect(attempt, `tc ${t.tcId}`).toThrow();
        invalid++;
      }
    }
    expect(invalid).toBeGreaterThan(20);
  });

  it("refuses compressed, short, long and off-curve raw points", () => {
    const k = hybridKeys(new Uint8Array(32).fill(3));
    const pt = k.ecdhPublic;
    expect(() => p256Shared(k.ecdhSecret, pt.subarray(0, 33))).toThrow();
    expect(() => p256Shared(k.ecdhSecret, new Uint8Array([...pt, 0]))).toThrow();
    const off = pt.slice();
    off[64] = (off[64] as number) ^ 1;
    expect(() => p256Shared(k.ecdhSecret, off)).toThrow();
    expect(() => p256Shared(k.ecdhSecret, new Uint8Array(65))).toThrow();
  });
});

describe("HKDF-SHA-256 (Wycheproof)", () => {
  it("derives every valid output and refuses oversized ones", () => {
    const tests = testsOf<{
      tcId: number;
      ikm: string;
      salt: string;
      info: string;
      size: number;
      okm: string;
      result: string;
    }>("wycheproof/hkdf_sha256_test.json");
    let invalid = 0;
    for (const t of tests) {
      const run = () => toHex(new Uint8Array(hkdfSync("sha256", hex(t.ikm), hex(t.salt), hex(t.info), t.size)));
      if (t.result === "valid") expect(run(), `tc ${t.tcId}`).toBe(t.okm);
      else {
        expect(run, `tc ${t.tcId}`).toThrow();
        invalid++;
      }
    }
    expect(tests.length).toBe(86);
    expect(invalid).toBeGreaterThan(0);
  });
});

describe("AES-GCM (Wycheproof)", () => {
  it("seals and opens every vector with 96-bit IVs and 128-bit tags; refuses every invalid one", () => {
    const tests = testsOf<{
      tcId: number;
      key: string;
      iv: string;
      aad: string;
      msg: string;
      ct: string;
      tag: string;
      result: string;
    }>("wycheproof/aes_gcm_test.json");
    let checked = 0;
    let refused = 0;
    for (const t of tests) {
      const g = t.group as unknown as { ivSize: number; tagSize: number; keySize: number };
      if (g.ivSize !== 96 || g.tagSize !== 128) continue; // the handshake's only shape (envelope.ts)
      const alg = `aes-${g.keySize}-gcm` as "aes-256-gcm";
      const open = () => {
        const d = createDecipheriv(alg, hex(t.key), hex(t.iv), { authTagLength: 16 });
        d.setAAD(hex(t.aad));
        d.setAuthTag(hex(t.tag));
        return toHex(Buffer.concat([d.update(hex(t.ct)), d.final()]));
      };
      if (t.result === "valid") {
        expect(open(), `tc ${t.tcId}`).toBe(t.msg);
        const c = createCipheriv(alg, hex(t.key), hex(t.iv), { authTagLength: 16 });
        c.setAAD(hex(t.aad));
        expect(toHex(Buffer.concat([c.update(hex(t.msg)), c.final()]))).toBe(t.ct);
        expect(toHex(c.getAuthTag())).toBe(t.tag);
        checked++;
      } else {
        expect(open, `tc ${t.tcId}`).toThrow();
        refused++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(10);
  });
});

describe("MLKEM768-P256 hybrid (noble-post-quantum vectors)", () => {
  it("derives the keys, ciphertext and shared secret of every vector, both ways", () => {
    const tests = vectors("hybrid-kem/test-vectors-MLKEM768P256.json") as Array<{
      seed: string;
      randomness: string;
      pk: string;
      sk: string;
      ct: string;
      ss: string;
    }>;
    expect(tests.length).toBe(10);
    for (const t of tests) {
      const keys = hybridKeys(hex(t.seed));
      expect(toHex(keys.kemPublic) + toHex(keys.ecdhPublic)).toBe(t.pk);
      const enc = hybridEncapsulate(keys.kemPublic, keys.ecdhPublic, hex(t.randomness));
      expect(toHex(enc.kemCt) + toHex(enc.ecdhCt)).toBe(t.ct);
      expect(toHex(enc.sharedSecret)).toBe(t.ss);
      expect(toHex(hybridDecapsulate(keys, enc.kemCt, enc.ecdhCt))).toBe(t.ss);
    }
  });
});
