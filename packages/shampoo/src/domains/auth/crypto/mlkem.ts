import { createHash } from "node:crypto";

/**
 * ML-KEM-768 (FIPS 203), written from the standard over Node's SHA-3 and SHAKE: key generation
 * from a 64-byte seed (d ‖ z), encapsulation with a given 32-byte message, decapsulation with
 * implicit rejection, and the input checks of §7.2/§7.3 (lengths, the encapsulation key's
 * modulus check, the decapsulation key's hash check). Node 20 has no ML-KEM and the
 * @noble/post-quantum package is not a dependency of this repository, so this file stands in
 * for it; test/auth/kat.test.ts holds it to the Wycheproof vectors (keygen from seeds,
 * encapsulation incl. modulus overflow, decapsulation incl. invalid inputs).
 *
 * Not constant-time in the way a hardened implementation is (JavaScript numbers, table-free but
 * branchy rejection sampling on public data only); the comparison in decapsulation is.
 */

const N = 256;
const Q = 3329;
const K = 3;
const ETA1 = 2;
const ETA2 = 2;
const DU = 10;
const DV = 4;

export const MLKEM768 = {
  publicKeyBytes: 384 * K + 32, // 1184
  secretKeyBytes: 768 * K + 96, // 2400
  ciphertextBytes: 32 * (DU * K + DV), // 1088
  seedBytes: 64,
  sharedSecretBytes: 32,
} as const;

type Poly = Int32Array;

const sha3_256 = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash("sha3-256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const sha3_512 = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash("sha3-512");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const shake = (alg: "shake128" | "shake256", len: number, ...parts: Uint8Array[]): Uint8Array => {
  const h = createHash(alg, { outputLength: len });
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

const mod = (a: number): number => {
  const r = a % Q;
  return r < 0 ? r + Q : r;
};

function bitRev7(i: number): number {
  let r = 0;
  for (let b = 0; b < 7; b++) r |= ((i >> b) & 1) << (6 - b);
  return r;
}

function powMod(base: number, exp: number): number {
  let r = 1;
  let b = base % Q;
  let e = exp;
  while (e > 0) {
    if (e & 1) r = (r * b) % Q;
    b = (b * b) % Q;
    e >>= 1;
  }
  return r;
}

/** ζ^BitRev7(i) for the NTT, and ζ^(2·BitRev7(i)+1) for the base-case products (ζ = 17). */
const ZETAS = Array.from({ length: 128 }, (_, i) => powMod(17, bitRev7(i)));
const GAMMAS = Array.from({ length: 128 }, (_, i) => powMod(17, 2 * bitRev7(i) + 1));

function ntt(f: Poly): Poly {
  const a = Int32Array.from(f);
  let i = 1;
  for (let len = 128; len >= 2; len >>= 1) {
    for (let start = 0; start < N; start += 2 * len) {
      const zeta = ZETAS[i++] as number;
      for (let j = start; j < start + len; j++) {
        const t = (zeta * (a[j + len] as number)) % Q;
        a[j + len] = mod((a[j] as number) - t);
        a[j] = ((a[j] as number) + t) % Q;
      }
    }
  }
  return a;
}

function nttInverse(f: Poly): Poly {
  const a = Int32Array.from(f);
  let i = 127;
  for (let len = 2; len <= 128; len <<= 1) {
    for (let start = 0; start < N; start += 2 * len) {
      const zeta = ZETAS[i--] as number;
      for (let j = start; j < start + len; j++) {
        const t = a[j] as number;
        a[j] = (t + (a[j + len] as number)) % Q;
        a[j + len] = (zeta * mod((a[j + len] as number) - t)) % Q;
      }
    }
  }
  for (let j = 0; j < N; j++) a[j] = ((a[j] as number) * 3303) % Q;
  return a;
}

function multiplyNtts(f: Poly, g: Poly): Poly {
  const h = new Int32Array(N);
  for (let i = 0; i < 128; i++) {
    const a0 = f[2 * i] as number;
    const a1 = f[2 * i + 1] as number;
    const b0 = g[2 * i] as number;
    const b1 = g[2 * i + 1] as number;
    h[2 * i] = (((a0 * b0) % Q) + ((((a1 * b1) % Q) * (GAMMAS[i] as number)) % Q)) % Q;
    h[2 * i + 1] = (((a0 * b1) % Q) + ((a1 * b0) % Q)) % Q;
  }
  return h;
}

const add = (f: Poly, g: Poly): Poly => f.map((x, i) => (x + (g[i] as number)) % Q);
const sub = (f: Poly, g: Poly): Poly => f.map((x, i) => mod(x - (g[i] as number)));

/** SampleNTT (Algorithm 7): rejection sampling from SHAKE128(ρ ‖ j ‖ i). */
function sampleNtt(rho: Uint8Array, j: number, i: number): Poly {
  const seed = new Uint8Array(34);
  seed.set(rho);
  seed[32] = j;
  seed[33] = i;
  let len = 168 * 4;
  for (;;) {
    const b = shake("shake128", len, seed);
    const a = new Int32Array(N);
    let n = 0;
    for (let p = 0; p + 3 <= b.length && n < N; p += 3) {
      const c0 = b[p] as number;
      const c1 = b[p + 1] as number;
      const c2 = b[p + 2] as number;
      const d1 = c0 + 256 * (c1 & 15);
      const d2 = (c1 >> 4) + 16 * c2;
      if (d1 < Q) a[n++] = d1;
      if (d2 < Q && n < N) a[n++] = d2;
    }
    if (n === N) return a;
    len *= 2; // the XOF's output is a stream: a longer read starts with the same bytes
  }
}

/** SamplePolyCBD_η (Algorithm 8). */
function sampleCbd(b: Uint8Array, eta: number): Poly {
  const f = new Int32Array(N);
  const bit = (k: number): number => ((b[k >> 3] as number) >> (k & 7)) & 1;
  for (let i = 0; i < N; i++) {
    let x = 0;
    let y = 0;
    for (let j = 0; j < eta; j++) {
      x += bit(2 * i * eta + j);
      y += bit(2 * i * eta + eta + j);
    }
    f[i] = mod(x - y);
  }
  return f;
}

const prf = (eta: number, s: Uint8Array, n: number): Uint8Array => shake("shake256", 64 * eta, s, Uint8Array.of(n));

/** ByteEncode_d (Algorithm 5): 256 d-bit integers, little-endian bit order. */
function byteEncode(f: Poly, d: number): Uint8Array {
  const out = new Uint8Array(32 * d);
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < N; i++) {
    acc |= (f[i] as number) << bits;
    bits += d;
    while (bits >= 8) {
      out[o++] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  return out;
}

/** ByteDecode_d (Algorithm 6); for d = 12 the values are taken mod q. */
function byteDecode(b: Uint8Array, d: number): Poly {
  const f = new Int32Array(N);
  const m = (1 << d) - 1;
  let acc = 0;
  let bits = 0;
  let p = 0;
  for (let i = 0; i < N; i++) {
    while (bits < d) {
      acc |= (b[p++] as number) << bits;
      bits += 8;
    }
    const v = acc & m;
    acc >>>= d;
    bits -= d;
    f[i] = d === 12 ? v % Q : v;
  }
  return f;
}

const compress = (f: Poly, d: number): Poly => f.map((x) => Math.floor((x * 2 ** d + 1664) / Q) & ((1 << d) - 1));
const decompress = (f: Poly, d: number): Poly => f.map((y) => Math.floor((Q * y + 2 ** (d - 1)) / 2 ** d));

function matrix(rho: Uint8Array): Poly[][] {
  return Array.from({ length: K }, (_, i) => Array.from({ length: K }, (_, j) => sampleNtt(rho, j, i)));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** K-PKE.KeyGen (Algorithm 13). */
function pkeKeyGen(d: Uint8Array): { ek: Uint8Array; dk: Uint8Array } {
  const g = sha3_512(d, Uint8Array.of(K));
  const rho = g.subarray(0, 32);
  const sigma = g.subarray(32, 64);
  const a = matrix(rho);
  let n = 0;
  const s = Array.from({ length: K }, () => ntt(sampleCbd(prf(ETA1, sigma, n++), ETA1)));
  const e = Array.from({ length: K }, () => ntt(sampleCbd(prf(ETA1, sigma, n++), ETA1)));
  const t = a.map((row, i) => row.reduce((acc, aij, j) => add(acc, multiplyNtts(aij, s[j] as Poly)), e[i] as Poly));
  return { ek: concat(...t.map((p) => byteEncode(p, 12)), rho), dk: concat(...s.map((p) => byteEncode(p, 12))) };
}

/** K-PKE.Encrypt (Algorithm 14). */
function pkeEncrypt(ek: Uint8Array, m: Uint8Array, r: Uint8Array): Uint8Array {
  const t = Array.from({ length: K }, (_, i) => byteDecode(ek.subarray(384 * i, 384 * (i + 1)), 12));
  const a = matrix(ek.subarray(384 * K));
  let n = 0;
  const y = Array.from({ length: K }, () => ntt(sampleCbd(prf(ETA1, r, n++), ETA1)));
  const e1 = Array.from({ length: K }, () => sampleCbd(prf(ETA2, r, n++), ETA2));
  const e2 = sampleCbd(prf(ETA2, r, n), ETA2);
  const u = Array.from({ length: K }, (_, i) => {
    let acc: Poly = new Int32Array(N);
    for (let j = 0; j < K; j++) acc = add(acc, multiplyNtts((a[j] as Poly[])[i] as Poly, y[j] as Poly));
    return add(nttInverse(acc), e1[i] as Poly);
  });
  const mu = decompress(byteDecode(m, 1), 1);
  let tv: Poly = new Int32Array(N);
  for (let i = 0; i < K; i++) tv = add(tv, multiplyNtts(t[i] as Poly, y[i] as Poly));
  const v = add(add(nttInverse(tv), e2), mu);
  return concat(...u.map((p) => byteEncode(compress(p, DU), DU)), byteEncode(compress(v, DV), DV));
}

/** K-PKE.Decrypt (Algorithm 15). */
function pkeDecrypt(dk: Uint8Array, c: Uint8Array): Uint8Array {
  const u = Array.from({ length: K }, (_, i) =>
    decompress(byteDecode(c.subarray(32 * DU * i, 32 * DU * (i + 1)), DU), DU),
  );
  const v = decompress(byteDecode(c.subarray(32 * DU * K), DV), DV);
  const s = Array.from({ length: K }, (_, i) => byteDecode(dk.subarray(384 * i, 384 * (i + 1)), 12));
  let acc: Poly = new Int32Array(N);
  for (let i = 0; i < K; i++) acc = add(acc, multiplyNtts(s[i] as Poly, ntt(u[i] as Poly)));
  return byteEncode(compress(sub(v, nttInverse(acc)), 1), 1);
}

function equalCt(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= (a[i] as number) ^ (b[i] as number);
  return d === 0;
}

/** The encapsulation key's modulus check (§7.2): every coefficient of t̂ is below q. */
export function validPublicKey(ek: Uint8Array): boolean {
  if (ek.length !== MLKEM768.publicKeyBytes) return false;
  for (let i = 0; i < K; i++) {
    const chunk = ek.subarray(384 * i, 384 * (i + 1));
    if (!equalCt(byteEncode(byteDecode(chunk, 12), 12), chunk)) return false;
  }
  return true;
}

/** ML-KEM.KeyGen_internal (Algorithm 16) from the 64-byte seed d ‖ z. */
export function mlkemKeygen(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (seed.length !== MLKEM768.seedBytes) throw new Error("ML-KEM-768 seed must be 64 bytes");
  const d = seed.subarray(0, 32);
  const z = seed.subarray(32, 64);
  const { ek, dk } = pkeKeyGen(d);
  return { publicKey: ek, secretKey: concat(dk, ek, sha3_256(ek), z) };
}

/** ML-KEM.Encaps (Algorithms 17, 20) with the message `m` (32 random bytes in real use). */
export function mlkemEncapsulate(
  publicKey: Uint8Array,
  m: Uint8Array,
): { cipherText: Uint8Array; sharedSecret: Uint8Array } {
  if (m.length !== 32) throw new Error("ML-KEM-768 message must be 32 bytes");
  if (!validPublicKey(publicKey)) throw new Error("invalid ML-KEM-768 encapsulation key");
  const g = sha3_512(m, sha3_256(publicKey));
  return { sharedSecret: g.slice(0, 32), cipherText: pkeEncrypt(publicKey, m, g.subarray(32, 64)) };
}

/** ML-KEM.Decaps (Algorithms 18, 21): implicit rejection; malformed inputs throw. */
export function mlkemDecapsulate(cipherText: Uint8Array, secretKey: Uint8Array): Uint8Array {
  if (cipherText.length !== MLKEM768.ciphertextBytes) throw new Error("invalid ML-KEM-768 ciphertext length");
  if (secretKey.length !== MLKEM768.secretKeyBytes) throw new Error("invalid ML-KEM-768 decapsulation key length");
  const dkPke = secretKey.subarray(0, 384 * K);
  const ek = secretKey.subarray(384 * K, 768 * K + 32);
  const h = secretKey.subarray(768 * K + 32, 768 * K + 64);
  const z = secretKey.subarray(768 * K + 64);
  if (!equalCt(sha3_256(ek), h)) throw new Error("invalid ML-KEM-768 decapsulation key");
  const m = pkeDecrypt(dkPke, cipherText);
  const g = sha3_512(m, h);
  const kBar = shake("shake256", 32, z, cipherText);
  const same = equalCt(pkeEncrypt(ek, m, g.subarray(32, 64)), cipherText);
  return same ? g.slice(0, 32) : kBar;
}
