/**
 * Native 0.2 proof verification in the browser, step for step the server's verifyProof
 * (evidence/verify.ts): shape → canonical form → key → signature → key window → replay chain →
 * manifest → policy → log (evidence/verify-log.ts, docs/evidence-0.2.md §15.5); the first failing
 * step decides the verdict. Everything runs here: RFC 8785
 * by ./jcs.js, SHA-256 and Ed25519 by WebCrypto. The server is asked for nothing but public
 * inputs (keys, toolset bundles), never for a verdict.
 */
import { canonicalize } from "./jcs.js";

export const PROOF_VERSION = "scoreia-proof/0.2";
export const SIGNATURE_TYPE = "scoreia.card.signature/0.2";
const REPLAY_VERSION = "scoreia-replay/0.2";
const GENESIS = `sha256:${"0".repeat(64)}`;
const BUNDLE_KEYS = ["card", "card_hash", "key", "manifest", "proof_version", "replay", "signature"];
const LOG_KEYS = ["inclusion", "index", "leaf", "tree_head"];
const LEAF_KEYS = ["card_hash", "card_id", "logged_at", "signed_at", "type"];
const HEAD_KEYS = ["key_id", "root_hash", "sig", "timestamp", "tree_size", "type"];
const LEAF_TYPE = "scoreia.log.leaf/0.2";
const TREE_HEAD_TYPE = "scoreia.log.tree_head/0.2";
const HASH = /^sha256:[0-9a-f]{64}$/;
const SIGNATURE_KEYS = ["alg", "key_id", "sig", "signed_at", "type"];
const REPLAY_KEYS = ["card_id", "events", "head", "replay_version"];
const EVENT_KEYS = ["action_index", "at", "hash", "kind", "prev", "private", "request", "response", "seq"];
const EVENT_KINDS = new Set(["enter", "action", "call_for_help", "quarantine", "seal"]);
/** ISO-8601 UTC with milliseconds, exactly as Date.prototype.toISOString writes it. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** How far a signer's clock may trail the issuing server's (docs/evidence-0.2.md §Signature). */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
const CARD_ID = /^(sia|oly)-[0-9a-f]{32}$/;
const CHANNELS = new Set(["provider_api", "local_model", "mcp_session"]);
const ASSURANCES = new Set([
  "participant_claimed",
  "scoreia_controlled",
  "host_reported",
  "official_host_reported",
  "declared",
]);

class StepFailure extends Error {
  constructor(step, code, message, verdict = "invalid") {
    super(message);
    this.step = step;
    this.code = code;
    this.verdict = verdict;
  }
}

export const utf8 = new TextEncoder();

export function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `sha256:` + lowercase hex of SHA-256 over the UTF-8 bytes of `text`. */
export async function sha256Tagged(text) {
  return `sha256:${hex(await crypto.subtle.digest("SHA-256", utf8.encode(text)))}`;
}

function toBase64url(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decodes base64url only in its one canonical spelling (no padding, trailing bits zero). */
export function strictBase64url(s, bytes) {
  if (typeof s !== "string" || !/^[A-Za-z0-9_-]*$/.test(s)) return null;
  let bin;
  try {
    const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
    bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  } catch {
    return null;
  }
  const out = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  if (out.length !== bytes || toBase64url(out) !== s) return null;
  return out;
}

export function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameKeys(v, keys) {
  const have = Object.keys(v).sort();
  const want = [...keys].sort();
  return have.length === want.length && have.every((k, i) => k === want[i]);
}

/** Deep equality of two JSON values (what isDeepStrictEqual decides for parsed JSON). */
function sameJson(a, b) {
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}

async function ed25519Verify(publicKey, message, signature) {
  let key;
  try {
    key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
  } catch (e) {
    if (e && e.name === "NotSupportedError") throw new Error("this browser has no Ed25519 in WebCrypto");
    return false;
  }
  try {
    return await crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
  } catch {
    return false;
  }
}

function statementText(cardHash, keyId, signedAt) {
  return canonicalize({ type: SIGNATURE_TYPE, card: cardHash, key_id: keyId, signed_at: signedAt });
}

async function eventHash(event) {
  return sha256Tagged(canonicalize(event));
}

async function checkReplay(replay, expectedHead) {
  if (replay.replay_version !== REPLAY_VERSION || !Array.isArray(replay.events) || typeof replay.head !== "string") {
    return { code: "replay_malformed", message: `replay lacks replay_version ${REPLAY_VERSION}, events or head` };
  }
  if (!sameKeys(replay, REPLAY_KEYS)) {
    return { code: "replay_malformed", message: `a replay has exactly the fields ${REPLAY_KEYS.join(", ")}` };
  }
  let prev = GENESIS;
  for (let i = 0; i < replay.events.length; i++) {
    const raw = replay.events[i];
    if (!isObject(raw) || !sameKeys(raw, EVENT_KEYS)) {
      return { code: "replay_malformed", message: `event ${i} must have exactly ${EVENT_KEYS.join(", ")}` };
    }
    const { hash, ...event } = raw;
    if (event.seq !== i) return { code: "replay_chain_broken", message: `event ${i} has seq ${String(event.seq)}` };
    if (!EVENT_KINDS.has(event.kind) || !ISO_MS.test(String(event.at))) {
      return { code: "replay_malformed", message: `event ${i} has an unknown kind or a malformed time` };
    }
    if (event.prev !== prev) {
      return { code: "replay_chain_broken", message: `event ${i} does not link to the event before it` };
    }
    let h;
    try {
      h = await eventHash(event);
    } catch (e) {
      return { code: "replay_malformed", message: `event ${i}: ${e.message}` };
    }
    if (h !== hash) return { code: "replay_chain_broken", message: `event ${i} hash does not match its content` };
    prev = h;
  }
  const last = replay.events[replay.events.length - 1];
  if (replay.events[0]?.kind !== "enter" || last?.kind !== "seal") {
    return { code: "replay_malformed", message: "a card's replay starts with enter and ends with seal" };
  }
  if (prev !== replay.head) return { code: "replay_chain_broken", message: "head is not the hash of the last event" };
  if (replay.head !== expectedHead) {
    return { code: "replay_head_mismatch", message: "replay head differs from the card's replay.head" };
  }
  return null;
}

/**
 * @param bundle the parsed proof
 * @param trustedKeys key records, e.g. from /.well-known/scoreia-keys.json
 * @param knownToolsets toolset id → hash recomputed locally from its bundle (optional)
 * @param opts `{latestHead: {tree_head, consistency}}`: a newer signed tree head and the
 *   consistency proof from the bundle's head to it (§15.5 item 8), e.g. the server's current one
 */
export async function verifyProof(bundle, trustedKeys, knownToolsets = {}, opts = {}) {
  const steps = [];
  let cardId = null;
  const pass = (step, detail) => steps.push(detail ? { step, ok: true, detail } : { step, ok: true });
  try {
    // shape
    if (
      !isObject(bundle) ||
      !(sameKeys(bundle, BUNDLE_KEYS) || sameKeys(bundle, [...BUNDLE_KEYS, "log"])) ||
      bundle.proof_version !== PROOF_VERSION
    ) {
      throw new StepFailure(
        "shape",
        "proof_malformed",
        `a proof has exactly the fields ${BUNDLE_KEYS.join(", ")} (and log) and proof_version ${PROOF_VERSION}`,
      );
    }
    const { card, signature, key, manifest, replay } = bundle;
    if (!isObject(card) || !isObject(signature) || !isObject(key) || !isObject(manifest) || !isObject(replay)) {
      throw new StepFailure("shape", "proof_malformed", "card, signature, key, manifest and replay must be objects");
    }
    if (!sameKeys(signature, SIGNATURE_KEYS)) {
      throw new StepFailure("shape", "proof_malformed", `signature has exactly ${SIGNATURE_KEYS.join(", ")}`);
    }
    cardId = typeof card.card_id === "string" ? card.card_id : null;
    pass("shape");

    // canonical form
    let cardHash;
    try {
      cardHash = await sha256Tagged(canonicalize(card));
    } catch (e) {
      throw new StepFailure("canonical_form", "card_not_canonicalizable", e.message);
    }
    if (bundle.card_hash !== cardHash) {
      throw new StepFailure(
        "canonical_form",
        "card_hash_mismatch",
        "card_hash is not SHA-256 of the card's RFC 8785 form",
      );
    }
    pass("canonical_form", cardHash);

    // key
    const trusted = trustedKeys.find((k) => k.key_id === signature.key_id);
    if (!trusted) {
      throw new StepFailure(
        "key",
        "key_unknown",
        `key ${String(signature.key_id)} is not among the trusted ScoreIA keys`,
        "unknown_key",
      );
    }
    // A bundle fetched before a rotation carries not_after: null for a key closed since; the
    // window check below always uses the trusted record.
    if (!sameJson(key, trusted) && !sameJson(key, { ...trusted, not_after: null })) {
      throw new StepFailure("key", "key_mismatch", "the bundle's key record differs from the trusted record");
    }
    const publicKey = strictBase64url(trusted.public_key, 32);
    if (!publicKey || trusted.alg !== "Ed25519") {
      throw new StepFailure("key", "key_malformed", "trusted key is not a raw Ed25519 key");
    }
    if (trusted.key_id !== `ed25519-${hex(publicKey).slice(0, 16)}`) {
      throw new StepFailure("key", "key_malformed", "key_id is not derived from the public key");
    }
    if (!ISO_MS.test(trusted.not_before) || (trusted.not_after !== null && !ISO_MS.test(trusted.not_after))) {
      throw new StepFailure("key", "key_malformed", "the key's window bounds are not ISO-8601 UTC timestamps");
    }
    pass("key", trusted.key_id);

    // signature
    const sig = strictBase64url(signature.sig, 64);
    if (
      signature.type !== SIGNATURE_TYPE ||
      signature.alg !== "Ed25519" ||
      !sig ||
      typeof signature.signed_at !== "string"
    ) {
      throw new StepFailure(
        "signature",
        "signature_malformed",
        `signature must be ${SIGNATURE_TYPE}, Ed25519, 64 bytes base64url`,
      );
    }
    const statement = utf8.encode(statementText(cardHash, signature.key_id, signature.signed_at));
    if (!(await ed25519Verify(publicKey, statement, sig))) {
      throw new StepFailure("signature", "signature_invalid", "the Ed25519 signature does not verify");
    }
    pass("signature", "Ed25519 (WebCrypto)");

    // key window
    if (!ISO_MS.test(signature.signed_at) || typeof card.issued_at !== "string" || !ISO_MS.test(card.issued_at)) {
      throw new StepFailure("key_window", "time_malformed", "signed_at and issued_at must be ISO-8601 UTC timestamps");
    }
    const signedAt = Date.parse(signature.signed_at);
    const issuedAt = Date.parse(card.issued_at);
    if (
      signedAt < Date.parse(trusted.not_before) ||
      (trusted.not_after !== null && signedAt >= Date.parse(trusted.not_after))
    ) {
      throw new StepFailure(
        "key_window",
        "key_outside_window",
        `signed at ${signature.signed_at}, outside the key's validity window`,
      );
    }
    // A separate signer process stamps signed_at with its own clock: tolerate a little skew.
    if (signedAt < issuedAt - CLOCK_SKEW_MS) {
      throw new StepFailure("key_window", "signed_before_issue", "signed before the card was issued");
    }
    pass("key_window", signature.signed_at);

    // replay chain
    const head = isObject(card.replay) ? card.replay.head : undefined;
    if (typeof head !== "string") throw new StepFailure("replay", "replay_malformed", "card has no replay.head");
    const problem = await checkReplay(replay, head);
    if (problem) throw new StepFailure("replay", problem.code, problem.message);
    if (replay.card_id !== card.card_id || replay.events.length !== card.replay.events) {
      throw new StepFailure("replay", "replay_mismatch", "replay belongs to another card or has another event count");
    }
    pass("replay", head);

    // manifest
    const suite = isObject(card.suite) ? card.suite : {};
    let manifestHash;
    try {
      manifestHash = await sha256Tagged(canonicalize(manifest));
    } catch (e) {
      throw new StepFailure("manifest", "manifest_malformed", e.message);
    }
    if (
      manifestHash !== suite.manifest_hash ||
      manifest.suite_id !== suite.id ||
      manifest.generation !== suite.generation ||
      manifest.engine !== suite.engine
    ) {
      throw new StepFailure(
        "manifest",
        "manifest_mismatch",
        "manifest does not hash to the card's suite.manifest_hash",
      );
    }
    pass("manifest", manifestHash);

    // policy
    policy(card, knownToolsets);
    pass("policy");

    // transparency log
    const logProblem = await checkLog(
      bundle.log,
      { card_id: card.card_id, card_hash: cardHash, signed_at: signature.signed_at },
      trustedKeys,
    );
    if (logProblem) throw new StepFailure("log", logProblem.code, logProblem.message);
    const logHead = bundle.log.tree_head;
    pass("log", `leaf ${bundle.log.index} of ${logHead.tree_size}`);

    // consistency with a newer trusted head (§15.5 step 10)
    if (opts.latestHead) {
      const problem = await checkConsistency(logHead, opts.latestHead, trustedKeys);
      if (problem) throw new StepFailure("consistency", problem.code, problem.message);
      pass(
        "consistency",
        `tree head of size ${logHead.tree_size} is consistent with the trusted head of size ${opts.latestHead.tree_head.tree_size}`,
      );
    } else {
      steps.push({ step: "consistency", ok: true, checked: false, detail: CONSISTENCY_UNCHECKED });
    }
    return {
      verdict: "valid",
      card_id: cardId,
      message: `valid: ${cardId} signed by ${trusted.key_id} at ${signature.signed_at}${opts.latestHead ? "" : " (log consistency not checked)"}`,
      steps,
    };
  } catch (e) {
    if (!(e instanceof StepFailure)) throw e;
    steps.push({ step: e.step, ok: false, detail: e.message });
    const label = e.verdict === "unknown_key" ? "unknown key" : "invalid";
    return { verdict: e.verdict, card_id: cardId, code: e.code, message: `${label}: ${e.message}`, steps };
  }
}

function policy(card, knownToolsets) {
  const fail = (code, message) => {
    throw new StepFailure("policy", code, message);
  };
  if (card.card_version !== "0.2") fail("card_version", "native cards are card_version 0.2");
  if (typeof card.card_id !== "string" || !CARD_ID.test(card.card_id)) {
    fail("card_id", "card_id must be sia- or oly- + 32 hex");
  }
  if (typeof card.channel !== "string" || !CHANNELS.has(card.channel)) {
    fail("channel", "channel must be provider_api, local_model or mcp_session");
  }
  const identity = isObject(card.identity) ? card.identity : {};
  if (typeof identity.assurance !== "string" || !ASSURANCES.has(identity.assurance)) {
    fail("assurance", "assurance is not a ScoreIA assurance level");
  }
  const toolset = isObject(card.toolset) ? card.toolset : {};
  const known = Object.hasOwn(knownToolsets, String(toolset.id)) ? knownToolsets[String(toolset.id)] : undefined;
  if (known !== undefined && known !== toolset.hash)
    fail("toolset_hash", `toolset ${String(toolset.id)} has another hash`);
}

/** The hash a toolset bundle commits to, recomputed here: `sha256:` over RFC 8785 of the bundle. */
export async function toolsetBundleHash(bundle) {
  return sha256Tagged(canonicalize(bundle));
}

// ---------------------------------------------------------------------------------------------
// The card transparency log (docs/evidence-0.2.md §15): RFC 6962 hashes, RFC 9162 proofs.

async function sha256Bytes(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

async function prefixed(tag, ...parts) {
  const out = new Uint8Array(1 + parts.reduce((n, p) => n + p.length, 0));
  out[0] = tag;
  let at = 1;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return sha256Bytes(out);
}

/** RFC 6962 leaf hash SHA-256(00 ‖ UTF-8(JCS(leaf))). */
export async function logLeafHash(leaf) {
  return prefixed(0, utf8.encode(canonicalize(leaf)));
}

const nodeHash = (left, right) => prefixed(1, left, right);
const rawHash = (h) => Uint8Array.from(h.slice(7).match(/../g), (x) => Number.parseInt(x, 16));
const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const isHashList = (v) => Array.isArray(v) && v.every((p) => typeof p === "string" && HASH.test(p));

/** RFC 9162 §2.1.3.2: does `proof` lead leaf `index` (hash `leaf`) of a tree of `size` to `root`? */
export async function verifyInclusion(index, size, leaf, proof, root) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(r, root);
}

/** RFC 9162 §2.1.4.2: is the tree (size1, root1) a prefix of (size2, root2)? */
export async function verifyConsistency(size1, size2, proof, root1, root2) {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 1 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && sameBytes(root1, root2);
  if (proof.length === 0) return false;
  // If size1 is a power of two, root1 is itself the first node of the path.
  const path = (size1 & (size1 - 1)) === 0 ? [root1, ...proof] : proof;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(fr, root1) && sameBytes(sr, root2);
}

/** A signed tree head against the trusted keys (§15.3): a reason, or null when it holds. */
export async function treeHeadProblem(head, trustedKeys) {
  if (!isObject(head) || !sameKeys(head, HEAD_KEYS) || head.type !== TREE_HEAD_TYPE) {
    return `a tree head has exactly ${HEAD_KEYS.join(", ")} and type ${TREE_HEAD_TYPE}`;
  }
  if (
    !Number.isSafeInteger(head.tree_size) ||
    head.tree_size < 1 ||
    typeof head.root_hash !== "string" ||
    !HASH.test(head.root_hash)
  ) {
    return "tree_size must be a positive integer and root_hash a sha256: hash";
  }
  if (!isInstant(head.timestamp)) return "the tree head's timestamp is not an ISO-8601 UTC timestamp";
  const key = trustedKeys.find((k) => isObject(k) && k.key_id === head.key_id);
  const publicKey = key ? strictBase64url(key.public_key, 32) : null;
  if (!publicKey) return `tree head key ${String(head.key_id)} is not among the trusted ScoreIA keys`;
  const at = Date.parse(head.timestamp);
  if (at < Date.parse(key.not_before) || (key.not_after !== null && at >= Date.parse(key.not_after))) {
    return "the tree head was signed outside its key's validity window";
  }
  const sig = strictBase64url(head.sig, 64);
  const { sig: _sig, ...unsigned } = head;
  if (!sig || !(await ed25519Verify(publicKey, utf8.encode(canonicalize(unsigned)), sig))) {
    return "the tree head's Ed25519 signature does not verify";
  }
  return null;
}

/** A timestamp exactly as toISOString writes it (a real instant). */
function isInstant(s) {
  if (typeof s !== "string" || !ISO_MS.test(s)) return false;
  const ms = Date.parse(s);
  return Number.isFinite(ms) && new Date(ms).toISOString() === s;
}

/** Step 9 (the bundle's own log), in the order of evidence/verify-log.ts; returns {code, message} or null. */
async function checkLog(log, card, trustedKeys) {
  if (log === undefined) {
    return {
      code: "log_missing",
      message: "the proof carries no transparency-log inclusion (fetch the current proof)",
    };
  }
  if (!isObject(log) || !sameKeys(log, LOG_KEYS) || !isObject(log.leaf) || !sameKeys(log.leaf, LEAF_KEYS)) {
    return {
      code: "log_malformed",
      message: `log has exactly ${LOG_KEYS.join(", ")}; its leaf ${LEAF_KEYS.join(", ")}`,
    };
  }
  if (!Number.isSafeInteger(log.index) || log.index < 0 || !isHashList(log.inclusion)) {
    return { code: "log_malformed", message: "index must be an integer ≥ 0 and inclusion a list of sha256: hashes" };
  }
  const leaf = log.leaf;
  if (
    leaf.type !== LEAF_TYPE ||
    leaf.card_id !== card.card_id ||
    leaf.card_hash !== card.card_hash ||
    leaf.signed_at !== card.signed_at
  ) {
    return { code: "log_mismatch", message: "the log leaf names another card, card hash or signing time" };
  }
  if (!isInstant(leaf.logged_at))
    return { code: "log_malformed", message: "logged_at is not an ISO-8601 UTC timestamp" };
  const logged = Date.parse(leaf.logged_at);
  if (Math.abs(logged - Date.parse(card.signed_at)) > CLOCK_SKEW_MS) {
    return {
      code: "log_time_mismatch",
      message: `signed at ${card.signed_at} but logged at ${leaf.logged_at}: a card is logged when it is signed`,
    };
  }
  const headProblem = await treeHeadProblem(log.tree_head, trustedKeys);
  if (headProblem) return { code: "tree_head_invalid", message: headProblem };
  const head = log.tree_head;
  if (Date.parse(head.timestamp) < logged - CLOCK_SKEW_MS) {
    return { code: "log_time_mismatch", message: "the tree head was signed before the card was logged" };
  }
  const included = await verifyInclusion(
    log.index,
    head.tree_size,
    await logLeafHash(leaf),
    log.inclusion.map(rawHash),
    rawHash(head.root_hash),
  );
  if (!included) {
    return {
      code: "log_inclusion_invalid",
      message: `the inclusion proof does not lead leaf ${log.index} to the tree head's root`,
    };
  }
  return null;
}

const CONSISTENCY_UNCHECKED =
  "not checked: no current tree head to compare with (a forged log that holds only this card passes every other step; verify online with --server URL, or against a pinned head with --head FILE)";

/** Step 10, as evidence/verify-log.ts consistencyProblem: the two heads are one append-only log. */
async function checkConsistency(head, latest, trustedKeys) {
  const problem = await treeHeadProblem(latest.tree_head, trustedKeys);
  if (problem) return { code: "log_inconsistent", message: `the newer tree head: ${problem}` };
  const other = latest.tree_head;
  const proof = latest.consistency;
  const [small, large] = head.tree_size <= other.tree_size ? [head, other] : [other, head];
  if (
    !isHashList(proof) ||
    !(await verifyConsistency(
      small.tree_size,
      large.tree_size,
      proof.map(rawHash),
      rawHash(small.root_hash),
      rawHash(large.root_hash),
    ))
  ) {
    return {
      code: "log_inconsistent",
      message: `the proof's tree head (size ${head.tree_size}) and the trusted head (size ${other.tree_size}) are not one append-only log: this card is not in the log the server keeps`,
    };
  }
  return null;
}
