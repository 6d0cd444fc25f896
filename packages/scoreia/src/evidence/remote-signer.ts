import { existsSync, linkSync, lstatSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Clock, systemClock } from "kernel/clock.ts";
import { verifyEd25519 } from "./ed25519.ts";
import {
  type CardSignature,
  LocalKeyring,
  type PublicKeyRecord,
  SIGNATURE_TYPE,
  type Signer,
  SignerUnavailableError,
  statementBytes,
  TREE_HEAD_TYPE,
  type TreeHead,
  treeHeadBytes,
} from "./signer.ts";
import { strictBase64url } from "./verify.ts";

/**
 * The signer as a separate process (`scoreia signer`): it alone holds the private keys and answers
 * on a Unix socket (mode 0600), one JSON object per line each way:
 *
 *   → {"id":1,"op":"sign","card_hash":"sha256:<64 hex>"}   ← {"id":1,"ok":true,"signature":{…}}
 *   → {"id":2,"op":"keys"}                                 ← {"id":2,"ok":true,"keys":[…]}
 *   → {"id":3,"op":"sign_tree_head","tree_size":n,"root_hash":"sha256:…"} ← {"id":3,"ok":true,"tree_head":{…}}
 *   → anything else                                        ← {"id":…,"ok":false,"code":"…","error":"…"}
 *
 * It signs card statements only: the one input is a strictly formed card hash, and the bytes
 * signed are always statementBytes(card_hash, key_id, signed_at). The web process talks to it
 * through RemoteSigner and never sees a private key.
 */

export const CARD_HASH = /^sha256:[0-9a-f]{64}$/;
/** A request line longer than this is refused and the connection closed. */
export const MAX_LINE_BYTES = 16 * 1024;
const IDLE_MS = 30_000;

// ------------------------------------------------------------------ keyring on disk, shared safely

const LOCK = "rotate.lock";

/**
 * A LocalKeyring directory that several processes share: `scoreia signer` (or `scoreia serve`
 * with its in-process key) signs from it while `scoreia keys rotate` rotates it.
 *
 * The signer re-reads keyring.json when it changed, so it never keeps signing with a key whose
 * window a rotation closed. Rotation holds `rotate.lock` from before it stamps the old key's
 * not_after until the new keyring.json is in place; a signature is kept only if no rotation
 * started or finished while it was being made (otherwise the card is signed again with the new
 * key). Hence every signature falls inside its key's window as finally written.
 */
export class KeyringDir implements Signer {
  private keyring: LocalKeyring;
  private stamp: string;

  private constructor(
    readonly dir: string,
    private readonly clock: Clock,
    private readonly lockWaitMs: number,
  ) {
    // Creates the first key if there is none. Then the stamp is taken before the keyring is read,
    // so a keyring.json written in between (another process's first key, a rotation) is seen as a
    // change on the next refresh rather than missed.
    LocalKeyring.open(dir, clock);
    this.stamp = this.currentStamp();
    this.keyring = LocalKeyring.open(dir, clock);
  }

  /** Opens (creating on first use, with one key) the keyring in `dir`. */
  static open(dir: string, opts: { clock?: Clock; lockWaitMs?: number } = {}): KeyringDir {
    return new KeyringDir(resolve(dir), opts.clock ?? systemClock, opts.lockWaitMs ?? 1500);
  }

  /** The public records in `dir`, or null when there is no keyring there. Never creates one. */
  static readPublic(dir: string): PublicKeyRecord[] | null {
    const index = join(dir, "keyring.json");
    if (!existsSync(index)) return null;
    return JSON.parse(readFileSync(index, "utf8")) as PublicKeyRecord[];
  }

  get currentKeyId(): string {
    this.refresh();
    return this.keyring.currentKeyId;
  }

  private currentStamp(): string {
    const s = statSync(join(this.dir, "keyring.json"));
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  }

  private refresh(): void {
    const now = this.currentStamp();
    if (now !== this.stamp) {
      this.keyring = LocalKeyring.open(this.dir, this.clock);
      this.stamp = now;
    }
  }

  /** The pid holding the rotation lock (-1: unknown), or null. A lock whose process is gone is removed. */
  private lockHolder(): number | null {
    const lock = join(this.dir, LOCK);
    let pid: number;
    try {
      pid = Number(readFileSync(lock, "utf8").trim());
    } catch {
      return null;
    }
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) return pid;
    // The lock is linked into place complete (see rotate), so an unreadable pid means a foreign
    // or damaged file: stale only once it is old. A dead pid is a rotation that died mid-way.
    if (!(Number.isInteger(pid) && pid > 0)) {
      try {
        if (Date.now() - statSync(lock).mtimeMs < 10_000) return -1;
      } catch {
        return null;
      }
    }
    try {
      unlinkSync(lock);
    } catch {
      // someone else removed it
    }
    return null;
  }

  private async unlocked(): Promise<void> {
    const until = Date.now() + this.lockWaitMs;
    while (this.lockHolder() !== null) {
      if (Date.now() >= until) throw new SignerUnavailableError("the keyring is being rotated; try again");
      await sleep(10);
    }
  }

  async signCard(cardHash: string): Promise<CardSignature> {
    return this.steady(() => this.keyring.signCard(cardHash));
  }

  async signTreeHead(treeSize: number, rootHash: string): Promise<TreeHead> {
    return this.steady(() => this.keyring.signTreeHead(treeSize, rootHash));
  }

  /** A signature is kept only if no rotation started or finished while it was made. */
  private async steady<T>(make: () => Promise<T>): Promise<T> {
    for (let attempt = 0; attempt < 5; attempt++) {
      await this.unlocked();
      this.refresh();
      const signature = await make();
      if (this.lockHolder() === null && this.currentStamp() === this.stamp) return signature;
    }
    throw new SignerUnavailableError("the keyring kept changing while signing; try again");
  }

  async publicKeys(): Promise<PublicKeyRecord[]> {
    await this.unlocked();
    this.refresh();
    return this.keyring.publicKeys();
  }

  /** Closes the current key's window now and opens a new key, under the rotation lock. */
  async rotate(): Promise<{ closed: PublicKeyRecord; opened: PublicKeyRecord }> {
    const lock = join(this.dir, LOCK);
    // The lock appears atomically with its pid already in it: written aside, then hard-linked into
    // place (link fails if a lock exists), so a reader never sees a half-written lock.
    const mine = `${lock}.${process.pid}`;
    writeFileSync(mine, `${process.pid}\n`, { mode: 0o600 });
    const until = Date.now() + 10_000;
    try {
      for (;;) {
        try {
          linkSync(mine, lock);
          break;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
          if (this.lockHolder() !== null && Date.now() >= until) {
            throw new Error(`another rotation holds ${lock}`);
          }
          await sleep(20);
        }
      }
    } finally {
      unlinkSync(mine);
    }
    try {
      const keyring = LocalKeyring.open(this.dir, this.clock);
      const closedId = keyring.currentKeyId;
      const opened = keyring.rotate();
      const closed = (await keyring.publicKeys()).find((k) => k.key_id === closedId) as PublicKeyRecord;
      this.keyring = keyring;
      this.stamp = this.currentStamp();
      return { closed, opened };
    } finally {
      try {
        unlinkSync(lock);
      } catch {
        // already gone
      }
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

// ------------------------------------------------------------------ the signer process side

export interface SignerServer {
  path: string;
  close(): Promise<void>;
}

export interface SignerServerOptions {
  /** One line per signature and per refused request (stderr in `scoreia signer`). */
  log?: (line: string) => void;
}

type Reply = Record<string, unknown> & { ok: boolean };

/** Answers one request line. Exported for tests; the socket server calls it per line. */
export async function answer(signer: Signer, line: string, log?: (l: string) => void): Promise<Reply> {
  let id: number | null = null;
  const refuse = (code: string, error: string): Reply => {
    log?.(`refused: ${code}: ${error}`);
    return { id, ok: false, code, error };
  };
  let req: unknown;
  try {
    req = JSON.parse(line);
  } catch {
    req = null;
  }
  if (typeof req !== "object" || req === null || Array.isArray(req)) {
    return refuse("bad_request", "a request is one JSON object per line");
  }
  const r = req as Record<string, unknown>;
  id = typeof r.id === "number" && Number.isSafeInteger(r.id) ? r.id : null;
  if (r.id !== undefined && id === null) return refuse("bad_request", "id must be an integer");
  const fields =
    r.op === "sign"
      ? ["id", "op", "card_hash"]
      : r.op === "sign_tree_head"
        ? ["id", "op", "tree_size", "root_hash"]
        : ["id", "op"];
  const extra = Object.keys(r).filter((k) => !fields.includes(k));
  if (r.op !== "sign" && r.op !== "keys" && r.op !== "sign_tree_head") {
    return refuse(
      "unknown_op",
      `op must be "sign", "sign_tree_head" or "keys"; got ${JSON.stringify(r.op ?? null).slice(0, 40)}`,
    );
  }
  if (extra.length > 0) return refuse("bad_request", `unexpected field ${JSON.stringify(extra[0]).slice(0, 40)}`);
  try {
    if (r.op === "keys") return { id, ok: true, keys: await signer.publicKeys() };
    if (r.op === "sign_tree_head") {
      if (!Number.isSafeInteger(r.tree_size) || (r.tree_size as number) < 1) {
        return refuse("bad_tree_head", "tree_size must be a positive integer");
      }
      if (typeof r.root_hash !== "string" || !CARD_HASH.test(r.root_hash)) {
        return refuse("bad_tree_head", "root_hash must be sha256: followed by 64 lowercase hex digits");
      }
      const head = await signer.signTreeHead(r.tree_size as number, r.root_hash);
      log?.(`signed tree head ${head.tree_size} ${head.root_hash} with ${head.key_id}`);
      return { id, ok: true, tree_head: head };
    }
    if (typeof r.card_hash !== "string" || !CARD_HASH.test(r.card_hash)) {
      return refuse("bad_card_hash", "card_hash must be sha256: followed by 64 lowercase hex digits");
    }
    const signature = await signer.signCard(r.card_hash);
    log?.(`signed ${r.card_hash} with ${signature.key_id} at ${signature.signed_at}`);
    return { id, ok: true, signature };
  } catch (e) {
    const unavailable = e instanceof SignerUnavailableError;
    return refuse(unavailable ? "signer_busy" : "signer_error", (e as Error).message);
  }
}

/**
 * Listens on `path` (mode 0600). A stale socket left by a killed signer is replaced; a live one
 * (another signer answering) is an error, and so is any path that is not a socket.
 */
export async function serveSigner(signer: Signer, path: string, opts: SignerServerOptions = {}): Promise<SignerServer> {
  const socketPath = resolve(path);
  await clearStaleSocket(socketPath);
  const server = createServer((socket) => handleConnection(signer, socket, opts.log));
  const previous = process.umask(0o177);
  try {
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen(socketPath, () => {
        server.off("error", fail);
        ok();
      });
    });
  } finally {
    process.umask(previous);
  }
  return {
    path: socketPath,
    close: () => closeServer(server),
  };
}

async function clearStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return; // nothing there
  }
  if (!isSocket) throw new Error(`${path} exists and is not a socket; refusing to replace it`);
  const live = await new Promise<boolean>((ok) => {
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      ok(true);
    });
    s.once("error", () => ok(false));
  });
  if (live) throw new Error(`another signer is already answering on ${path}`);
  unlinkSync(path);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((ok) => server.close(() => ok()));
}

function handleConnection(signer: Signer, socket: Socket, log?: (l: string) => void): void {
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  socket.on("error", () => socket.destroy());
  let buffered = "";
  let queue = Promise.resolve();
  socket.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") {
        // Answers go out in request order, one line each.
        queue = queue.then(async () => {
          const reply = await answer(signer, line, log);
          if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
        });
      }
      nl = buffered.indexOf("\n");
    }
    if (Buffer.byteLength(buffered) > MAX_LINE_BYTES) {
      log?.("refused: line_too_long");
      socket.end(
        `${JSON.stringify({ id: null, ok: false, code: "line_too_long", error: `a request line is at most ${MAX_LINE_BYTES} bytes` })}\n`,
      );
      buffered = "";
      socket.pause();
    }
  });
}

// ------------------------------------------------------------------ the client side

/**
 * A Signer that asks the `scoreia signer` process over its Unix socket. One short connection per
 * request; any failure to connect, answer in time or answer sensibly is SignerUnavailableError,
 * so a seal leaves its card pending_signature and a later seal signs it unchanged. A signature
 * is only accepted if it verifies against the signer's own public key and falls in its window.
 */
export class RemoteSigner implements Signer {
  private nextId = 1;
  private keyCache = new Map<string, PublicKeyRecord>();

  constructor(
    readonly socketPath: string,
    private readonly timeoutMs = 2000,
  ) {}

  /** `unix:/path/to/signer.sock` → RemoteSigner; anything else throws. */
  static fromSpec(spec: string, timeoutMs?: number): RemoteSigner {
    const m = /^unix:(.+)$/.exec(spec);
    if (!m) throw new Error(`--signer takes unix:/path/to/signer.sock, got ${JSON.stringify(spec)}`);
    return new RemoteSigner(resolve(m[1] as string), timeoutMs);
  }

  get spec(): string {
    return `unix:${this.socketPath}`;
  }

  async signCard(cardHash: string): Promise<CardSignature> {
    if (!CARD_HASH.test(cardHash)) throw new Error(`not a card hash: ${cardHash.slice(0, 80)}`);
    const reply = await this.request({ op: "sign", card_hash: cardHash });
    const signature = reply.signature as CardSignature;
    if (!isSignature(signature))
      throw new SignerUnavailableError(`signer at ${this.socketPath} sent a malformed signature`);
    let key = this.keyCache.get(signature.key_id);
    if (!key || key.not_after !== null) {
      await this.publicKeys();
      key = this.keyCache.get(signature.key_id);
    }
    const publicKey = key ? strictBase64url(key.public_key, 32) : null;
    const sig = strictBase64url(signature.sig, 64);
    const at = Date.parse(signature.signed_at);
    const inWindow =
      key !== undefined &&
      at >= Date.parse(key.not_before) &&
      (key.not_after === null || at < Date.parse(key.not_after));
    if (
      !publicKey ||
      !sig ||
      !inWindow ||
      !verifyEd25519(publicKey, statementBytes(cardHash, signature.key_id, signature.signed_at), sig)
    ) {
      throw new SignerUnavailableError(`signer at ${this.socketPath} sent a signature that does not verify`);
    }
    return signature;
  }

  async signTreeHead(treeSize: number, rootHash: string): Promise<TreeHead> {
    const reply = await this.request({ op: "sign_tree_head", tree_size: treeSize, root_hash: rootHash });
    const head = reply.tree_head as TreeHead;
    const ok =
      typeof head === "object" &&
      head !== null &&
      head.type === TREE_HEAD_TYPE &&
      head.tree_size === treeSize &&
      head.root_hash === rootHash &&
      typeof head.timestamp === "string" &&
      typeof head.key_id === "string";
    let key = ok ? this.keyCache.get(head.key_id) : undefined;
    if (ok && (!key || key.not_after !== null)) {
      await this.publicKeys();
      key = this.keyCache.get(head.key_id);
    }
    const publicKey = key ? strictBase64url(key.public_key, 32) : null;
    const sig = ok ? strictBase64url(head.sig, 64) : null;
    if (!ok || !publicKey || !sig || !verifyEd25519(publicKey, treeHeadBytes(head), sig)) {
      throw new SignerUnavailableError(`signer at ${this.socketPath} sent a tree head that does not verify`);
    }
    return head;
  }

  async publicKeys(): Promise<PublicKeyRecord[]> {
    const reply = await this.request({ op: "keys" });
    const keys = reply.keys;
    if (!Array.isArray(keys) || !keys.every(isKeyRecord)) {
      throw new SignerUnavailableError(`signer at ${this.socketPath} sent malformed key records`);
    }
    for (const k of keys) this.keyCache.set(k.key_id, k);
    return keys.map((k) => ({ ...k }));
  }

  private request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const where = this.socketPath;
    return new Promise((ok, fail) => {
      let settled = false;
      let buffered = "";
      const socket = connect(where);
      const finish = (err: Error | null, value?: Record<string, unknown>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        if (err) fail(err);
        else ok(value as Record<string, unknown>);
      };
      const timer = setTimeout(
        () => finish(new SignerUnavailableError(`signer at ${where} did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      socket.once("connect", () => socket.write(`${JSON.stringify({ id, ...body })}\n`));
      socket.on("error", (e: NodeJS.ErrnoException) =>
        finish(new SignerUnavailableError(`signer at ${where} is not reachable (${e.code ?? e.message})`)),
      );
      socket.on("close", () => finish(new SignerUnavailableError(`signer at ${where} closed the connection`)));
      socket.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        const nl = buffered.indexOf("\n");
        if (nl < 0) {
          if (buffered.length > 1024 * 1024) finish(new SignerUnavailableError(`signer at ${where} sent too much`));
          return;
        }
        let reply: Record<string, unknown>;
        try {
          reply = JSON.parse(buffered.slice(0, nl));
        } catch {
          finish(new SignerUnavailableError(`signer at ${where} sent something that is not JSON`));
          return;
        }
        if (reply.id !== id) finish(new SignerUnavailableError(`signer at ${where} answered another request`));
        else if (reply.ok !== true) {
          finish(new SignerUnavailableError(`signer at ${where} refused: ${String(reply.error ?? "no reason given")}`));
        } else finish(null, reply);
      });
    });
  }
}

function isSignature(v: unknown): v is CardSignature {
  if (typeof v !== "object" || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    Object.keys(s).length === 5 &&
    s.type === SIGNATURE_TYPE &&
    s.alg === "Ed25519" &&
    typeof s.key_id === "string" &&
    typeof s.signed_at === "string" &&
    typeof s.sig === "string"
  );
}

function isKeyRecord(v: unknown): v is PublicKeyRecord {
  if (typeof v !== "object" || v === null) return false;
  const k = v as Record<string, unknown>;
  return (
    typeof k.key_id === "string" &&
    k.alg === "Ed25519" &&
    typeof k.public_key === "string" &&
    typeof k.not_before === "string" &&
    (k.not_after === null || typeof k.not_after === "string")
  );
}
