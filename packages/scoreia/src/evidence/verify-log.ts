import { isDeepStrictEqual } from "node:util";
import { verifyEd25519 } from "./ed25519.ts";
import { canonicalJson } from "./jcs.ts";
import { leafHash, verifyConsistency, verifyInclusion } from "./merkle.ts";
import { isIsoMs } from "./replay.ts";
import { type PublicKeyRecord, TREE_HEAD_TYPE, type TreeHead, treeHeadBytes } from "./signer.ts";

/**
 * Steps 9 and 10 of verification (docs/evidence-0.2.md §15.5). `log`: the card is in a transparency
 * log, under a tree head signed by a trusted key, and logged when it says it was signed.
 * `consistency`: that log is ScoreIA's — the bundle's head and a newer trusted head (the server's
 * current one, or a pinned copy) are one append-only log. A log forked to hold a forged card (a
 * leaked retired key can sign a one-leaf log) passes step 9 and fails step 10.
 */

export const LEAF_TYPE = "scoreia.log.leaf/0.2";

/** One log entry: which card, with which hash, signed and logged when (§15.2). */
export interface LogLeaf {
  type: typeof LEAF_TYPE;
  card_id: string;
  card_hash: string;
  signed_at: string;
  /** Server time of the append. */
  logged_at: string;
}

/** The leaf's hash: RFC 6962 leaf hash of the UTF-8 bytes of JCS(leaf). */
export function logLeafHash(leaf: LogLeaf): Buffer {
  return leafHash(Buffer.from(canonicalJson(leaf), "utf8"));
}

/** How far apart the signer's signed_at and the log's logged_at may be (the signer-clock skew of §5.3). */
export const LOG_DELAY_MS = 5 * 60 * 1000;

const LOG_KEYS = ["inclusion", "index", "leaf", "tree_head"];
const LEAF_KEYS = ["card_hash", "card_id", "logged_at", "signed_at", "type"];
const HEAD_KEYS = ["key_id", "root_hash", "sig", "timestamp", "tree_size", "type"];
const HASH = /^sha256:[0-9a-f]{64}$/;

export interface LogFailure {
  code:
    | "log_missing"
    | "log_malformed"
    | "log_mismatch"
    | "log_time_mismatch"
    | "tree_head_invalid"
    | "log_inclusion_invalid"
    | "log_inconsistent";
  message: string;
}

/** A newer tree head the verifier trusts, with the consistency proof from the bundle's head to it. */
export interface LatestHead {
  tree_head: unknown;
  consistency: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameKeys(v: Record<string, unknown>, keys: string[]): boolean {
  return isDeepStrictEqual(Object.keys(v).sort(), keys);
}

const raw = (h: string) => Buffer.from(h.slice(7), "hex");

function b64(s: unknown, bytes: number): Buffer | null {
  if (typeof s !== "string" || !/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const b = Buffer.from(s, "base64url");
  return b.length === bytes && b.toString("base64url") === s ? b : null;
}

/** Checks a signed tree head against the trusted keys; returns a reason, or null when it holds. */
export function treeHeadProblem(head: unknown, trustedKeys: PublicKeyRecord[]): string | null {
  if (!isObject(head) || !sameKeys(head, HEAD_KEYS) || head.type !== TREE_HEAD_TYPE) {
    return `a tree head has exactly ${HEAD_KEYS.join(", ")} and type ${TREE_HEAD_TYPE}`;
  }
  const h = head as unknown as TreeHead;
  if (
    !Number.isSafeInteger(h.tree_size) ||
    h.tree_size < 1 ||
    typeof h.root_hash !== "string" ||
    !HASH.test(h.root_hash)
  ) {
    return "tree_size must be a positive integer and root_hash a sha256: hash";
  }
  if (!isIsoMs(h.timestamp)) return "the tree head's timestamp is not an ISO-8601 UTC timestamp";
  const key = trustedKeys.find((k) => k.key_id === h.key_id);
  const publicKey = key ? b64(key.public_key, 32) : null;
  if (!key || !publicKey) return `tree head key ${String(h.key_id)} is not among the trusted ScoreIA keys`;
  const at = Date.parse(h.timestamp);
  if (at < Date.parse(key.not_before) || (key.not_after !== null && at >= Date.parse(key.not_after))) {
    return "the tree head was signed outside its key's validity window";
  }
  // A verifier checking many cards meets the same few heads again and again: a head whose
  // signature held under this key record is not verified twice.
  const memo = `${h.key_id}|${h.sig}|${h.tree_size}|${h.root_hash}|${h.timestamp}|${key.public_key}`;
  if (verifiedHeads.has(memo)) return null;
  const sig = b64(h.sig, 64);
  if (!sig || !verifyEd25519(publicKey, treeHeadBytes(h), sig))
    return "the tree head's Ed25519 signature does not verify";
  if (verifiedHeads.size >= VERIFIED_HEADS_MAX) verifiedHeads.clear();
  verifiedHeads.add(memo);
  return null;
}

/** Tree heads whose signature verified, by every signed field and the key (bounded). */
const verifiedHeads = new Set<string>();
const VERIFIED_HEADS_MAX = 4096;

export function verifyLog(
  log: unknown,
  card: { card_id: unknown; card_hash: string; signed_at: string },
  trustedKeys: PublicKeyRecord[],
): LogFailure | null {
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
  const inclusion = log.inclusion;
  if (
    !Number.isSafeInteger(log.index) ||
    (log.index as number) < 0 ||
    !Array.isArray(inclusion) ||
    !inclusion.every((p) => typeof p === "string" && HASH.test(p))
  ) {
    return { code: "log_malformed", message: "index must be an integer ≥ 0 and inclusion a list of sha256: hashes" };
  }
  const leaf = log.leaf as unknown as LogLeaf;
  if (
    leaf.type !== LEAF_TYPE ||
    leaf.card_id !== card.card_id ||
    leaf.card_hash !== card.card_hash ||
    leaf.signed_at !== card.signed_at
  ) {
    return { code: "log_mismatch", message: "the log leaf names another card, card hash or signing time" };
  }
  if (!isIsoMs(leaf.logged_at)) return { code: "log_malformed", message: "logged_at is not an ISO-8601 UTC timestamp" };
  const logged = Date.parse(leaf.logged_at);
  if (Math.abs(logged - Date.parse(card.signed_at)) > LOG_DELAY_MS) {
    return {
      code: "log_time_mismatch",
      message: `signed at ${card.signed_at} but logged at ${leaf.logged_at}: a card is logged when it is signed`,
    };
  }
  const headProblem = treeHeadProblem(log.tree_head, trustedKeys);
  if (headProblem) return { code: "tree_head_invalid", message: headProblem };
  const head = log.tree_head as TreeHead;
  if (Date.parse(head.timestamp) < logged - LOG_DELAY_MS) {
    return { code: "log_time_mismatch", message: "the tree head was signed before the card was logged" };
  }
  const index = log.index as number;
  if (
    !verifyInclusion(index, head.tree_size, logLeafHash(leaf), (inclusion as string[]).map(raw), raw(head.root_hash))
  ) {
    return {
      code: "log_inclusion_invalid",
      message: `the inclusion proof does not lead leaf ${index} to the tree head's root`,
    };
  }
  return null;
}

/** What step 10 says when no newer head was given: the bundle's own log was all there was to check. */
export const CONSISTENCY_UNCHECKED =
  "not checked: no current tree head to compare with (a forged log that holds only this card passes every other step; verify online with --server URL, or against a pinned head with --head FILE)";

/**
 * Step 10, `consistency` (§15.5 item 8): the bundle's tree head and a trusted newer one (the
 * server's current head, or a pinned copy) are two views of one append-only log: the smaller is a
 * prefix of the larger, by the RFC 6962 consistency proof between them. Both directions are
 * accepted (a pinned head may be older than the bundle's). Returns a reason, or null.
 */
export function consistencyProblem(
  bundleHead: TreeHead,
  latest: LatestHead,
  trustedKeys: PublicKeyRecord[],
): LogFailure | null {
  const problem = treeHeadProblem(latest.tree_head, trustedKeys);
  if (problem) return { code: "log_inconsistent", message: `the newer tree head: ${problem}` };
  const other = latest.tree_head as TreeHead;
  const proof = latest.consistency;
  const [small, large] = bundleHead.tree_size <= other.tree_size ? [bundleHead, other] : [other, bundleHead];
  if (
    !Array.isArray(proof) ||
    !proof.every((p) => typeof p === "string" && HASH.test(p)) ||
    !verifyConsistency(small.tree_size, large.tree_size, proof.map(raw), raw(small.root_hash), raw(large.root_hash))
  ) {
    return {
      code: "log_inconsistent",
      message: `the proof's tree head (size ${bundleHead.tree_size}) and the trusted head (size ${other.tree_size}) are not one append-only log: this card is not in the log the server keeps`,
    };
  }
  return null;
}
