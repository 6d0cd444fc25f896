import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Clock, iso, systemClock } from "kernel/clock.ts";
import { canonicalJson } from "./jcs.ts";

/**
 * The signer is a boundary: private keys live behind this one small interface so that a
 * separate signer process can hold them (`scoreia signer`); the web process needs only public
 * keys. A signer signs card statements only — never arbitrary bytes — so a compromised web
 * process cannot make it sign anything else.
 */

export const SIGNATURE_TYPE = "scoreia.card.signature/0.2";

/** A detached signature over a card (docs/evidence-0.2.md §Signature). */
export interface CardSignature {
  type: typeof SIGNATURE_TYPE;
  alg: "Ed25519";
  key_id: string;
  signed_at: string;
  /** base64url (no padding) of the 64-byte Ed25519 signature over statementBytes(). */
  sig: string;
}

/** A public key with its validity window (signing times it covers: not_before ≤ t < not_after). */
export interface PublicKeyRecord {
  key_id: string;
  alg: "Ed25519";
  /** base64url (no padding) of the raw 32-byte public key */
  public_key: string;
  not_before: string;
  /** null while the key is current */
  not_after: string | null;
}

/** The exact bytes an Ed25519 card signature covers: UTF-8 of JCS({type, card, key_id, signed_at}). */
export function statementBytes(cardHash: string, keyId: string, signedAt: string): Buffer {
  return Buffer.from(
    canonicalJson({ type: SIGNATURE_TYPE, card: cardHash, key_id: keyId, signed_at: signedAt }),
    "utf8",
  );
}

export const TREE_HEAD_TYPE = "scoreia.log.tree_head/0.2";

/** A signed tree head of the card transparency log (docs/evidence-0.2.md §15.3). */
export interface TreeHead {
  type: typeof TREE_HEAD_TYPE;
  tree_size: number;
  /** `sha256:` + hex of the RFC 6962 root of the first tree_size leaves. */
  root_hash: string;
  /** The signer's clock when it signed. */
  timestamp: string;
  key_id: string;
  /** base64url of the Ed25519 signature over treeHeadBytes(). */
  sig: string;
}

/** The bytes a tree head signature covers: UTF-8 of JCS of the head without `sig`. */
export function treeHeadBytes(h: Omit<TreeHead, "sig">): Buffer {
  return Buffer.from(
    canonicalJson({
      type: TREE_HEAD_TYPE,
      tree_size: h.tree_size,
      root_hash: h.root_hash,
      timestamp: h.timestamp,
      key_id: h.key_id,
    }),
    "utf8",
  );
}

export interface Signer {
  /** Signs the card whose canonical hash is `cardHash`. Throws SignerUnavailableError when unreachable. */
  signCard(cardHash: string): Promise<CardSignature>;
  /** Signs a tree head of the card log (size and root given; time and key the signer's). */
  signTreeHead(treeSize: number, rootHash: string): Promise<TreeHead>;
  /** Every public key this signer has ever used, with windows. */
  publicKeys(): Promise<PublicKeyRecord[]>;
}

export class SignerUnavailableError extends Error {
  constructor(message = "no signer is reachable") {
    super(message);
    this.name = "SignerUnavailableError";
  }
}

/** Key id: `ed25519-` + the first 16 hex digits of the raw public key. */
export function keyIdOf(publicKey: KeyObject): string {
  return `ed25519-${rawPublicKey(publicKey).toString("hex").slice(0, 16)}`;
}

export function rawPublicKey(publicKey: KeyObject): Buffer {
  return Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
}

interface KeyEntry {
  record: PublicKeyRecord;
  /** Null once the key is retired: rotation destroys the private key (issue 16 §2). */
  privateKey: KeyObject | null;
}

/**
 * Ed25519 keys held in this process (Node's crypto), with rotation. Rotating closes the current
 * key's window and opens a new key; old windows never change, so older cards keep verifying.
 * On disk (`dir`): one PKCS#8 PEM per key (mode 0600) and keyring.json with the public records.
 */
export class LocalKeyring implements Signer {
  private entries: KeyEntry[];

  private constructor(
    entries: KeyEntry[],
    private readonly clock: Clock,
    private readonly dir: string | null,
  ) {
    this.entries = entries;
  }

  /** An in-memory keyring with one fresh key (tests, benchmarks). */
  static ephemeral(clock: Clock = systemClock, notBefore = "2000-01-01T00:00:00.000Z"): LocalKeyring {
    const k = new LocalKeyring([], clock, null);
    k.add(generateKeyPairSync("ed25519").privateKey, notBefore);
    return k;
  }

  /** Opens the keyring in `dir`, creating its first key on first use. */
  static open(dir: string, clock: Clock = systemClock): LocalKeyring {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const index = join(dir, "keyring.json");
    if (!existsSync(index)) {
      const k = new LocalKeyring([], clock, dir);
      k.add(generateKeyPairSync("ed25519").privateKey, iso(clock.now()));
      k.save();
      return k;
    }
    const records = JSON.parse(readFileSync(index, "utf8")) as PublicKeyRecord[];
    const entries = records.map((record) => ({
      record,
      privateKey: record.not_after === null ? createPrivateKey(readFileSync(join(dir, `${record.key_id}.pem`))) : null,
    }));
    const keyring = new LocalKeyring(entries, clock, dir);
    // A rotation that stopped after writing keyring.json but before destroying the old key.
    keyring.destroyRetired();
    return keyring;
  }

  private add(privateKey: KeyObject, notBefore: string): PublicKeyRecord {
    const publicKey = createPublicKey(privateKey);
    const record: PublicKeyRecord = {
      key_id: keyIdOf(publicKey),
      alg: "Ed25519",
      public_key: rawPublicKey(publicKey).toString("base64url"),
      not_before: notBefore,
      not_after: null,
    };
    if (this.dir) {
      writeFileSync(join(this.dir, `${record.key_id}.pem`), privateKey.export({ format: "pem", type: "pkcs8" }), {
        mode: 0o600,
        flag: "wx",
      });
    }
    this.entries.push({ record, privateKey });
    return record;
  }

  private save(): void {
    if (!this.dir) return;
    const index = join(this.dir, "keyring.json");
    writeFileSync(
      `${index}.tmp`,
      `${JSON.stringify(
        this.entries.map((e) => e.record),
        null,
        2,
      )}\n`,
    );
    renameSync(`${index}.tmp`, index);
  }

  /** Closes the current key's window now and opens a new key from now on. */
  rotate(): PublicKeyRecord {
    const now = iso(this.clock.now());
    const current = this.current();
    current.record.not_after = now;
    const record = this.add(generateKeyPairSync("ed25519").privateKey, now);
    this.save();
    this.destroyRetired();
    return record;
  }

  /**
   * A retired key signs nothing ever again, so it is destroyed: a leaked copy of the keyring
   * after rotation holds no key that could sign a backdated card (issue 16 §2). The public record
   * stays in keyring.json, so older cards keep verifying.
   */
  private destroyRetired(): void {
    for (const e of this.entries) {
      if (e.record.not_after === null) continue;
      e.privateKey = null;
      if (this.dir) rmSync(join(this.dir, `${e.record.key_id}.pem`), { force: true });
    }
  }

  private current(): KeyEntry & { privateKey: KeyObject } {
    const e = this.entries.find((x) => x.record.not_after === null);
    if (!e?.privateKey) throw new SignerUnavailableError("the keyring has no current key");
    return e as KeyEntry & { privateKey: KeyObject };
  }

  get currentKeyId(): string {
    return this.current().record.key_id;
  }

  async signCard(cardHash: string): Promise<CardSignature> {
    const { record, privateKey } = this.current();
    const signedAt = iso(this.clock.now());
    const sig = sign(null, statementBytes(cardHash, record.key_id, signedAt), privateKey).toString("base64url");
    return { type: SIGNATURE_TYPE, alg: "Ed25519", key_id: record.key_id, signed_at: signedAt, sig };
  }

  async signTreeHead(treeSize: number, rootHash: string): Promise<TreeHead> {
    const { record, privateKey } = this.current();
    const head = {
      type: TREE_HEAD_TYPE,
      tree_size: treeSize,
      root_hash: rootHash,
      timestamp: iso(this.clock.now()),
      key_id: record.key_id,
    } as const;
    return { ...head, sig: sign(null, treeHeadBytes(head), privateKey).toString("base64url") };
  }

  async publicKeys(): Promise<PublicKeyRecord[]> {
    return this.entries.map((e) => ({ ...e.record }));
  }
}

/** A signer that can be switched off: models an unreachable signer process in tests. */
export class SwitchableSigner implements Signer {
  available = true;
  constructor(private readonly inner: Signer) {}
  async signCard(cardHash: string): Promise<CardSignature> {
    if (!this.available) throw new SignerUnavailableError();
    return this.inner.signCard(cardHash);
  }
  async signTreeHead(treeSize: number, rootHash: string): Promise<TreeHead> {
    if (!this.available) throw new SignerUnavailableError();
    return this.inner.signTreeHead(treeSize, rootHash);
  }
  publicKeys(): Promise<PublicKeyRecord[]> {
    return this.inner.publicKeys();
  }
}
