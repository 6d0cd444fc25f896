import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The signer is a boundary: private keys live behind this one small interface so that a
 * separate signer process can hold them; the web process needs only public keys.
 */
export interface Signature {
  alg: "Ed25519";
  key_id: string;
  /** base64url, no padding */
  sig: string;
}

export interface Signer {
  /** Signs the exact bytes given. Throws SignerUnavailableError when the signer cannot be reached. */
  sign(payload: Uint8Array): Promise<Signature>;
}

export class SignerUnavailableError extends Error {
  constructor(message = "no signer is reachable") {
    super(message);
    this.name = "SignerUnavailableError";
  }
}

/** An Ed25519 key held in this process (Node's crypto). Key id: `ed25519-` + first 16 hex of the raw public key. */
export class LocalEd25519Signer implements Signer {
  readonly keyId: string;
  readonly publicKey: KeyObject;

  constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    const raw = this.publicKey.export({ format: "jwk" }).x as string;
    this.keyId = `ed25519-${Buffer.from(raw, "base64url").toString("hex").slice(0, 16)}`;
  }

  static generate(): LocalEd25519Signer {
    return new LocalEd25519Signer(generateKeyPairSync("ed25519").privateKey);
  }

  /** Loads a PKCS#8 PEM key, creating it (mode 0600) on first use. */
  static fromFile(path: string): LocalEd25519Signer {
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      const { privateKey } = generateKeyPairSync("ed25519");
      try {
        // "wx": two processes starting together on a fresh data dir must not both write a key.
        writeFileSync(path, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600, flag: "wx" });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    }
    return new LocalEd25519Signer(createPrivateKey(readFileSync(path)));
  }

  async sign(payload: Uint8Array): Promise<Signature> {
    return { alg: "Ed25519", key_id: this.keyId, sig: sign(null, payload, this.privateKey).toString("base64url") };
  }
}

/** A signer that can be switched off: used to model an unreachable signer process. */
export class SwitchableSigner implements Signer {
  available = true;
  constructor(private readonly inner: Signer) {}
  async sign(payload: Uint8Array): Promise<Signature> {
    if (!this.available) throw new SignerUnavailableError();
    return this.inner.sign(payload);
  }
}
