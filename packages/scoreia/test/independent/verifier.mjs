// Independent verifier for ScoreIA Evidence 0.2 proof bundles.
//
// Written from docs/evidence-0.2.md alone: it imports nothing from the repository, only Node's
// built-in `crypto`. Section numbers in comments (§n) refer to that document.

import { createHash, createHmac, createPublicKey, verify as edVerify } from "node:crypto";

// ---------------------------------------------------------------------------------------------
// §1.2 Canonical JSON (RFC 8785)

export class JcsError extends Error {}

const hasOwn = (o, k) => Object.hasOwn(o, k);

/** A JSON object value: a plain object (not null, not an array, not a class instance). */
export function isJsonObject(v) {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function assertWellFormed(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      throw new JcsError("lone high surrogate");
    }
    if (c >= 0xdc00 && c <= 0xdfff) throw new JcsError("lone low surrogate");
  }
}

const SHORT_ESCAPES = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" };

function jcsString(s) {
  assertWellFormed(s);
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i];
  }
  return `${out}"`;
}

function jcsNumber(n) {
  if (!Number.isFinite(n)) throw new JcsError("non-finite number");
  if (Object.is(n, -0)) return "0";
  // ECMAScript Number::toString (shortest round-trip), which is what RFC 8785 §3.2.2.3 mandates.
  return String(n);
}

/** Code-unit order (RFC 8785 §3.2.3): compare the names as arrays of UTF-16 code units. */
function compareUtf16(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function jcsValue(v) {
  if (v === null) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "number") return jcsNumber(v);
  if (typeof v === "string") return jcsString(v);
  if (Array.isArray(v)) {
    const parts = [];
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) throw new JcsError("array hole");
      parts.push(jcsValue(v[i]));
    }
    return `[${parts.join(",")}]`;
  }
  if (isJsonObject(v)) {
    const names = Object.keys(v);
    if (Object.getOwnPropertySymbols(v).length > 0) throw new JcsError("symbol member");
    names.sort(compareUtf16);
    return `{${names.map((k) => `${jcsString(k)}:${jcsValue(v[k])}`).join(",")}}`;
  }
  throw new JcsError(`not a JSON value (${typeof v})`);
}

/** JCS(v) as a string; throws JcsError when v has no canonical form. */
export function jcs(v) {
  return jcsValue(v);
}

// ---------------------------------------------------------------------------------------------
// §1.3 Hashes

const sha256hex = (buf) => createHash("sha256").update(buf).digest("hex");
/** H(bytes) */
export const H = (bytes) => `sha256:${sha256hex(bytes)}`;
/** Hc(v) = H(UTF-8(JCS(v))) */
export const Hc = (v) => H(Buffer.from(jcs(v), "utf8"));

export const GENESIS = `sha256:${"0".repeat(64)}`;

// ---------------------------------------------------------------------------------------------
// §1.4 strict base64url, §1.5 timestamps

/** Decodes canonical unpadded base64url; returns null for anything else. */
export function b64urlStrict(s, expectedBytes) {
  if (typeof s !== "string" || !/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const buf = Buffer.from(s, "base64url");
  if (buf.toString("base64url") !== s) return null; // non-canonical (trailing bits, bad length)
  if (expectedBytes !== undefined && buf.length !== expectedBytes) return null;
  return buf;
}

const TS_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Milliseconds of a timestamp, or null when it is not one. The §1.5 pattern (with `$` matching
 * only at the very end — JS `$` without the m flag does not match before a trailing newline), plus
 * the §13 rule that it must be a real instant written exactly as toISOString writes it (so
 * 2026-02-31 or T24:00 are refused even though they are well-shaped).
 */
export function instant(s) {
  if (typeof s !== "string" || !TS_RE.test(s)) return null;
  const ms = Date.parse(s);
  if (!Number.isFinite(ms)) return null;
  if (new Date(ms).toISOString() !== s) return null;
  return ms;
}

// ---------------------------------------------------------------------------------------------
// §3 toolset hash, §4 manifest hash

/** §3: toolset hash of a contract (parsed object, or its JSON text). */
export function toolsetHash(contractJson) {
  const contract = typeof contractJson === "string" ? JSON.parse(contractJson) : contractJson;
  if (!isJsonObject(contract)) throw new Error("contract is not an object");
  const sb = contract.schema_bundle;
  if (!isJsonObject(sb)) throw new Error("no schema_bundle");
  if (sb.canonicalization !== "RFC8785") throw new Error(`unsupported canonicalization ${sb.canonicalization}`);
  const payload = {};
  for (const f of sb.payload_fields) {
    if (f === "canonical_tools") {
      payload[f] = contract.canonical_tools.map((tool) => {
        const reduced = {};
        for (const g of sb.canonical_tools_fields) if (hasOwn(tool, g)) reduced[g] = tool[g];
        return reduced;
      });
    } else if (hasOwn(contract, f)) {
      payload[f] = contract[f];
    }
  }
  const h = Hc(payload);
  const prefix = typeof sb.hash_prefix === "string" ? sb.hash_prefix : "sha256:";
  return prefix + h.slice("sha256:".length);
}

/** §4: Hc(manifest). */
export function manifestHash(manifest) {
  return Hc(manifest);
}

/** §3 policy table of known toolset hashes. */
export const KNOWN_TOOLSETS = Object.freeze({
  "scoreia-chamber-tools/0.3.0": "sha256:b6399e18fa0b591327e12d2acff1428c11f5ca82f8ac868a603abc1d4daf132d",
  "scoreia-chamber-tools/0.3.2": "sha256:aca66563f06ec6bdcfaf7864d89825a83550f6ef0a74d6398e4f97ed90f2a8c3",
});

// ---------------------------------------------------------------------------------------------
// §7.2 markers (not needed to verify, provided to check §12.4)

export function valueSalt(replaySalt, seq, location) {
  return createHmac("sha256", replaySalt).update(`${seq}:${location}`, "utf8").digest();
}

export function marker(replaySalt, seq, location, value) {
  const salt = valueSalt(replaySalt, seq, location);
  return { redacted: H(Buffer.concat([salt, Buffer.from(jcs(value), "utf8")])) };
}

// ---------------------------------------------------------------------------------------------
// §14.3 / §14.5 reveal: the secret's commitment and the openings of a card's replay
// (the room itself is rebuilt by the suite code; this checks what the documents alone decide)

const OPENED = { action: ["request.value", "response.observation", "private"] };

function at(event, location) {
  if (location === "private") return event.private;
  const [part, member] = location.split(".");
  return get(event[part], member);
}

/**
 * Checks a reveal against a proof bundle of its generation: SHA-256 of the secret is the
 * manifest's room_secret.commitment, the manifest hashes to the reveal's and the card's
 * manifest_hash, every opening hashes to the marker at its place, and every marker the reveal
 * opens (§14.5: action request.value, response.observation, private) is opened.
 * Returns null, or the failure code.
 */
export function checkOpenings(bundle, reveal) {
  const secret = hex32(reveal.secret);
  if (!secret) return "reveal_malformed";
  const commitment = get(get(bundle.manifest, "room_secret"), "commitment");
  if (commitment !== H(secret)) return "secret_mismatch";
  const mh = manifestHash(bundle.manifest);
  if (mh !== reveal.manifest_hash || mh !== get(get(bundle.card, "suite"), "manifest_hash")) return "secret_mismatch";
  const id = get(bundle.card, "card_id");
  // §14.3: 0.3 gives each opening its value salt; a saved 0.2 reveal gives the attempt's replay salt
  const legacy = reveal.reveal_version === "scoreia-reveal/0.2";
  if (!legacy && reveal.reveal_version !== "scoreia-reveal/0.3") return "reveal_malformed";
  const replaySalt = legacy ? hex32(get(reveal.replay_salts, id)) : null;
  const openings = get(reveal.openings, id);
  if ((legacy && !replaySalt) || !Array.isArray(openings)) return "card_not_in_reveal";
  const events = bundle.replay.events;
  const opened = new Set();
  for (const o of openings) {
    const e = events[o.seq];
    const m = e ? at(e, o.location) : undefined;
    if (!e || !(OPENED[e.kind] ?? []).includes(o.location) || !isJsonObject(m)) return "opening_unexpected";
    const salt = legacy ? valueSalt(replaySalt, o.seq, o.location) : hex32(o.salt);
    if (!salt) return "reveal_malformed";
    if (!deepEqual(m, { redacted: H(Buffer.concat([salt, Buffer.from(jcs(o.value), "utf8")])) })) {
      return "opening_mismatch";
    }
    opened.add(`${o.seq}:${o.location}`);
  }
  for (const e of events) {
    for (const location of OPENED[e.kind] ?? []) {
      if (isJsonObject(at(e, location)) && !opened.has(`${e.seq}:${location}`)) return "opening_missing";
    }
  }
  return null;
}

function hex32(s) {
  return typeof s === "string" && /^[0-9a-f]{64}$/.test(s) ? Buffer.from(s, "hex") : null;
}

// ---------------------------------------------------------------------------------------------
// helpers

function sameNames(obj, names) {
  const keys = Object.keys(obj);
  if (keys.length !== names.length) return false;
  return names.every((n) => hasOwn(obj, n));
}

/** Type-and-value deep equality of JSON values (§1.1); member order irrelevant. */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const get = (o, k) => (isJsonObject(o) && hasOwn(o, k) ? o[k] : undefined);

// Ed25519 group order L (§5.2)
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

function ed25519Verify(publicKey32, sig64, message) {
  // S < L (OpenSSL checks it too; explicit here so the rule does not depend on the library)
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig64[i]);
  if (s >= L) return false;
  try {
    const key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: publicKey32.toString("base64url") },
      format: "jwk",
    });
    return edVerify(null, message, key, sig64);
  } catch {
    return false; // not a curve point, or any library refusal
  }
}

// ---------------------------------------------------------------------------------------------
// §8.2 verification

const BUNDLE_MEMBERS = ["proof_version", "card", "card_hash", "signature", "key", "manifest", "replay"];
// §8.1: a bundle made since the transparency log (§15) has an eighth member, `log`.
const BUNDLE_MEMBERS_LOG = [...BUNDLE_MEMBERS, "log"];
const SIGNATURE_MEMBERS = ["alg", "key_id", "sig", "signed_at", "type"];
const REPLAY_MEMBERS = ["card_id", "events", "head", "replay_version"];
const EVENT_MEMBERS = ["action_index", "at", "hash", "kind", "prev", "private", "request", "response", "seq"];
const EVENT_KINDS = new Set(["enter", "action", "call_for_help", "quarantine", "seal"]);
const CHANNELS = new Set(["provider_api", "local_model", "mcp_session"]);
const ASSURANCES = new Set([
  "participant_claimed",
  "scoreia_controlled",
  "declared",
  "host_reported",
  "official_host_reported",
]);
const SIG_TYPE = "scoreia.card.signature/0.2";
const CLOCK_SKEW_MS = 300_000;

class Fail extends Error {
  constructor(step, code, detail) {
    super(code);
    this.step = step;
    this.code = code;
    this.detail = detail;
  }
}

const fail = (step, code, detail) => {
  throw new Fail(step, code, detail);
};

// ---------------------------------------------------------------------------------------------
// §15 transparency log

const LOG_MEMBERS = ["inclusion", "index", "leaf", "tree_head"];
const LEAF_MEMBERS = ["card_hash", "card_id", "logged_at", "signed_at", "type"];
const HEAD_MEMBERS = ["key_id", "root_hash", "sig", "timestamp", "tree_size", "type"];
const LEAF_TYPE = "scoreia.log.leaf/0.2";
const HEAD_TYPE = "scoreia.log.tree_head/0.2";
const HASH_RE = /^sha256:[0-9a-f]{64}$/;
const isHash = (h) => typeof h === "string" && HASH_RE.test(h);
const hashBytes = (h) => Buffer.from(h.slice("sha256:".length), "hex");
const isCount = (n) => Number.isSafeInteger(n) && n >= 0;

/** §15.1: RFC 6962 leaf hash SHA-256(00 ‖ bytes) and node hash SHA-256(01 ‖ left ‖ right). */
export const merkleLeaf = (bytes) => createHash("sha256").update(Buffer.of(0)).update(bytes).digest();
export const merkleNode = (l, r) => createHash("sha256").update(Buffer.of(1)).update(l).update(r).digest();

/** §15.2: the leaf hash of a log leaf object, over the UTF-8 bytes of its JCS. */
export const logLeafHash = (leaf) => merkleLeaf(Buffer.from(jcs(leaf), "utf8"));

/** RFC 9162 §2.1.3.2, step by step: does `path` lead leaf `index` of a tree of `size` to `root`? */
export function inclusionHolds(index, size, leafHash, path, root) {
  if (!isCount(index) || !isCount(size) || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = merkleNode(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = merkleNode(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/**
 * RFC 9162 §2.1.4.2, step by step: is the tree (size1, root1) a prefix of (size2, root2)? Equal
 * sizes need an empty proof and equal roots; a proof from the empty tree proves nothing.
 */
export function consistencyHolds(size1, size2, path, root1, root2) {
  if (!isCount(size1) || !isCount(size2) || size1 < 1 || size2 < size1) return false;
  if (size1 === size2) return path.length === 0 && root1.equals(root2);
  if (path.length === 0) return false;
  // 2. If first is an exact power of 2, prepend first_hash to the path.
  const p = (size1 & (size1 - 1)) === 0 ? [root1, ...path] : path;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = p[0];
  let sr = p[0];
  for (const c of p.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = merkleNode(c, fr);
      sr = merkleNode(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = merkleNode(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(root1) && sr.equals(root2);
}

/** §15.3: why a signed tree head fails against the trusted records, or null when it holds. */
function treeHeadProblem(head, records) {
  if (!isJsonObject(head) || !sameNames(head, HEAD_MEMBERS) || head.type !== HEAD_TYPE) return "members/type";
  if (!Number.isSafeInteger(head.tree_size) || head.tree_size < 1 || !isHash(head.root_hash)) return "size/root";
  const at = instant(head.timestamp);
  if (at === null) return "timestamp";
  const K = records.find((r) => isJsonObject(r) && hasOwn(r, "key_id") && r.key_id === head.key_id);
  const pub = K ? b64urlStrict(K.public_key, 32) : null;
  if (!pub) return "key not trusted";
  const nb = instant(K.not_before);
  const na = K.not_after === null ? null : instant(K.not_after);
  if (nb === null || (K.not_after !== null && na === null)) return "key window malformed";
  if (at < nb || (na !== null && at >= na)) return "outside key window";
  const sig = b64urlStrict(head.sig, 64);
  const { sig: _sig, ...unsigned } = head;
  if (!sig || !ed25519Verify(pub, sig, Buffer.from(jcs(unsigned), "utf8"))) return "signature";
  return null;
}

/** §15.5 step 9; returns the leaf index when every check holds. */
function verifyLogStep(bundle, C, keysDocument) {
  const step = "log";
  if (!hasOwn(bundle, "log")) fail(step, "log_missing");
  const log = bundle.log;
  if (!isJsonObject(log) || !sameNames(log, LOG_MEMBERS)) fail(step, "log_malformed", "log members");
  const { leaf, index, inclusion, tree_head: head } = log;
  if (!isJsonObject(leaf) || !sameNames(leaf, LEAF_MEMBERS)) fail(step, "log_malformed", "leaf members");
  if (!isCount(index) || !Array.isArray(inclusion) || !inclusion.every(isHash)) fail(step, "log_malformed", "index");
  const { card, signature } = bundle;
  if (
    leaf.type !== LEAF_TYPE ||
    leaf.card_id !== card.card_id ||
    leaf.card_hash !== C ||
    leaf.signed_at !== signature.signed_at
  ) {
    fail(step, "log_mismatch");
  }
  const logged = instant(leaf.logged_at);
  if (logged === null) fail(step, "log_malformed", "logged_at");
  if (Math.abs(logged - instant(signature.signed_at)) > CLOCK_SKEW_MS) fail(step, "log_time_mismatch", "logged_at");
  const problem = treeHeadProblem(head, trustedRecords(keysDocument));
  if (problem) fail(step, "tree_head_invalid", problem);
  if (instant(head.timestamp) < logged - CLOCK_SKEW_MS) fail(step, "log_time_mismatch", "tree head before log");
  const path = inclusion.map(hashBytes);
  if (!inclusionHolds(index, head.tree_size, logLeafHash(leaf), path, hashBytes(head.root_hash))) {
    fail(step, "log_inclusion_invalid");
  }
  return index;
}

/** Trusted key records of a keys document (§6.3). A malformed document counts as empty. */
function trustedRecords(keysDocument) {
  const keys = get(keysDocument, "keys");
  return Array.isArray(keys) ? keys : [];
}

function run(bundle, keysDocument, knownToolsets, steps, latest) {
  // Step 1 — shape
  if (!isJsonObject(bundle) || !(sameNames(bundle, BUNDLE_MEMBERS) || sameNames(bundle, BUNDLE_MEMBERS_LOG)))
    fail("shape", "proof_malformed", "members");
  if (bundle.proof_version !== "scoreia-proof/0.2") fail("shape", "proof_malformed", "proof_version");
  for (const m of ["card", "signature", "key", "manifest", "replay"]) {
    if (!isJsonObject(bundle[m])) fail("shape", "proof_malformed", `${m} is not an object`);
  }
  const { card, signature, key, manifest, replay } = bundle;
  if (!sameNames(signature, SIGNATURE_MEMBERS)) fail("shape", "proof_malformed", "signature members");
  steps.push({ step: "shape", ok: true });

  // Step 2 — canonical_form
  let C;
  try {
    C = Hc(card);
  } catch (e) {
    if (e instanceof JcsError) fail("canonical_form", "card_not_canonicalizable", e.message);
    throw e;
  }
  if (bundle.card_hash !== C) fail("canonical_form", "card_hash_mismatch", C);
  steps.push({ step: "canonical_form", ok: true, detail: C });

  // Step 3 — key
  const K = trustedRecords(keysDocument).find(
    (r) => isJsonObject(r) && hasOwn(r, "key_id") && r.key_id === signature.key_id,
  );
  if (K === undefined) fail("key", "key_unknown", String(signature.key_id));
  const kOpen = { ...K, not_after: null };
  if (!deepEqual(key, K) && !deepEqual(key, kOpen)) fail("key", "key_mismatch");
  const pub = b64urlStrict(K.public_key, 32);
  if (pub === null || K.alg !== "Ed25519") fail("key", "key_malformed", "public_key/alg");
  if (K.key_id !== `ed25519-${pub.subarray(0, 8).toString("hex")}`) fail("key", "key_malformed", "key_id");
  const nb = instant(K.not_before);
  const na = K.not_after === null ? null : instant(K.not_after);
  if (nb === null || (K.not_after !== null && na === null)) fail("key", "key_malformed", "window");
  steps.push({ step: "key", ok: true, detail: K.key_id });

  // Step 4 — signature
  if (signature.type !== SIG_TYPE || signature.alg !== "Ed25519") fail("signature", "signature_malformed");
  const sig = b64urlStrict(signature.sig, 64);
  if (sig === null || typeof signature.signed_at !== "string") fail("signature", "signature_malformed");
  let statement;
  try {
    statement = Buffer.from(
      jcs({ type: SIG_TYPE, card: C, key_id: signature.key_id, signed_at: signature.signed_at }),
      "utf8",
    );
  } catch (e) {
    // signed_at with a lone surrogate: no statement bytes exist (the doc does not name a code)
    if (e instanceof JcsError) fail("signature", "signature_invalid", "statement not canonicalizable");
    throw e;
  }
  if (!ed25519Verify(pub, sig, statement)) fail("signature", "signature_invalid");
  steps.push({ step: "signature", ok: true });

  // Step 5 — key_window
  const signedAt = instant(signature.signed_at);
  const issuedAt = instant(card.issued_at);
  if (signedAt === null || issuedAt === null) fail("key_window", "time_malformed");
  if (!(nb <= signedAt && (na === null || signedAt < na))) fail("key_window", "key_outside_window");
  if (!(signedAt >= issuedAt - CLOCK_SKEW_MS)) fail("key_window", "signed_before_issue");
  steps.push({ step: "key_window", ok: true });

  // Step 6 — replay
  const cardReplay = card.replay;
  if (!isJsonObject(cardReplay) || typeof cardReplay.head !== "string")
    fail("replay", "replay_malformed", "card.replay");
  if (
    replay.replay_version !== "scoreia-replay/0.2" ||
    !Array.isArray(replay.events) ||
    typeof replay.head !== "string"
  ) {
    fail("replay", "replay_malformed", "replay document");
  }
  if (!sameNames(replay, REPLAY_MEMBERS)) fail("replay", "replay_malformed", "replay members");
  let prev = GENESIS;
  const events = replay.events;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!isJsonObject(e) || !sameNames(e, EVENT_MEMBERS)) fail("replay", "replay_malformed", `event ${i} members`);
    if (typeof e.seq !== "number" || e.seq !== i) fail("replay", "replay_chain_broken", `event ${i} seq`);
    if (typeof e.kind !== "string" || !EVENT_KINDS.has(e.kind) || instant(e.at) === null) {
      fail("replay", "replay_malformed", `event ${i} kind/at`);
    }
    if (e.prev !== prev) fail("replay", "replay_chain_broken", `event ${i} prev`);
    const { hash, ...p } = e;
    let x;
    try {
      x = Hc(p);
    } catch (err) {
      if (err instanceof JcsError) fail("replay", "replay_malformed", `event ${i} not canonicalizable`);
      throw err;
    }
    if (x !== hash) fail("replay", "replay_chain_broken", `event ${i} hash`);
    prev = x;
  }
  if (events.length === 0 || events[0].kind !== "enter" || events[events.length - 1].kind !== "seal") {
    fail("replay", "replay_malformed", "first/last kind");
  }
  if (prev !== replay.head) fail("replay", "replay_chain_broken", "head");
  if (replay.head !== cardReplay.head) fail("replay", "replay_head_mismatch");
  if (replay.card_id !== card.card_id || events.length !== cardReplay.events) fail("replay", "replay_mismatch");
  steps.push({ step: "replay", ok: true, detail: replay.head });

  // Step 7 — manifest
  let M;
  try {
    M = Hc(manifest);
  } catch (e) {
    if (e instanceof JcsError) fail("manifest", "manifest_malformed", e.message);
    throw e;
  }
  const s = isJsonObject(card.suite) ? card.suite : {};
  if (
    M !== get(s, "manifest_hash") ||
    get(manifest, "suite_id") !== get(s, "id") ||
    get(manifest, "generation") !== get(s, "generation") ||
    get(manifest, "engine") !== get(s, "engine")
  ) {
    fail("manifest", "manifest_mismatch", M);
  }
  steps.push({ step: "manifest", ok: true, detail: M });

  // Step 8 — policy
  if (card.card_version !== "0.2") fail("policy", "card_version");
  if (typeof card.card_id !== "string" || !/^(sia|oly)-[0-9a-f]{32}$/.test(card.card_id)) fail("policy", "card_id");
  if (typeof card.channel !== "string" || !CHANNELS.has(card.channel)) fail("policy", "channel");
  const assurance = get(card.identity, "assurance");
  if (typeof assurance !== "string" || !ASSURANCES.has(assurance)) fail("policy", "assurance");
  if (knownToolsets) {
    const tid = get(card.toolset, "id");
    if (typeof tid === "string" && hasOwn(knownToolsets, tid)) {
      if (get(card.toolset, "hash") !== knownToolsets[tid]) fail("policy", "toolset_hash");
    }
  }
  steps.push({ step: "policy", ok: true });

  // Step 9 — log (§15.5)
  const index = verifyLogStep(bundle, C, keysDocument);
  const head = bundle.log.tree_head;
  steps.push({ step: "log", ok: true, detail: `leaf ${index} of ${head.tree_size}` });

  // Step 10 — consistency (§15.5): the bundle's head and a newer trusted head are one log
  if (latest === undefined) {
    steps.push({ step: "consistency", ok: true, checked: false, detail: CONSISTENCY_UNCHECKED });
    return;
  }
  const newer = get(latest, "tree_head");
  const why = treeHeadProblem(newer, trustedRecords(keysDocument));
  if (why) fail("consistency", "log_inconsistent", `newer head: ${why}`);
  const proof = get(latest, "consistency");
  const [small, large] = head.tree_size <= newer.tree_size ? [head, newer] : [newer, head];
  if (
    !Array.isArray(proof) ||
    !proof.every(isHash) ||
    !consistencyHolds(
      small.tree_size,
      large.tree_size,
      proof.map(hashBytes),
      hashBytes(small.root_hash),
      hashBytes(large.root_hash),
    )
  ) {
    fail("consistency", "log_inconsistent");
  }
  steps.push({
    step: "consistency",
    ok: true,
    detail: `tree head of size ${head.tree_size} is consistent with the trusted head of size ${newer.tree_size}`,
  });
}

/** §15.5 step 10's detail when no newer head was given. */
const CONSISTENCY_UNCHECKED =
  "not checked: no current tree head to compare with (a forged log that holds only this card passes every other step; verify online with --server URL, or against a pinned head with --head FILE)";

/**
 * §8.2: verify a parsed proof bundle against a trusted keys document `{keys: [...]}`.
 * Returns `{verdict: "valid"}` or `{verdict: "unknown_key" | "invalid", code, step}` (plus the
 * passing `steps` and the failure `detail` for diagnostics). `knownToolsets` defaults to the §3
 * table; pass `null` to skip the toolset check. `latest` = `{tree_head, consistency}`: a newer
 * trusted tree head and the consistency proof to it (§15.5 item 8).
 */
export function verify(bundle, keysDocument, knownToolsets = KNOWN_TOOLSETS, latest = undefined) {
  const steps = [];
  try {
    run(bundle, keysDocument, knownToolsets, steps, latest);
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    return {
      verdict: e.code === "key_unknown" ? "unknown_key" : "invalid",
      code: e.code,
      step: e.step,
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      steps,
    };
  }
  return { verdict: "valid", steps };
}

// ---------------------------------------------------------------------------------------------
// §1.1 duplicate member names

/**
 * The first member name that occurs twice in one object of the JSON `text` (compared after
 * unescaping), or null. `text` must be valid JSON (JSON.parse decides first); this scan only
 * follows strings and nesting.
 */
export function duplicateMember(text) {
  const frames = []; // per open container: Set of names (object) or null (array)
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = frames.at(-1);
      if (nameNext && top) {
        const name = JSON.parse(text.slice(i, j + 1));
        if (top.has(name)) return name;
        top.add(name);
      }
      nameNext = false;
      i = j;
    } else if (c === "{") {
      frames.push(new Set());
      nameNext = true;
    } else if (c === "[") {
      frames.push(null);
      nameNext = false;
    } else if (c === "}" || c === "]") {
      frames.pop();
      nameNext = false;
    } else if (c === ",") {
      nameNext = frames.at(-1) instanceof Set;
    }
  }
  return null;
}

/**
 * §1.1 + §8.2 on the received text: a document with a duplicated member name is `invalid`
 * (`duplicate_member`) before any step runs; otherwise the parsed value is verified.
 */
export function verifyText(text, keysDocument, knownToolsets = KNOWN_TOOLSETS) {
  const value = JSON.parse(text);
  const dup = duplicateMember(text);
  if (dup !== null) return { verdict: "invalid", code: "duplicate_member", detail: dup, steps: [] };
  return verify(value, keysDocument, knownToolsets);
}

// ---------------------------------------------------------------------------------------------
// §9 historical cards (not part of a bundle verifier; provided for completeness)

export function verifyHistorical(card) {
  if (!isJsonObject(card) || typeof card.card_id !== "string") return { verdict: "invalid", code: "card_malformed" };
  if (hasOwn(card, "card_version") && card.card_version !== "0.1") return { verdict: "invalid", code: "card_version" };
  if (!/^(sia-[0-9a-f]{16}|oly-[0-9a-f]{16})$/.test(card.card_id)) return { verdict: "invalid", code: "card_id" };
  if (hasOwn(card, "content_hash") && typeof card.content_hash === "string") {
    const { content_hash, ...rest } = card;
    let h;
    try {
      h = Hc(rest);
    } catch {
      return { verdict: "invalid", code: "content_hash_mismatch" };
    }
    if (h !== content_hash) return { verdict: "invalid", code: "content_hash_mismatch" };
  }
  return { verdict: "unsigned_historical" };
}
