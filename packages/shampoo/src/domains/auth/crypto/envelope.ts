import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

/**
 * What turns the hybrid secret into keys, and the AES-256-GCM envelopes both directions use.
 *
 * The transcript: every value of the handshake, each length-prefixed (4 bytes, big-endian), in a
 * fixed order — protocol label, suite, challenge id, ref kind, ref id, requested profile, the
 * server's P-256 point and ML-KEM-768 encapsulation key, the client's P-256 point and the ML-KEM
 * ciphertext. Its SHA-256 is the HKDF salt and the envelopes' associated data, so a key that
 * decrypts anything was derived for exactly this exchange: both public keys and the KEM
 * ciphertext are bound in, the lesson of the published analysis of Signal's PQXDH (a KEM
 * secret not bound to its public key and ciphertext lets a changed key go unnoticed).
 */

export const SUITE = "MLKEM768-P256/HKDF-SHA256/AES-256-GCM";
export const PROTOCOL = "shampoo-handshake/1";
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

export interface Transcript {
  challengeId: string;
  refKind: string;
  refId: string;
  profile: string;
  serverEcdh: Uint8Array;
  serverKem: Uint8Array;
  clientEcdh: Uint8Array;
  kemCt: Uint8Array;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export function transcriptHash(t: Transcript): Uint8Array {
  const h = createHash("sha256");
  for (const part of [
    utf8(PROTOCOL),
    utf8(SUITE),
    utf8(t.challengeId),
    utf8(t.refKind),
    utf8(t.refId),
    utf8(t.profile),
    t.serverEcdh,
    t.serverKem,
    t.clientEcdh,
    t.kemCt,
  ]) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(part.length);
    h.update(len).update(part);
  }
  return new Uint8Array(h.digest());
}

export interface SessionKeys {
  /** Client → server: the credential envelope. */
  envelope: Uint8Array;
  /** Server → client: the sealed session response. */
  response: Uint8Array;
  /** SHA-256 of the transcript, the envelopes' associated data. */
  th: Uint8Array;
}

export function hkdf(ikm: Uint8Array, salt: Uint8Array, info: string, length: number): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", ikm, salt, utf8(info), length));
}

export function deriveKeys(sharedSecret: Uint8Array, t: Transcript): SessionKeys {
  const th = transcriptHash(t);
  return {
    envelope: hkdf(sharedSecret, th, `${PROTOCOL} envelope c2s`, 32),
    response: hkdf(sharedSecret, th, `${PROTOCOL} response s2c`, 32),
    th,
  };
}

export interface Sealed {
  iv: Uint8Array;
  ct: Uint8Array;
  tag: Uint8Array;
}

export function seal(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array, iv = randomBytes(IV_BYTES)): Sealed {
  const c = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  c.setAAD(aad);
  const ct = Buffer.concat([c.update(plaintext), c.final()]);
  return { iv: new Uint8Array(iv), ct: new Uint8Array(ct), tag: new Uint8Array(c.getAuthTag()) };
}

/** Opens an envelope; a wrong IV or tag length, or any tampering, throws. */
export function open(key: Uint8Array, s: Sealed, aad: Uint8Array): Uint8Array {
  if (s.iv.length !== IV_BYTES || s.tag.length !== TAG_BYTES) throw new Error("bad envelope lengths");
  const d = createDecipheriv("aes-256-gcm", key, s.iv, { authTagLength: TAG_BYTES });
  d.setAAD(aad);
  d.setAuthTag(s.tag);
  return new Uint8Array(Buffer.concat([d.update(s.ct), d.final()]));
}

/** base64url without padding, the wire form of every binary field. */
export const b64u = (b: Uint8Array): string => Buffer.from(b).toString("base64url");

/** Strict base64url decoding: anything that does not round-trip is refused (null). */
export function fromB64u(s: unknown): Uint8Array | null {
  if (typeof s !== "string" || !/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const b = Buffer.from(s, "base64url");
  return b.toString("base64url") === s ? new Uint8Array(b) : null;
}
