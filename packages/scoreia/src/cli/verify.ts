import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "kernel";
import type { ChamberDB } from "../attempts/schema.ts";
import { TOOLSETS, toolsetHash } from "../contract/index.ts";
import type { CardRegistry } from "../evidence/registry.ts";
import { KeyringDir } from "../evidence/remote-signer.ts";
import type { PublicKeyRecord } from "../evidence/signer.ts";
import { DuplicateMemberError, parseStrictJson } from "../evidence/strict-json.ts";
import { type ProofBundle, type VerificationResult, verifyHistorical, verifyProof } from "../evidence/verify.ts";
import type { LatestHead } from "../evidence/verify-log.ts";
import { dataDir, defaultDb, EXIT, fetchJson, IoError, UsageError, type Values } from "./common.ts";
import { latestHeadFor, type PinnedHead, readHeadFile, serverRoot } from "./verify-head.ts";

const CARD_ID = /^(sia|oly)-([0-9a-f]{16}|[0-9a-f]{32})$/;
const VERDICT_EXIT: Record<VerificationResult["verdict"], number> = {
  valid: EXIT.valid,
  invalid: EXIT.invalid,
  unknown_key: EXIT.unknown_key,
  unsigned_historical: EXIT.unsigned_historical,
  pending_signature: EXIT.pending_signature,
};

interface Trusted {
  keys: PublicKeyRecord[];
  /** Where they came from, for the unknown-key line. */
  source: string;
}

export async function verify(values: Values, args: string[]): Promise<number> {
  if (values.all) {
    const { verifyAll } = await import("./verify-all.ts");
    return verifyAll(values, args);
  }
  const target = args[0];
  if (!target || args.length > 1) throw new UsageError("needs one CARD_ID or FILE (or --all --server URL)");
  const pinned = values.keys === undefined ? null : readKeysFile(values.keys);
  const head = values.head === undefined ? null : readHeadFile(values.head);
  const root = values.server === undefined ? null : serverRoot(values.server);
  let outcome: Outcome;
  if (existsSync(target) || !CARD_ID.test(target)) {
    outcome = await verifyFile(target, { pinned, head, root, values });
  } else if (root !== null) {
    outcome = await verifyRemote(target, root, pinned, head);
  } else {
    outcome = await verifyLocal(target, values, pinned, head);
  }
  const { result, signature } = outcome;
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stdout.write(`${verdictLine(result, signature, outcome)}\n`);
  return VERDICT_EXIT[result.verdict];
}

/** The step-10 line of a valid result checked offline: consistency was not checked, said plainly. */
function uncheckedNote(r: VerificationResult): string {
  const step = r.steps.find((s) => s.step === "consistency");
  return step?.checked === false
    ? "; log consistency NOT checked: offline, a forged one-leaf log passes — check with --server URL or --head FILE"
    : "";
}

function verdictLine(
  r: VerificationResult,
  signature: { key_id: string; signed_at: string } | undefined,
  outcome: { trusted?: Trusted },
): string {
  const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ");
  switch (r.verdict) {
    case "valid":
      return `valid ${r.card_id} (signed by ${signature?.key_id} at ${signature?.signed_at}${uncheckedNote(r)})`;
    case "invalid": {
      const failed = r.steps.find((s) => !s.ok);
      const step = failed?.step ?? r.code ?? "card";
      return oneLine(`invalid: ${step}: ${failed?.detail ?? r.message.replace(/^invalid: /, "")}`);
    }
    case "unknown_key":
      return oneLine(`${r.message}${outcome.trusted ? ` (trusted keys: ${outcome.trusted.source})` : ""}`);
    default:
      return oneLine(r.message);
  }
}

function readKeysFile(file: string): Trusted {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new IoError(`cannot read --keys ${file}: ${(e as Error).message}`);
  }
  let keys: unknown;
  try {
    keys = keyDocument(JSON.parse(text));
  } catch {
    keys = null;
  }
  if (!keys) throw new UsageError(`--keys ${file} is not a key document ({"keys":[…]})`);
  const list = keys as PublicKeyRecord[];
  return { keys: list, source: `${list.length} from ${file}` };
}

/** {keys:[…]} (the /.well-known document) or a bare array of records; null otherwise. */
function keyDocument(doc: unknown): PublicKeyRecord[] | null {
  const list = Array.isArray(doc)
    ? doc
    : typeof doc === "object" && doc !== null
      ? (doc as { keys?: unknown }).keys
      : undefined;
  if (!Array.isArray(list) || !list.every((k) => typeof k === "object" && k !== null && "key_id" in k)) return null;
  return list as PublicKeyRecord[];
}

function localKeyring(values: Values): Trusted {
  const dir = join(dataDir(values["data-dir"]), "keys");
  let keys: PublicKeyRecord[] | null;
  try {
    keys = KeyringDir.readPublic(dir);
  } catch (e) {
    throw new IoError(`cannot read the keyring in ${dir}: ${(e as Error).message}`);
  }
  return keys
    ? { keys, source: `${keys.length} from the keyring in ${dir}` }
    : { keys: [], source: `none (no --keys, no keyring in ${dir})` };
}

type Outcome = {
  result: VerificationResult;
  signature?: { key_id: string; signed_at: string };
  trusted?: Trusted;
};

function invalidInput(code: string, message: string): VerificationResult {
  return {
    verdict: "invalid",
    card_id: null,
    code,
    message: `invalid: ${message}`,
    steps: [{ step: "shape", ok: false, detail: message }],
  };
}

/** Toolset id → hash for every contract this build knows (as CardRegistry.knownToolsets). */
function knownToolsets(): Record<string, string> {
  return Object.fromEntries(Object.values(TOOLSETS).map((t) => [t.toolset_id, toolsetHash(t)]));
}

/** Verifies a parsed document: a proof bundle, or a historical card (bare or wrapped as {card}). */
function verifyDocument(doc: unknown, trusted: Trusted, what: string, latestHead?: LatestHead): Outcome {
  const obj = typeof doc === "object" && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  // A proof bundle, or something meant to be one (then verifyProof names what is wrong with it).
  const isProof =
    obj !== null && ("proof_version" in obj || "card_hash" in obj || ("manifest" in obj && "replay" in obj));
  if (obj && !isProof) {
    const inner =
      typeof obj.card === "object" && obj.card !== null && !("card_id" in obj)
        ? (obj.card as Record<string, unknown>)
        : obj;
    if (typeof inner.card_id === "string") {
      if (inner.card_version !== "0.2") return { result: verifyHistorical(inner) };
      throw new UsageError(
        `${what} is a native 0.2 card, not its proof bundle: verify GET /proofs/${inner.card_id}.json, ` +
          `or pass ${inner.card_id} with --server URL`,
      );
    }
  }
  const result = verifyProof(doc, trusted.keys, knownToolsets(), latestHead ? { latestHead } : {});
  const signature = isProof ? (obj?.signature as { key_id: string; signed_at: string } | undefined) : undefined;
  return { result, trusted, ...(signature ? { signature } : {}) };
}

async function verifyFile(
  file: string,
  opts: { pinned: Trusted | null; head: PinnedHead | null; root: string | null; values: Values },
): Promise<Outcome> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new IoError(
      code === "ENOENT"
        ? `${file}: no such file (and not a card id: sia-/oly- + 16 or 32 hex)`
        : `${file}: ${(e as Error).message}`,
    );
  }
  let doc: unknown;
  try {
    doc = parseStrictJson(text);
  } catch (e) {
    if (e instanceof DuplicateMemberError) return { result: invalidInput("duplicate_member", `${file}: ${e.message}`) };
    return { result: invalidInput("not_json", `${file} is not JSON (${(e as Error).message})`) };
  }
  // With --server, the server's keys (unless pinned) and its current head: a file is checked
  // against the log the server keeps, which is what exposes a backdated card with a forged log.
  const trusted = opts.pinned ?? (opts.root ? await serverKeys(opts.root) : localKeyring(opts.values));
  const latest = await latestHeadFor(doc, { root: opts.root, pinned: opts.head });
  return verifyDocument(doc, trusted, file, latest);
}

async function serverKeys(root: string): Promise<Trusted> {
  const url = `${root}/.well-known/scoreia-keys.json`;
  const doc = await fetchJson(url);
  const keys = doc.status === 200 ? keyDocument(doc.body) : null;
  if (!keys) throw new IoError(`GET ${url}: HTTP ${doc.status}, no key document`);
  return { keys, source: `${keys.length} from ${url}` };
}

async function verifyLocal(
  cardId: string,
  values: Values,
  pinned: Trusted | null,
  pinnedHead: PinnedHead | null,
): Promise<Outcome> {
  const database = await openExisting(values);
  try {
    const { CardRegistry } = await import("../evidence/registry.ts");
    const registry = new CardRegistry(database);
    let stored: Awaited<ReturnType<CardRegistry["get"]>>;
    try {
      stored = await registry.get(cardId);
    } catch (e) {
      throw new IoError(`cannot read cards from ${database.location}: ${(e as Error).message}`);
    }
    if (!stored) throw new IoError(`${cardId} is not in ${database.location}`);
    if (stored.card_version !== "0.2") return { result: verifyHistorical(stored.card) };
    if (!stored.signature) return { result: pending(cardId) };
    const proof = (await registry.proof(cardId)) as ProofBundle;
    const published = await registry.keys();
    const trusted = pinned ?? { keys: published, source: `${published.length} published in ${database.location}` };
    const head = pinnedHead?.tree_head ?? (await registry.log.head());
    const latestHead =
      head && proof.log
        ? {
            tree_head: head,
            consistency:
              pinnedHead?.consistency ??
              // A pinned head beyond this database's log has no proof here: step 10 then fails.
              (await registry.log
                .consistency(
                  Math.min(proof.log.tree_head.tree_size, head.tree_size),
                  Math.max(proof.log.tree_head.tree_size, head.tree_size),
                )
                .catch(() => [])),
          }
        : undefined;
    return verifyDocument(proof, trusted, cardId, latestHead);
  } finally {
    await database.close();
  }
}

function pending(cardId: string): VerificationResult {
  return {
    verdict: "pending_signature",
    card_id: cardId,
    message: `pending signature: ${cardId} is written and waits for its signature`,
    steps: [],
  };
}

/** Opens the database read-side, without creating a SQLite file or migrating anything. */
async function openExisting(values: Values): Promise<Database<ChamberDB>> {
  const target = values.db ?? defaultDb(values["data-dir"]);
  const postgres = /^postgres(ql)?:\/\//.test(target);
  if (!postgres && !existsSync(target)) throw new IoError(`no database at ${target} (use --db, or --server URL)`);
  try {
    const { openDatabase } = await import("kernel");
    return await openDatabase<ChamberDB>(target);
  } catch (e) {
    throw new IoError(`cannot open ${target}: ${(e as Error).message}`);
  }
}

async function verifyRemote(
  cardId: string,
  root: string,
  pinned: Trusted | null,
  pinnedHead: PinnedHead | null,
): Promise<Outcome> {
  const id = encodeURIComponent(cardId);
  const proof = await fetchJson(`${root}/proofs/${id}.json`);
  if (proof.duplicate) return { result: invalidInput("duplicate_member", `the proof: ${proof.duplicate}`) };
  const isBundle = typeof proof.body === "object" && proof.body !== null && "proof_version" in proof.body;
  if (proof.status === 200 && isBundle) {
    const trusted = pinned ?? (await serverKeys(root));
    const latestHead = await latestHeadFor(proof.body, { root, pinned: pinnedHead });
    const out = verifyDocument(proof.body, trusted, `${root}/proofs/${id}.json`, latestHead);
    if (out.result.verdict !== "invalid" && out.result.card_id !== cardId) {
      // A perfectly valid proof of some other card proves nothing about this one.
      return {
        result: invalidInput("card_id_mismatch", `the server sent the proof of ${out.result.card_id}, not ${cardId}`),
      };
    }
    return out;
  }
  if (proof.status >= 500) throw new IoError(`GET ${root}/proofs/${id}.json: HTTP ${proof.status}`);
  const said = (proof.body ?? {}) as { error?: unknown; message?: unknown };
  if (proof.status === 404 && said.error === "card_not_found") {
    throw new IoError(`${cardId}: not found on ${root} (${String(said.message ?? "HTTP 404")})`);
  }
  // No native proof: a historical card (never signed), or a native card still waiting for its
  // signature. Fetch the card itself and judge it here.
  // Historical Labyrinth oly-16 cards live under /open-labyrinth; every other card under /cards.
  const labyrinth = /^oly-[0-9a-f]{16}$/.test(cardId);
  const places = [`${root}/cards/${id}.json`, `${root}/cards/${id}`];
  if (labyrinth) places.unshift(`${root}/open-labyrinth/cards/${id}.json`);
  for (const url of places) {
    const got = await fetchJson(url);
    if (got.status === 404 || got.status === 410) continue;
    if (got.status !== 200) throw new IoError(`GET ${url}: HTTP ${got.status}`);
    const doc = got.body as Record<string, unknown> | null;
    const card =
      typeof doc?.card === "object" && doc.card !== null ? (doc.card as Record<string, unknown>) : (doc ?? {});
    if (card.card_id !== cardId) throw new IoError(`GET ${url}: the server sent another card`);
    if (card.card_version === "0.2") return { result: pending(cardId) };
    return { result: verifyHistorical(card) };
  }
  throw new IoError(`${cardId}: not found on ${root} (HTTP ${proof.status} for its proof)`);
}
