import { ml_kem768 } from "@noble/post-quantum/ml-kem.js";

/**
 * ML-KEM-768 (FIPS 203) through @noble/post-quantum: key generation from a 64-byte seed (d ‖ z),
 * encapsulation with a given 32-byte message, decapsulation with implicit rejection. The input
 * checks of §7.2/§7.3 (lengths, the encapsulation key's modulus check, the decapsulation key's
 * hash check) are the library's; a refused input throws. test/auth/kat.test.ts holds these three
 * functions to the Wycheproof vectors (keygen from seeds, encapsulation incl. modulus overflow,
 * decapsulation incl. invalid inputs) and the MLKEM768-P256 hybrid vectors.
 */
export const MLKEM768 = {
  publicKeyBytes: 1184,
  secretKeyBytes: 2400,
  ciphertextBytes: 1088,
  seedBytes: 64,
  sharedSecretBytes: 32,
} as const;

/** ML-KEM.KeyGen_internal from the 64-byte seed d ‖ z. */
export function mlkemKeygen(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (seed.length !== MLKEM768.seedBytes) throw new Error("ML-KEM-768 seed must be 64 bytes");
  return ml_kem768.keygen(seed);
}

/** ML-KEM.Encaps with the message `m` (32 random bytes in real use); an invalid key throws. */
export function mlkemEncapsulate(
  publicKey: Uint8Array,
  m: Uint8Array,
): { cipherText: Uint8Array; sharedSecret: Uint8Array } {
  if (m.length !== 32) throw new Error("ML-KEM-768 message must be 32 bytes");
  if (publicKey.length !== MLKEM768.publicKeyBytes) throw new Error("invalid ML-KEM-768 encapsulation key");
  return ml_kem768.encapsulate(publicKey, m);
}

/** ML-KEM.Decaps: implicit rejection for a wrong ciphertext; malformed inputs throw. */
export function mlkemDecapsulate(cipherText: Uint8Array, secretKey: Uint8Array): Uint8Array {
  if (cipherText.length !== MLKEM768.ciphertextBytes) throw new Error("invalid ML-KEM-768 ciphertext length");
  if (secretKey.length !== MLKEM768.secretKeyBytes) throw new Error("invalid ML-KEM-768 decapsulation key length");
  return ml_kem768.decapsulate(cipherText, secretKey);
}
