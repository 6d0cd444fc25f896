import { isDeepStrictEqual } from "node:util";
import { GENERATOR, type Generator } from "../suites/generator.ts";
import { SUITES } from "../suites/index.ts";
import { generationManifest, roomSeedOf, secretCommitment } from "../suites/secrets.ts";
import type { RoomAction, RoomState, Suite } from "../suites/types.ts";
import { canonicalJson, sha256Tagged } from "./jcs.ts";

export { LEGACY_REVEAL_VERSION, REVEAL_VERSION, type SaltedOpening } from "./replay.ts";

import {
  isIsoMs,
  LEGACY_REVEAL_VERSION,
  markerAt,
  OPENED_LOCATIONS,
  type PublicEvent,
  type PublicReplay,
  REVEAL_VERSION,
  type SaltedOpening,
  saltedDigest,
  valueSalt,
  verifyReplay,
} from "./replay.ts";

/**
 * Offline re-grading of a revealed generation (commit-reveal, docs/evidence-0.2.md §14.5).
 *
 * Given the reveal document of a retired generation (its room secret and the openings, each with
 * its value salt, of the commitments re-grading reads) and a card's proof bundle, this
 * rebuilds the card's room with the suite code of this build, opens every commitment of the
 * public replay that the reveal opens, replays the submitted values through the room and
 * compares every recorded outcome, the verdict and the card's counts with what the room says.
 * Nothing here trusts the server beyond the documents it is given.
 */

export interface RevealDocument {
  reveal_version: typeof REVEAL_VERSION;
  suite_id: string;
  generation: string;
  manifest_hash: string;
  secret: string;
  revealed_at: string;
  /** The room generator the generation's manifest names (§14.1), or null for one that names none. */
  generator: Generator | null;
  openings: Record<string, SaltedOpening[]>;
}

/** Input that cannot be re-graded at all: `scoreia regrade` exits 7 with this code. */
export class RegradeRefusal extends Error {
  constructor(
    readonly code:
      | "reveal_malformed"
      | "suite_unknown"
      | "generator_mismatch"
      | "secret_mismatch"
      | "proof_malformed"
      | "card_not_in_reveal",
    message: string,
  ) {
    super(message);
    this.name = "RegradeRefusal";
  }
}

/** Why a card disagrees with its re-grade. */
export type DisagreementCode =
  | "replay_chain_broken"
  | "replay_head_mismatch"
  | "replay_malformed"
  | "manifest_mismatch"
  | "opening_missing"
  | "opening_mismatch"
  | "opening_unexpected"
  | "action_mismatch"
  | "verdict_mismatch"
  | "count_mismatch";

export type RegradeResult =
  | { card_id: string; status: "agrees"; verdict: string; actions: number; opened: number }
  | { card_id: string; status: "disagrees"; code: DisagreementCode; message: string }
  | { card_id: string; status: "refused"; code: RegradeRefusal["code"]; message: string };

class Disagreement extends Error {
  constructor(
    readonly code: DisagreementCode,
    message: string,
  ) {
    super(message);
  }
}

const HEX64 = /^[0-9a-f]{64}$/;
const REVEAL_KEYS = [
  "generation",
  "generator",
  "manifest_hash",
  "openings",
  "reveal_version",
  "revealed_at",
  "secret",
  "suite_id",
];
const LEGACY_REVEAL_KEYS = [...REVEAL_KEYS.filter((k) => k !== "generator"), "replay_salts"].sort();

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A legacy reveal's replay salts, one per card its openings name (checked, then as bytes). */
function legacySalts(replaySalts: unknown, openings: Record<string, unknown>): Record<string, Buffer> {
  if (!isObject(replaySalts) || !Object.values(replaySalts).every((s) => typeof s === "string" && HEX64.test(s))) {
    throw new RegradeRefusal("reveal_malformed", "replay_salts maps card ids to 64 lowercase hex digits");
  }
  for (const id of Object.keys(openings)) {
    if (!(id in replaySalts)) throw new RegradeRefusal("reveal_malformed", `openings name ${id}, which has no salt`);
  }
  return Object.fromEntries(Object.entries(replaySalts).map(([id, s]) => [id, Buffer.from(s as string, "hex")]));
}

/**
 * Checks a reveal document's shape and that its secret is the one the generation committed to:
 * the manifest this build's suite code gives for the generation and the secret must hash to the
 * reveal's manifest_hash (so a wrong secret, or suite code other than the generation's, refuses).
 */
export function checkReveal(doc: unknown): { reveal: RevealDocument; suite: Suite; secret: Buffer } {
  if (!isObject(doc)) throw new RegradeRefusal("reveal_malformed", "the reveal document is not a JSON object");
  const legacy = doc.reveal_version === LEGACY_REVEAL_VERSION;
  const expected = legacy ? LEGACY_REVEAL_KEYS : REVEAL_KEYS;
  const keys = Object.keys(doc).sort();
  if (keys.length !== expected.length || keys.some((k, i) => k !== expected[i])) {
    throw new RegradeRefusal("reveal_malformed", `a reveal document has exactly the members ${expected.join(", ")}`);
  }
  if (doc.reveal_version !== REVEAL_VERSION && !legacy) {
    throw new RegradeRefusal(
      "reveal_malformed",
      `reveal_version is not ${REVEAL_VERSION} (nor ${LEGACY_REVEAL_VERSION})`,
    );
  }
  if (typeof doc.suite_id !== "string" || typeof doc.generation !== "string" || typeof doc.manifest_hash !== "string") {
    throw new RegradeRefusal("reveal_malformed", "suite_id, generation and manifest_hash are strings");
  }
  if (typeof doc.secret !== "string" || !HEX64.test(doc.secret)) {
    throw new RegradeRefusal("reveal_malformed", "secret is 64 lowercase hex digits");
  }
  if (!isIsoMs(doc.revealed_at)) throw new RegradeRefusal("reveal_malformed", "revealed_at is not a timestamp (§1.5)");
  if (!isObject(doc.openings) || !Object.values(doc.openings).every(Array.isArray)) {
    throw new RegradeRefusal("reveal_malformed", "openings maps card ids to arrays of openings");
  }
  const salts = legacy ? legacySalts(doc.replay_salts, doc.openings) : null;
  const members = legacy ? "location,seq,value" : "location,salt,seq,value";
  const openings: Record<string, SaltedOpening[]> = {};
  for (const [id, list] of Object.entries(doc.openings as Record<string, unknown[]>)) {
    openings[id] = list.map((o) => {
      if (
        !isObject(o) ||
        Object.keys(o).sort().join(",") !== members ||
        !Number.isSafeInteger(o.seq) ||
        typeof o.location !== "string" ||
        (!legacy && (typeof o.salt !== "string" || !HEX64.test(o.salt)))
      ) {
        throw new RegradeRefusal(
          "reveal_malformed",
          `an opening of ${id} is not exactly {${members.split(",").join(", ")}}`,
        );
      }
      const salt = salts
        ? valueSalt(salts[id] as Buffer, o.seq as number, o.location).toString("hex")
        : (o.salt as string);
      return { seq: o.seq as number, location: o.location, value: o.value, salt };
    });
  }
  const generator = legacy ? null : doc.generator;
  if (
    generator !== null &&
    !(
      isObject(generator) &&
      Object.keys(generator).sort().join(",") === "package,source_hash" &&
      typeof generator.package === "string" &&
      typeof generator.source_hash === "string"
    )
  ) {
    throw new RegradeRefusal("reveal_malformed", "generator is null or exactly {package, source_hash}");
  }
  const r: RevealDocument = {
    reveal_version: REVEAL_VERSION,
    generator: generator as Generator | null,
    suite_id: doc.suite_id,
    generation: doc.generation,
    manifest_hash: doc.manifest_hash,
    secret: doc.secret,
    revealed_at: doc.revealed_at as string,
    openings,
  };
  const suite = SUITES[r.suite_id];
  if (!suite) {
    throw new RegradeRefusal(
      "suite_unknown",
      `suite ${r.suite_id} is not in this build (${Object.keys(SUITES).join(", ")})`,
    );
  }
  if (r.generator && r.generator.source_hash !== GENERATOR.source_hash) {
    throw new RegradeRefusal(
      "generator_mismatch",
      `${r.suite_id} ${r.generation} was built by ${r.generator.package} with suite source ${r.generator.source_hash}; this build (${GENERATOR.package}) has ${GENERATOR.source_hash}: re-grade with the generation's code (docs/evidence-0.2.md §14.6)`,
    );
  }
  const secret = Buffer.from(r.secret, "hex");
  const rebuilt = sha256Tagged(canonicalJson(generationManifest(suite, r.generation, secret, r.generator)));
  if (rebuilt !== r.manifest_hash) {
    throw new RegradeRefusal(
      "secret_mismatch",
      `${r.suite_id} ${r.generation}: the manifest this build's suite code gives with the revealed secret (commitment ${secretCommitment(secret)}) hashes to ${rebuilt}, not the reveal's ${r.manifest_hash}: a wrong secret, or suite code other than the generation's`,
    );
  }
  return { reveal: r, suite, secret };
}

interface BundleParts {
  card: Record<string, unknown>;
  manifest: Record<string, unknown>;
  replay: PublicReplay;
}

function bundleParts(bundle: unknown): BundleParts {
  if (!isObject(bundle) || !isObject(bundle.card) || !isObject(bundle.manifest) || !isObject(bundle.replay)) {
    throw new RegradeRefusal("proof_malformed", "a proof bundle is an object with card, manifest and replay (§8.1)");
  }
  return bundle as unknown as BundleParts;
}

function cardIdOf(bundle: unknown): string {
  const id = isObject(bundle) && isObject(bundle.card) ? bundle.card.card_id : undefined;
  return typeof id === "string" ? id : "(no card_id)";
}

/** Re-grades one proof bundle against a checked reveal. Never throws for a card's content. */
export function regradeCard(checked: ReturnType<typeof checkReveal>, bundle: unknown): RegradeResult {
  const cardId = cardIdOf(bundle);
  try {
    const parts = bundleParts(bundle);
    return regrade(checked, parts, cardId);
  } catch (e) {
    if (e instanceof RegradeRefusal) return { card_id: cardId, status: "refused", code: e.code, message: e.message };
    if (e instanceof Disagreement) return { card_id: cardId, status: "disagrees", code: e.code, message: e.message };
    throw e;
  }
}

/** The value behind each committed location the reveal opens, checked against its marker. */
function openEvents(
  events: Array<PublicEvent & { hash: string }>,
  openings: SaltedOpening[],
): { opened: Map<string, unknown>; count: number } {
  const opened = new Map<string, unknown>();
  for (const o of openings) {
    const e = events[o.seq];
    const marker = e ? markerAt(e, o.location) : undefined;
    if (!e || !(OPENED_LOCATIONS[e.kind] ?? []).includes(o.location) || !isObject(marker)) {
      throw new Disagreement(
        "opening_unexpected",
        `an opening names event ${o.seq} ${o.location}, which holds no commitment a reveal opens`,
      );
    }
    const expected = saltedDigest(Buffer.from(o.salt, "hex"), o.value);
    if (marker.redacted !== expected) {
      throw new Disagreement(
        "opening_mismatch",
        `event ${o.seq} ${o.location}: the opened value does not hash to its commitment`,
      );
    }
    opened.set(`${o.seq}:${o.location}`, o.value);
  }
  // Every commitment a reveal opens must be opened: none of the values re-grading reads is hidden.
  for (const e of events) {
    for (const location of OPENED_LOCATIONS[e.kind] ?? []) {
      const m = markerAt(e, location);
      if (isObject(m) && "redacted" in m && !opened.has(`${e.seq}:${location}`)) {
        throw new Disagreement(
          "opening_missing",
          `event ${e.seq} ${location} is committed but the reveal does not open it`,
        );
      }
    }
  }
  return { opened, count: openings.length };
}

function same(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

function regrade(checked: ReturnType<typeof checkReveal>, parts: BundleParts, cardId: string): RegradeResult {
  const { reveal, suite, secret } = checked;
  const { card, replay } = parts;
  const suiteRef = card.suite as { id?: unknown; generation?: unknown; manifest_hash?: unknown } | undefined;
  if (
    suiteRef?.id !== reveal.suite_id ||
    suiteRef?.generation !== reveal.generation ||
    suiteRef?.manifest_hash !== reveal.manifest_hash
  ) {
    throw new RegradeRefusal(
      "card_not_in_reveal",
      `${cardId} is a card of ${String(suiteRef?.id)} ${String(suiteRef?.generation)}, not of the revealed ${reveal.suite_id} ${reveal.generation}`,
    );
  }
  const openings = reveal.openings[cardId];
  if (!openings) throw new RegradeRefusal("card_not_in_reveal", `the reveal has no openings for ${cardId}`);
  if (sha256Tagged(canonicalJson(parts.manifest)) !== reveal.manifest_hash) {
    throw new Disagreement("manifest_mismatch", `${cardId}: the bundle's manifest does not hash to the generation's`);
  }
  const head = (card.replay as { head?: unknown } | undefined)?.head;
  const chain = verifyReplay(replay, typeof head === "string" ? head : "");
  if (chain) throw new Disagreement(chain.code, chain.message);

  const events = replay.events;
  const { opened, count } = openEvents(events, openings);
  const seed = card.seed;
  if (typeof seed !== "string") throw new RegradeRefusal("proof_malformed", `${cardId} has no seed`);
  const roomSeed = roomSeedOf(secret, seed);
  let state: RoomState = suite.init(roomSeed);

  const enter = events[0] as PublicEvent;
  const entryObjects = (enter.response as { objects?: unknown }).objects;
  if (!same(entryObjects, suite.objects(roomSeed, state))) {
    throw new Disagreement(
      "action_mismatch",
      `the entry shows objects ${JSON.stringify(entryObjects)}, the room has others`,
    );
  }
  let actions = 0;
  let quarantined = false;
  for (const e of events) {
    if (e.kind === "quarantine") quarantined = true;
    if (e.kind !== "action") continue;
    actions++;
    const at = `event ${e.seq} (action ${actions})`;
    if (e.action_index !== actions)
      throw new Disagreement("action_mismatch", `${at} has action_index ${e.action_index}`);
    const req = e.request as Record<string, unknown>;
    const res = e.response as Record<string, unknown>;
    const action: RoomAction = {
      op: req.op as RoomAction["op"],
      ...(req.object !== undefined ? { object: req.object as string } : {}),
      ...(opened.has(`${e.seq}:request.value`) ? { value: opened.get(`${e.seq}:request.value`) as string } : {}),
    };
    const outcome = suite.act(roomSeed, state, action);
    if (outcome.kind === "refused") {
      throw new Disagreement(
        "action_mismatch",
        `${at}: the room refuses ${action.op} (${outcome.code}), the card counts it`,
      );
    }
    const result = outcome.correct === undefined ? undefined : outcome.correct ? "correct" : "wrong";
    if (res.result !== result) {
      throw new Disagreement(
        "action_mismatch",
        `${at}: ${action.op} is ${String(result)} in the room, ${String(res.result)} in the replay`,
      );
    }
    if (!same(opened.get(`${e.seq}:response.observation`), outcome.observation)) {
      throw new Disagreement("action_mismatch", `${at}: the recorded observation is not what the room shows`);
    }
    if (!same(opened.get(`${e.seq}:private`) ?? null, outcome.private ?? null)) {
      throw new Disagreement("action_mismatch", `${at}: the recorded private facts are not the room's`);
    }
    if (!same(res.progress, suite.tally(outcome.state))) {
      throw new Disagreement(
        "action_mismatch",
        `${at}: progress ${JSON.stringify(res.progress)}, the room counts ${JSON.stringify(suite.tally(outcome.state))}`,
      );
    }
    if (!same(res.objects, suite.objects(roomSeed, outcome.state))) {
      throw new Disagreement("action_mismatch", `${at}: the objects shown are not the room's`);
    }
    state = outcome.state;
  }

  const attempt = card.attempt as Record<string, unknown>;
  const tally = suite.tally(state);
  const counts: Array<[string, unknown, number]> = [
    ["actions_used", attempt?.actions_used, actions],
    ["hints_used", attempt?.hints_used, tally.hints_used],
    ["wrong_submissions", attempt?.wrong_submissions, tally.wrong_submissions],
    ["stages_cleared", attempt?.stages_cleared, tally.stages_cleared],
    ["stages_total", attempt?.stages_total, tally.stages_total],
  ];
  for (const [name, onCard, regraded] of counts) {
    if (onCard !== regraded) {
      throw new Disagreement(
        "count_mismatch",
        `${cardId}: attempt.${name} is ${String(onCard)}, the re-grade counts ${regraded}`,
      );
    }
  }
  // The verdict by the Chamber's rule (docs/chamber.md): solved, quarantined, expired, failed, exhausted, abandoned.
  const seal = events[events.length - 1] as PublicEvent;
  const expiresAt = (enter.response as { expires_at?: unknown }).expires_at;
  const expired = typeof expiresAt === "string" && Date.parse(seal.at) >= Date.parse(expiresAt);
  const maxActions = attempt?.max_actions;
  const verdict = suite.solved(state)
    ? "solved"
    : quarantined
      ? "quarantined"
      : expired
        ? "expired"
        : suite.failed(state)
          ? "failed"
          : actions >= (maxActions as number)
            ? "exhausted"
            : "abandoned";
  if (card.verdict !== verdict || (seal.response as { verdict?: unknown }).verdict !== verdict) {
    throw new Disagreement(
      "verdict_mismatch",
      `${cardId}: the card says ${String(card.verdict)}, the re-grade says ${verdict}`,
    );
  }
  return { card_id: cardId, status: "agrees", verdict, actions, opened: count };
}
