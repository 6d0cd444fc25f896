import { createPublicKey, type KeyObject, verify } from "node:crypto";

/** A raw 32-byte Ed25519 public key as a Node KeyObject, or null if it is not a valid point encoding. */
export function ed25519PublicKey(raw: Uint8Array): KeyObject | null {
  if (raw.length !== 32) return null;
  try {
    return createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") },
      format: "jwk",
    });
  } catch {
    return null;
  }
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
