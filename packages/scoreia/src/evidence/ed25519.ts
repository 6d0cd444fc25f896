import { createPublicKey, type KeyObject, verify } from "node:crypto";

/**
 * Decoded keys by their 32 bytes (hex): a verifier checks many signatures by the same few keys,
 * and building the KeyObject costs about as much as a verification. Bounded: cleared when full.
 */
const decoded = new Map<string, KeyObject | null>();
const DECODED_MAX = 256;

/** A raw 32-byte Ed25519 public key as a Node KeyObject, or null if it is not a valid point encoding. */
export function ed25519PublicKey(raw: Uint8Array): KeyObject | null {
  if (raw.length !== 32) return null;
  const id = Buffer.from(raw).toString("hex");
  const known = decoded.get(id);
  if (known !== undefined) return known;
  let key: KeyObject | null;
  try {
    key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") },
      format: "jwk",
    });
  } catch {
    key = null;
  }
  if (decoded.size >= DECODED_MAX) decoded.clear();
  decoded.set(id, key);
  return key;
}

/**
 * Strict RFC 8032 verification through Node's crypto (OpenSSL): 64-byte signatures only, S must be
 * below the group order, non-canonical encodings refused (the Wycheproof vectors check all this).
 */
export function verifyEd25519(publicKey: KeyObject | Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  const key = publicKey instanceof Uint8Array ? ed25519PublicKey(publicKey) : publicKey;
  if (!key) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
