import { isDeepStrictEqual } from "node:util";
import { verifyEd25519 } from "./ed25519.ts";
import { canonicalJson, sha256Tagged } from "./jcs.ts";
import type { LogProof } from "./log.ts";
import { isIsoMs, type PublicReplay, verifyReplay } from "./replay.ts";
import { type CardSignature, type PublicKeyRecord, SIGNATURE_TYPE, statementBytes } from "./signer.ts";
import { CONSISTENCY_UNCHECKED, consistencyProblem, type LatestHead, verifyLog } from "./verify-log.ts";

/**
 * Verification is normalize, then ordered steps, each with its own failure code
 * (docs/evidence-0.2.md §8.2, §15.5): shape → canonical form → key → signature → key window →
 * replay chain → manifest → policy → log → consistency. The first failing step decides the verdict.
 */

export const PROOF_VERSION = "scoreia-proof/0.2";

/** The ordered steps of §8.2 and §15.5, as results name them. */
export const VERIFICATION_STEPS = [
  "shape",
  "canonical_form",
  "key",
  "signature",
  "key_window",
  "replay",
  "manifest",
  "policy",
  "log",
  "consistency",
] as const;

export interface ProofBundle {
  proof_version: typeof PROOF_VERSION;
  card: Record<string, unknown>;
  card_hash: string;
  signature: CardSignature;
  key: PublicKeyRecord;
  manifest: Record<string, unknown>;
  replay: PublicReplay;
  /** Inclusion in the card transparency log (§15.4); bundles made before the log lack it. */
  log?: LogProof;
}

export interface VerifyOptions {
  /** A newer trusted tree head and the consistency proof to it (the CLI fetches the server's). */
  latestHead?: LatestHead;
}

export type Verdict = "valid" | "unknown_key" | "invalid" | "unsigned_historical" | "pending_signature";

export interface StepResult {
  step: string;
  ok: boolean;
  /** false only for a step that could not run (step 10 offline): ok then means "not failed", not "holds". */
  checked?: false;
  detail?: string;
}

export interface VerificationResult {
  verdict: Verdict;
  card_id: string | null;
  /** Failure code of the first failing step (absent when valid). */
  code?: string;
  message: string;
  steps: StepResult[];
}

const CARD_ID = /^(sia|oly)-[0-9a-f]{32}$/;
/** How far a signer's clock may trail the issuing server's (docs/evidence-0.2.md §Signature). */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;
const CHANNELS = new Set(["provider_api", "local_model", "mcp_session"]);
/** Current assurance values and the historical ones that stay readable (protocol 0.2). */
export const ASSURANCES = new Set([
  "participant_claimed",
  "scoreia_controlled",
  "host_reported",
  "official_host_reported",
  "declared",
]);
const BUNDLE_KEYS = ["card", "card_hash", "key", "manifest", "proof_version", "replay", "signature"];
const SIGNATURE_KEYS = ["alg", "key_id", "sig", "signed_at", "type"];

class StepFailure extends Error {
  constructor(
    readonly step: string,
    readonly code: string,
    message: string,
    readonly verdict: Verdict = "invalid",
  ) {
    super(message);
  }
}

/** Decodes base64url only in its one canonical spelling (trailing bits zero, no padding). */
export function strictBase64url(s: unknown, bytes: number): Buffer | null {
  if (typeof s !== "string" || !/^[A-Za-z0-9_-]*$/.test(s)) return null;
  const b = Buffer.from(s, "base64url");
  if (b.length !== bytes || b.toString("base64url") !== s) return null;
  return b;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameKeys(v: Record<string, unknown>, keys: string[]): boolean {
  return isDeepStrictEqual(Object.keys(v).sort(), [...keys].sort());
}

/**
 * Verifies a proof bundle against a set of trusted public keys (from
 * /.well-known/scoreia-keys.json, a pinned file, or the local keyring). The key embedded in the
 * bundle is only a convenience: it must equal the trusted record.
 */
export function verifyProof(
  bundle: unknown,
  trustedKeys: PublicKeyRecord[],
  knownToolsets: Record<string, string> = {},
  opts: VerifyOptions = {},
): VerificationResult {
  const steps: StepResult[] = [];
  let cardId: string | null = null;
  const pass = (step: string, detail?: string) => steps.push({ step, ok: true, ...(detail ? { detail } : {}) });
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
    const { card, signature, key, manifest, replay } = bundle as unknown as ProofBundle;
    if (!isObject(card) || !isObject(signature) || !isObject(key) || !isObject(manifest) || !isObject(replay)) {
      throw new StepFailure("shape", "proof_malformed", "card, signature, key, manifest and replay must be objects");
    }
    if (!sameKeys(signature as unknown as Record<string, unknown>, SIGNATURE_KEYS)) {
      throw new StepFailure("shape", "proof_malformed", `signature has exactly ${SIGNATURE_KEYS.join(", ")}`);
    }
    cardId = typeof card.card_id === "string" ? card.card_id : null;
    pass("shape");

    // canonical form
    let cardHash: string;
    try {
      cardHash = sha256Tagged(canonicalJson(card));
    } catch (e) {
      throw new StepFailure("canonical_form", "card_not_canonicalizable", (e as Error).message);
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
    if (!isDeepStrictEqual(key, trusted) && !isDeepStrictEqual(key, { ...trusted, not_after: null })) {
      throw new StepFailure("key", "key_mismatch", "the bundle's key record differs from the trusted record");
    }
    const publicKey = strictBase64url(trusted.public_key, 32);
    if (!publicKey || trusted.alg !== "Ed25519") {
      throw new StepFailure("key", "key_malformed", "trusted key is not a raw Ed25519 key");
    }
    if (trusted.key_id !== `ed25519-${publicKey.toString("hex").slice(0, 16)}`) {
      throw new StepFailure("key", "key_malformed", "key_id is not derived from the public key");
    }
    if (!isIsoMs(trusted.not_before) || (trusted.not_after !== null && !isIsoMs(trusted.not_after))) {
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
    if (!verifyEd25519(publicKey, statementBytes(cardHash, signature.key_id, signature.signed_at), sig)) {
      throw new StepFailure("signature", "signature_invalid", "the Ed25519 signature does not verify");
    }
    pass("signature");

    // key window
    if (!isIsoMs(signature.signed_at) || !isIsoMs(card.issued_at)) {
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
    pass("key_window");

    // replay chain
    const head = isObject(card.replay) ? card.replay.head : undefined;
    if (typeof head !== "string") throw new StepFailure("replay", "replay_malformed", "card has no replay.head");
    const problem = verifyReplay(replay, head);
    if (problem) throw new StepFailure("replay", problem.code, problem.message);
    if (replay.card_id !== card.card_id || replay.events.length !== (card.replay as Record<string, unknown>).events) {
      throw new StepFailure("replay", "replay_mismatch", "replay belongs to another card or has another event count");
    }
    pass("replay", head);

    // manifest
    const suite = isObject(card.suite) ? card.suite : {};
    let manifestHash: string;
    try {
      manifestHash = sha256Tagged(canonicalJson(manifest));
    } catch (e) {
      throw new StepFailure("manifest", "manifest_malformed", (e as Error).message);
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
    const logProblem = verifyLog(
      bundle.log,
      { card_id: card.card_id, card_hash: cardHash, signed_at: signature.signed_at },
      trustedKeys,
    );
    if (logProblem) throw new StepFailure("log", logProblem.code, logProblem.message);
    const log = bundle.log as LogProof;
    pass("log", `leaf ${log.index} of ${log.tree_head.tree_size}`);

    // consistency with a newer trusted head
    if (opts.latestHead) {
      const problem = consistencyProblem(log.tree_head, opts.latestHead, trustedKeys);
      if (problem) throw new StepFailure("consistency", problem.code, problem.message);
      const size = (opts.latestHead.tree_head as { tree_size: number }).tree_size;
      pass(
        "consistency",
        `tree head of size ${log.tree_head.tree_size} is consistent with the trusted head of size ${size}`,
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

function policy(card: Record<string, unknown>, knownToolsets: Record<string, string>): void {
  const fail = (code: string, message: string) => {
    throw new StepFailure("policy", code, message);
  };
  if (card.card_version !== "0.2") fail("card_version", "native cards are card_version 0.2");
  if (typeof card.card_id !== "string" || !CARD_ID.test(card.card_id))
    fail("card_id", "card_id must be sia- or oly- + 32 hex");
  if (typeof card.channel !== "string" || !CHANNELS.has(card.channel)) {
    fail("channel", "channel must be provider_api, local_model or mcp_session");
  }
  const identity = isObject(card.identity) ? card.identity : {};
  if (typeof identity.assurance !== "string" || !ASSURANCES.has(identity.assurance)) {
    fail("assurance", "assurance is not a ScoreIA assurance level");
  }
  const toolset = isObject(card.toolset) ? card.toolset : {};
  const known =
    typeof toolset.id === "string" && Object.hasOwn(knownToolsets, toolset.id) ? knownToolsets[toolset.id] : undefined;
  if (known !== undefined && known !== toolset.hash)
    fail("toolset_hash", `toolset ${String(toolset.id)} has another hash`);
}

/** A historical 0.1 or oly-16 card: never signed; only its identifier and optional content hash are checked. */
export function verifyHistorical(card: unknown): VerificationResult {
  if (!isObject(card) || typeof card.card_id !== "string") {
    return { verdict: "invalid", card_id: null, code: "card_malformed", message: "invalid: not a card", steps: [] };
  }
  const steps: StepResult[] = [];
  if (card.card_version !== undefined && card.card_version !== "0.1") {
    return {
      verdict: "invalid",
      card_id: card.card_id,
      code: "card_version",
      message: "invalid: historical cards are card_version 0.1",
      steps,
    };
  }
  if (!/^(sia-[0-9a-f]{16}|oly-[0-9a-f]{16})$/.test(card.card_id)) {
    return {
      verdict: "invalid",
      card_id: card.card_id,
      code: "card_id",
      message: "invalid: historical ids are sia- or oly- + 16 hex",
      steps,
    };
  }
  if (typeof card.content_hash === "string") {
    const { content_hash: _h, ...body } = card;
    if (sha256Tagged(canonicalJson(body)) !== card.content_hash) {
      return {
        verdict: "invalid",
        card_id: card.card_id,
        code: "content_hash_mismatch",
        message: "invalid: content_hash does not match",
        steps,
      };
    }
    steps.push({ step: "content_hash", ok: true });
  }
  return {
    verdict: "unsigned_historical",
    card_id: card.card_id,
    message: `unsigned historical: ${card.card_id} is a 0.1 card; it was never signed and never will be`,
    steps,
  };
}
