import { createECDH, createHash } from "node:crypto";
import { MLKEM768, mlkemDecapsulate, mlkemEncapsulate, mlkemKeygen } from "./mlkem.ts";

/**
 * The hybrid KEM of the handshake: ML-KEM-768 with P-256 ECDH, combined as MLKEM768-P256 of the
 * IETF concrete hybrid KEM drafts (the `hybrid-kem` known answers in testdata/ hold this file to
 * it): a 32-byte seed expands by SHAKE256 into the ML-KEM seed (64 bytes) and 128 bytes from
 * which the P-256 scalar is drawn by rejection sampling; the shared secret is
 * SHA3-256(ss_ML-KEM ‖ ss_P-256 ‖ ct_P-256 ‖ pk_P-256 ‖ "MLKEM768-P256").
 *
 * The server's ephemeral key pair of one challenge is this KEM's key pair; the client's
 * "ECDH public key" is the P-256 half of the KEM ciphertext. The handshake then binds the whole
 * transcript (both ML-KEM values included) on top of this secret (envelope.ts).
 */

export const P256_POINT_BYTES = 65; // uncompressed SEC1: 0x04 ‖ x ‖ y
export const HYBRID_SEED_BYTES = 32;
const P256_ORDER = BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
const LABEL = new TextEncoder().encode("MLKEM768-P256");

const shake256 = (len: number, data: Uint8Array): Uint8Array =>
  new Uint8Array(createHash("shake256", { outputLength: len }).update(data).digest());

/** A P-256 scalar from 128 bytes: the first 32-byte big-endian chunk in 1..n-1. */
function p256Scalar(seed: Uint8Array): Uint8Array {
  for (let o = 0; o + 32 <= seed.length; o += 32) {
    const chunk = seed.subarray(o, o + 32);
    const v = BigInt(`0x${Buffer.from(chunk).toString("hex")}`);
    if (v !== 0n && v < P256_ORDER) return chunk.slice();
  }
  throw new Error("P-256 rejection sampling failed");
}

/** The uncompressed public point of a P-256 scalar. */
export function p256PublicKey(secret: Uint8Array): Uint8Array {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(secret);
  return new Uint8Array(ecdh.getPublicKey(null, "uncompressed"));
}

/**
 * P-256 ECDH: the x coordinate of secret·point. Only an uncompressed point of exactly 65 bytes
 * on the curve is taken (OpenSSL's point check refuses off-curve and infinity); anything else throws.
 */
export function p256Shared(secret: Uint8Array, point: Uint8Array): Uint8Array {
  if (point.length !== P256_POINT_BYTES || point[0] !== 0x04)
    throw new Error("P-256 point must be 65 bytes, uncompressed");
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(secret);
  return new Uint8Array(ecdh.computeSecret(point));
}

export interface HybridKeys {
  /** ML-KEM-768 encapsulation key (1184 bytes). */
  kemPublic: Uint8Array;
  kemSecret: Uint8Array;
  /** P-256 public point (65 bytes). */
  ecdhPublic: Uint8Array;
  ecdhSecret: Uint8Array;
}

/** The key pair a 32-byte seed stands for (the seed is all a challenge keeps). */
export function hybridKeys(seed: Uint8Array): HybridKeys {
  if (seed.length !== HYBRID_SEED_BYTES) throw new Error("hybrid seed must be 32 bytes");
  const expanded = shake256(64 + 128, seed);
  const kem = mlkemKeygen(expanded.subarray(0, 64));
  const ecdhSecret = p256Scalar(expanded.subarray(64));
  return { kemPublic: kem.publicKey, kemSecret: kem.secretKey, ecdhPublic: p256PublicKey(ecdhSecret), ecdhSecret };
}

function combine(kemShared: Uint8Array, ecdhShared: Uint8Array, ecdhCt: Uint8Array, ecdhPk: Uint8Array): Uint8Array {
  return new Uint8Array(
    createHash("sha3-256").update(kemShared).update(ecdhShared).update(ecdhCt).update(ecdhPk).update(LABEL).digest(),
  );
}

export interface Encapsulated {
  /** ML-KEM-768 ciphertext (1088 bytes). */
  kemCt: Uint8Array;
  /** The client's ephemeral P-256 point (65 bytes). */
  ecdhCt: Uint8Array;
  sharedSecret: Uint8Array;
}

/**
 * Encapsulates to a server's two public keys with `randomness` (32 bytes for ML-KEM, then 128
 * from which the ephemeral P-256 scalar is drawn; 160 random bytes in real use).
 */
export function hybridEncapsulate(kemPublic: Uint8Array, ecdhPublic: Uint8Array, randomness: Uint8Array): Encapsulated {
  if (randomness.length !== 32 + 128) throw new Error("hybrid randomness must be 160 bytes");
  const kem = mlkemEncapsulate(kemPublic, randomness.subarray(0, 32));
  const eph = p256Scalar(randomness.subarray(32));
  const ecdhCt = p256PublicKey(eph);
  const ecdhShared = p256Shared(eph, ecdhPublic);
  return { kemCt: kem.cipherText, ecdhCt, sharedSecret: combine(kem.sharedSecret, ecdhShared, ecdhCt, ecdhPublic) };
}

/** Decapsulates with the keys of `seed`; malformed lengths or a bad point throw. */
export function hybridDecapsulate(keys: HybridKeys, kemCt: Uint8Array, ecdhCt: Uint8Array): Uint8Array {
  if (kemCt.length !== MLKEM768.ciphertextBytes) throw new Error("bad ML-KEM ciphertext length");
  const kemShared = mlkemDecapsulate(kemCt, keys.kemSecret);
  const ecdhShared = p256Shared(keys.ecdhSecret, ecdhCt);
  return combine(kemShared, ecdhShared, ecdhCt, keys.ecdhPublic);
}
