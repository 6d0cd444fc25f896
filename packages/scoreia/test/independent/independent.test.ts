// Independent verification of Evidence 0.2 proof bundles.
//
// The verifier (./verifier.mjs) is written from docs/evidence-0.2.md alone and imports nothing from
// the repository. This file drives the real Chamber (test harness) to produce real bundles, checks
// that the independent verifier accepts them, that tampered variants fail with the code the doc
// predicts, and that the doc's own worked example (§12) and stated hashes check.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CardRegistry } from "../../src/evidence/registry.ts";
import { parseStrictJson } from "../../src/evidence/strict-json.ts";
import { verifyProof } from "../../src/evidence/verify.ts";
import { type Harness, harness, IDENTITY } from "../support/chamber.ts";
import {
  b64urlStrict,
  GENESIS,
  Hc,
  instant,
  JcsError,
  jcs,
  KNOWN_TOOLSETS,
  logLeafHash,
  manifestHash,
  marker,
  merkleNode,
  toolsetHash,
  type VerifyResult,
  valueSalt,
  verify,
  verifyHistorical,
  verifyText,
} from "./verifier.mjs";

// Bundles are untyped JSON: tests poke at arbitrary members.
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON documents
type J = any;

const DOC = readFileSync(new URL("../../../../docs/evidence-0.2.md", import.meta.url), "utf8");
const SEED_000 = readFileSync(new URL("../../../../testdata/seeds/000_40e35d97c34d900d.txt", import.meta.url), "utf8");
const SIG_TYPE = "scoreia.card.signature/0.2";
const ALL_STEPS = [
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
];

const clone = <T>(v: T): T => structuredClone(v);
const sha256hex = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");
const utf8len = (s: string) => Buffer.byteLength(s, "utf8");

// ---------------------------------------------------------------------------------------------
// doc extraction

/** The text of the section whose heading line starts with `heading`, up to the next heading. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const body = DOC.slice(start + 1 + heading.length);
  const end = body.search(/\n#{2,4} /);
  return end < 0 ? body : body.slice(0, end);
}

function fences(text: string, lang: string): string[] {
  const out: string[] = [];
  const re = /```(\w*)\n([\s\S]*?)\n```/g;
  for (let m = re.exec(text); m; m = re.exec(text)) if (m[1] === lang) out.push(m[2]!);
  return out;
}

/** The capture groups of the first match of `re` in `text` (missing groups read as ""). */
function firstMatch(text: string, re: RegExp): [string, string, string, string] {
  const m = re.exec(text);
  if (!m) throw new Error(`doc does not match ${re}`);
  const g = m.slice(1).map((x) => x ?? "");
  return [g[0] ?? "", g[1] ?? "", g[2] ?? "", g[3] ?? ""];
}

// ---------------------------------------------------------------------------------------------
// helpers to forge / re-sign with a key of our own

interface TestKey {
  privateKey: KeyObject;
  record: J;
}

function testKey(notBefore = "2000-01-01T00:00:00.000Z", notAfter: string | null = null): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
  return {
    privateKey,
    record: {
      key_id: `ed25519-${raw.subarray(0, 8).toString("hex")}`,
      alg: "Ed25519",
      public_key: raw.toString("base64url"),
      not_before: notBefore,
      not_after: notAfter,
    },
  };
}

/** A one-leaf log (§15) for the bundle's card, its tree head signed by `key` at `signed_at`. */
function relog(b: J, key: TestKey): J {
  const signedAt = b.signature.signed_at;
  const leaf = {
    type: "scoreia.log.leaf/0.2",
    card_id: b.card.card_id,
    card_hash: b.card_hash,
    signed_at: signedAt,
    logged_at: signedAt,
  };
  const root = `sha256:${logLeafHash(leaf).toString("hex")}`;
  return { index: 0, leaf, tree_head: signHead(key, 1, root, signedAt), inclusion: [] };
}

function signHead(key: TestKey, treeSize: number, rootHash: string, timestamp: string): J {
  const head = {
    type: "scoreia.log.tree_head/0.2",
    tree_size: treeSize,
    root_hash: rootHash,
    timestamp,
    key_id: key.record.key_id,
  };
  return { ...head, sig: sign(null, Buffer.from(jcs(head), "utf8"), key.privateKey).toString("base64url") };
}

/** Recomputes card_hash and a signature by `key` over the (possibly modified) card, and its log. */
function resign(b: J, key: TestKey, signedAt: string = b.card.issued_at): J {
  const out = clone(b);
  out.card_hash = Hc(out.card);
  const statement = jcs({ type: SIG_TYPE, card: out.card_hash, key_id: key.record.key_id, signed_at: signedAt });
  out.signature = {
    type: SIG_TYPE,
    alg: "Ed25519",
    key_id: key.record.key_id,
    signed_at: signedAt,
    sig: sign(null, Buffer.from(statement, "utf8"), key.privateKey).toString("base64url"),
  };
  out.key = clone(key.record);
  out.log = relog(out, key);
  return out;
}

/** Renumbers (unless `keepSeq`) and re-hashes the whole chain (§7.3); sets replay.head. */
function rechain(replay: J, keepSeq = false): void {
  let prev = GENESIS;
  replay.events.forEach((e: J, i: number) => {
    if (!keepSeq) e.seq = i;
    e.prev = prev;
    delete e.hash;
    e.hash = Hc(e);
    prev = e.hash;
  });
  replay.head = prev;
}

const expectCode = (r: VerifyResult, code: string, verdict = "invalid") => {
  expect({ verdict: r.verdict, code: r.code }).toEqual({ verdict, code });
};

const plusMs = (ts: string, ms: number) => new Date(Date.parse(ts) + ms).toISOString();

// ---------------------------------------------------------------------------------------------
// real artefacts

interface Fixture {
  name: string;
  suite: string;
  bundle: J;
  /** Successful tool results, in order, as the client saw them (for the redaction checks). */
  calls: { tool: string; args: J; result: J }[];
}

let h: Harness;
let reg: CardRegistry;
let keysDoc: J;
const fixtures: Fixture[] = [];

class Driver {
  calls: Fixture["calls"] = [];
  handle = "";
  index = 0;
  constructor(private readonly h: Harness) {}

  async tool(tool: string, args: J): Promise<J> {
    this.h.clock.advance(1250);
    const res = await this.h.call(tool, args);
    const sc = res.structuredContent as J;
    if (res.isError || sc?.ok === false) return { error: sc };
    this.calls.push({ tool, args, result: sc });
    return sc;
  }

  async enter(args: J): Promise<J> {
    const r = await this.tool("enter_open_challenge", { ...IDENTITY, ...args });
    if (r.error) throw new Error(`enter failed: ${JSON.stringify(r.error)}`);
    this.handle = r.attempt_handle;
    this.index = r.action_index;
    return r;
  }

  async act(op: string, extra: J = {}): Promise<J> {
    const r = await this.tool("chamber_action", {
      challenge_handle: this.handle,
      op,
      ...extra,
      expected_action_index: this.index,
    });
    if (r.error) throw new Error(`${op} failed: ${JSON.stringify(r.error)}`);
    this.index = r.action_index;
    return r;
  }

  async seal(): Promise<string> {
    const r = await this.tool("seal_attempt", { challenge_handle: this.handle });
    if (r.error) throw new Error(`seal failed: ${JSON.stringify(r.error)}`);
    return r.card_id;
  }
}

/** Submits distinct wrong chrono orders until `count` were judged wrong (or the room ended). */
async function wrongSequences(d: Driver, count: number): Promise<void> {
  const log = await d.act("inspect", { object: "logbook" });
  const ids: string[] = log.observation.data.events.map((e: J) => e.id);
  const candidates = [...ids.map((_, k) => [...ids.slice(k), ...ids.slice(0, k)]), [...ids].reverse()];
  let wrong = 0;
  for (const value of candidates) {
    if (wrong >= count) break;
    const r = await d.act("submit_sequence", { value });
    if (r.result === "wrong") wrong++;
    if (r.terminal || r.result !== "wrong") break;
  }
  expect(wrong).toBeGreaterThan(0);
}

/** Submits wrong atelier bin assignments (every part in one bin). */
async function wrongBins(d: Driver, entry: J, count: number): Promise<void> {
  const parts = (entry.objects as string[]).filter((o) => o !== "manual" && !o.startsWith("bin-"));
  let wrong = 0;
  for (const bin of ["bin-a", "bin-b", "bin-c"]) {
    if (wrong >= count) break;
    const r = await d.act("submit_bins", { value: parts.map((p) => `${p}:${bin}`) });
    if (r.result === "wrong" || r.observation?.data?.correct === false) wrong++;
    else break;
  }
  expect(wrong).toBeGreaterThan(0);
}

async function record(name: string, suite: string, d: Driver, cardId: string) {
  const bundle = await reg.proof(cardId);
  // Use the document as a client receives it: JSON text, parsed.
  fixtures.push({ name, suite, bundle: JSON.parse(JSON.stringify(bundle)), calls: d.calls });
}

beforeAll(async () => {
  h = await harness("sqlite");
  reg = new CardRegistry(h.db);

  {
    // chrono: look, inspect, one wrong submission, a hint, observe (no event), help, seal
    const d = new Driver(h);
    await d.enter({
      suite: "chambre-chrono-v0",
      seed: "indep-chrono-a",
      route_key: "route-indep-01",
      participation_class: "sponsored",
      preflight: { tools_visible: true, no_intervention_confirmed: true },
    });
    await d.act("look");
    await wrongSequences(d, 1);
    await d.act("hint");
    await d.tool("observe_chamber", { challenge_handle: d.handle });
    const help = await d.tool("call_for_help", { challenge_handle: d.handle, ally: "composer-3" });
    expect(help.error).toBeUndefined();
    const cardId = await d.seal();
    // A repeated seal writes no event (§7.1) and changes nothing.
    const again = await h.sc("seal_attempt", { challenge_handle: d.handle });
    expect(again.card_id).toBe(cardId);
    await record("chrono/help+hint+wrong", "chambre-chrono-v0", d, cardId);
  }
  {
    // chrono: jam stage 1 with three wrong submissions -> verdict failed
    const d = new Driver(h);
    await d.enter({ suite: "chambre-chrono-v0", seed: "indep-chrono-b" });
    await wrongSequences(d, 3);
    await record("chrono/jammed", "chambre-chrono-v0", d, await d.seal());
  }
  {
    // chrono: non-ASCII declared model, enter + seal only
    const d = new Driver(h);
    await d.enter({ suite: "chambre-chrono-v0", seed: "graine-été-😀", model_claim: "modèle «ß» 😀 \u2028 fin" });
    await record("chrono/minimal-unicode", "chambre-chrono-v0", d, await d.seal());
  }
  {
    // atelier: look, one wrong submission, seal
    const d = new Driver(h);
    const entry = await d.enter({ suite: "chambre-atelier-v0", seed: "indep-atelier-a" });
    await d.act("look");
    await wrongBins(d, entry, 1);
    await record("atelier/wrong", "chambre-atelier-v0", d, await d.seal());
  }
  {
    // atelier: server seed, inspect, two wrong submissions, hint, seal
    const d = new Driver(h);
    const entry = await d.enter({ suite: "chambre-atelier-v0" });
    await d.act("inspect", { object: "manual" });
    await wrongBins(d, entry, 2);
    await d.act("hint");
    await record("atelier/server-seed", "chambre-atelier-v0", d, await d.seal());
  }
  keysDoc = { keys: await reg.keys() };
});

afterAll(async () => {
  await h?.close();
});

const byName = (name: string) => {
  const f = fixtures.find((x) => x.name === name);
  if (!f) throw new Error(`no fixture ${name}`);
  return f;
};
const richChrono = () => clone(byName("chrono/help+hint+wrong").bundle);
const richAtelier = () => clone(byName("atelier/wrong").bundle);

// ---------------------------------------------------------------------------------------------

describe("real bundles verify", () => {
  it("every real card is valid, with the ten steps and their details (step 10 unchecked offline)", () => {
    expect(fixtures.length).toBe(5);
    for (const { name, bundle } of fixtures) {
      const r = verify(bundle, keysDoc);
      expect(r, name).toMatchObject({ verdict: "valid" });
      expect(r.code).toBeUndefined();
      expect(r.steps.map((s) => s.step)).toEqual(ALL_STEPS);
      const detail = Object.fromEntries(r.steps.map((s) => [s.step, s.detail]));
      expect(detail.canonical_form).toBe(bundle.card_hash);
      expect(detail.key).toBe(bundle.signature.key_id);
      expect(detail.replay).toBe(bundle.card.replay.head);
      expect(detail.manifest).toBe(bundle.card.suite.manifest_hash);
      expect(detail.log).toBe(`leaf ${bundle.log.index} of ${bundle.log.tree_head.tree_size}`);
      expect(r.steps.at(-1)).toMatchObject({ step: "consistency", ok: true, checked: false });
      expect(detail.consistency).toMatch(/^not checked: /);
      // and the reference verifier agrees, step for step
      const ours = verifyProof(bundle, keysDoc.keys, KNOWN_TOOLSETS);
      expect(ours.verdict).toBe("valid");
      expect(ours.steps.map((s) => [s.step, s.detail])).toEqual(r.steps.map((s) => [s.step, s.detail]));
    }
    // the five cards sit in one log: later bundles carry non-empty audit paths
    expect(fixtures.map((f) => f.bundle.log.index)).toEqual([0, 1, 2, 3, 4]);
    expect(fixtures.at(-1)!.bundle.log.inclusion.length).toBeGreaterThan(0);
  });

  it("covers both suites and events with private markers", () => {
    for (const suite of ["chambre-chrono-v0", "chambre-atelier-v0"]) {
      const events = fixtures.filter((f) => f.suite === suite).flatMap((f) => f.bundle.replay.events);
      expect(events.some((e: J) => e.private !== null)).toBe(true);
    }
    const kinds = new Set(fixtures.flatMap((f) => f.bundle.replay.events.map((e: J) => e.kind)));
    expect([...kinds].sort()).toEqual(["action", "call_for_help", "enter", "seal"]);
    expect(byName("chrono/jammed").bundle.card.verdict).toBe("failed");
    expect(byName("atelier/server-seed").bundle.card.seed_source).toBe("server");
    expect(byName("atelier/server-seed").bundle.card.seed).toMatch(/^s-[0-9a-f]{16}$/);
  });

  it("stays valid whatever the member order and number spelling of the received text (§1.1)", () => {
    const reorder = (v: J): J =>
      Array.isArray(v)
        ? v.map(reorder)
        : v && typeof v === "object"
          ? Object.fromEntries(
              Object.keys(v)
                .reverse()
                .map((k) => [k, reorder(v[k])]),
            )
          : v;
    for (const { bundle } of fixtures) {
      expect(verify(reorder(bundle), keysDoc).verdict).toBe("valid");
      const text = JSON.stringify(bundle, null, 3).replaceAll('"max_actions": 64', '"max_actions": 6.4e1');
      expect(text).toContain("6.4e1");
      expect(verify(JSON.parse(text), keysDoc).verdict).toBe("valid");
    }
  });

  it("the manifests and toolset are the ones the doc states (§3, §4)", () => {
    const table = section("## 4. Suite manifest hash");
    for (const { suite, bundle } of fixtures) {
      const [gen, engine, size, hash] = firstMatch(
        table,
        new RegExp(`\\| \`${suite}\` \\| \`(\\d+)\` \\| \`(\\w+)\` \\| (\\d+) bytes \\| \`(sha256:[0-9a-f]{64})\` \\|`),
      );
      // §14.1: new cards bind a generation with a room secret, `<base>.<8 hex of the commitment>`,
      // whose manifest is the §4 one with that generation, a `room_secret` member and (generations
      // created since it exists) a `generator` member naming the package and its suites' source.
      const { room_secret, generator, ...base } = bundle.manifest;
      expect(generator).toEqual({
        package: expect.stringMatching(/^scoreia@\d+\.\d+\.\d+$/),
        source_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      expect(room_secret).toEqual({
        commitment: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        derivation: "room seed = lowercase hex of HMAC-SHA256(key = secret, message = UTF-8(seed))",
      });
      expect(bundle.manifest.generation).toBe(`${gen}.${room_secret.commitment.slice(7, 15)}`);
      expect(manifestHash({ ...base, generation: gen })).toBe(hash);
      expect(utf8len(jcs({ ...base, generation: gen }))).toBe(Number(size));
      expect(bundle.card.suite).toEqual({
        id: suite,
        generation: bundle.manifest.generation,
        engine,
        manifest_hash: manifestHash(bundle.manifest),
      });
      expect(Object.keys(base).sort()).toEqual(
        [
          "suite_id",
          "generation",
          "engine",
          "title",
          "summary",
          "ops",
          "objects",
          "stages",
          "scoring",
          "limits",
        ].sort(),
      );
      expect(bundle.card.toolset).toEqual({
        id: "scoreia-chamber-tools/0.3.2",
        hash: KNOWN_TOOLSETS["scoreia-chamber-tools/0.3.2"],
      });
    }
  });

  it("cards, keys and replays have the documented shape and content (§2, §6, §7)", () => {
    for (const { name, bundle, calls } of fixtures) {
      const { card, replay, key, signature } = bundle;
      expect(Object.keys(card).length, name).toBe(17);
      expect(typeof card.seed_sealed_before).toBe("boolean"); // §2.1, cards since issue 16
      expect(Object.keys(key).sort()).toEqual(["alg", "key_id", "not_after", "not_before", "public_key"]);
      expect(b64urlStrict(key.public_key, 32)).not.toBeNull();
      expect(b64urlStrict(signature.sig, 64)).not.toBeNull();
      expect(Object.keys(replay).sort()).toEqual(["card_id", "events", "head", "replay_version"]);
      const events: J[] = replay.events;
      const first = events[0];
      const last = events.at(-1);
      // §2.1 / §2.4 relations (not checked by the reference verifier, §13 item 2, but stated)
      expect(card.issued_at).toBe(last.at);
      expect(card.attempt.entered_at).toBe(first.at);
      expect(card.replay.events).toBe(events.length);
      const actions = events.filter((e) => e.kind === "action");
      expect(card.attempt.actions_used).toBe(actions.length ? actions.at(-1).action_index : 0);
      expect(Date.parse(card.attempt.ended_at) - Date.parse(card.attempt.entered_at)).toBe(card.attempt.duration_ms);
      expect(last.response).toEqual({ card_id: card.card_id, verdict: card.verdict });
      // §2.4 counters from the suite's tally; ended_at = terminal time, else the seal time
      const lastProgress = actions.length ? actions.at(-1).response.progress : null;
      const tally = lastProgress ?? {
        stages_total: card.suite.id === "chambre-chrono-v0" ? 5 : 4,
        stages_cleared: 0,
        hints_used: 0,
        wrong_submissions: 0,
      };
      for (const f of ["stages_total", "stages_cleared", "hints_used", "wrong_submissions"]) {
        expect(card.attempt[f], `${name} ${f}`).toBe(tally[f]);
      }
      const terminalAction = actions.find((e) => e.response.terminal === true);
      expect(card.attempt.ended_at).toBe(terminalAction ? terminalAction.at : last.at);
      expect(card.verdict).toBe(terminalAction ? "failed" : "abandoned");
      expect(card.attempt.max_actions).toBe(64);
      const times = events.map((e) => Date.parse(e.at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      for (const e of events) {
        expect(e.action_index === null).toBe(e.kind !== "action");
      }

      // §7.2 redaction, widened by §14.2 for generations with a room secret, against what the
      // client actually sent and received
      const eventCalls = calls.filter((c) => c.tool !== "observe_chamber");
      expect(eventCalls.length).toBe(events.length);
      const markers = new Set<string>();
      let count = 0;
      const isMarker = (m: J) => {
        expect(Object.keys(m)).toEqual(["redacted"]);
        expect(m.redacted).toMatch(/^sha256:[0-9a-f]{64}$/);
        markers.add(m.redacted);
        count++;
      };
      const REDACTED: Record<string, { request: string[]; response: string[] }> = {
        action: { request: ["challenge_handle", "value"], response: ["attempt_handle", "observation"] },
        call_for_help: {
          request: ["challenge_handle"],
          response: ["attempt_handle", "ally_seed", "ally_instructions"],
        },
      };
      const opened = (sent: J, published: J, names: string[]) => {
        const rest = { ...sent };
        const pub = { ...published };
        for (const n of names) {
          if (Object.hasOwn(sent, n)) isMarker(pub[n]);
          else expect(pub[n]).toBeUndefined();
          delete rest[n];
          delete pub[n];
        }
        expect(pub).toEqual(rest);
      };
      events.forEach((e, i) => {
        const call = eventCalls[i]!;
        const red = REDACTED[e.kind] ?? { request: ["challenge_handle"], response: ["attempt_handle"] };
        opened(call.args, e.request, red.request);
        if (e.kind === "seal") return;
        opened(call.result, e.response, red.response);
        if (e.private !== null) isMarker(e.private);
        const submission = e.kind === "action" && String(e.request.op).startsWith("submit_");
        expect(e.private !== null).toBe(submission);
      });
      // the same value gets a different marker at every location
      expect(markers.size).toBe(count);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("tampered real bundles fail as the doc predicts", () => {
  const forAll = (fn: (b: J, f: Fixture) => void) => {
    for (const f of fixtures) fn(clone(f.bundle), f);
  };

  describe("step 1 shape", () => {
    it("bundle members and proof_version", () => {
      forAll((b) => {
        expectCode(verify({ ...b, extra: 1 }, keysDoc), "proof_malformed");
        const { manifest: _m, ...noManifest } = b;
        expectCode(verify(noManifest, keysDoc), "proof_malformed");
        expectCode(verify({ ...b, proof_version: "scoreia-proof/0.1" }, keysDoc), "proof_malformed");
        expectCode(verify({ ...b, manifest: [b.manifest] }, keysDoc), "proof_malformed");
        expectCode(verify({ ...b, key: null }, keysDoc), "proof_malformed");
        expectCode(verify([b], keysDoc), "proof_malformed");
        expectCode(verify(null, keysDoc), "proof_malformed");
        expectCode(verify({ ...b, signature: { ...b.signature, note: "x" } }, keysDoc), "proof_malformed");
        const { alg: _a, ...sigNoAlg } = b.signature;
        expectCode(verify({ ...b, signature: sigNoAlg }, keysDoc), "proof_malformed");
      });
    });
  });

  describe("step 2 canonical_form (card)", () => {
    it("changing a card field breaks the card hash", () => {
      forAll((b) => {
        b.card.verdict = "solved";
        expectCode(verify(b, keysDoc), "card_hash_mismatch");
        b.card_hash = Hc(b.card);
        expectCode(verify(b, keysDoc), "signature_invalid");
      });
    });
    it("more card tampering", () => {
      const b = richChrono();
      b.card.attempt.hints_used = 0;
      expectCode(verify(b, keysDoc), "card_hash_mismatch");
      const c = richChrono();
      c.card.extra = null;
      c.card_hash = Hc(c.card);
      expectCode(verify(c, keysDoc), "signature_invalid");
      const u = richChrono();
      u.card_hash = u.card_hash.toUpperCase().replace("SHA256:", "sha256:");
      expectCode(verify(u, keysDoc), "card_hash_mismatch");
      const s = richChrono();
      s.card.identity.declared_model = "lone \ud800 surrogate";
      expectCode(verify(s, keysDoc), "card_not_canonicalizable");
      const n = richChrono();
      n.card.attempt.hints_used = Number.NaN; // not reachable from JSON text, but JCS must refuse
      expectCode(verify(n, keysDoc), "card_not_canonicalizable");
    });
  });

  describe("step 3 key", () => {
    it("unknown keys give unknown_key", () => {
      forAll((b) => {
        expectCode(verify(b, { keys: [] }), "key_unknown", "unknown_key");
        expectCode(verify(b, { keys: [testKey().record] }), "key_unknown", "unknown_key");
        expectCode(verify(b, {}), "key_unknown", "unknown_key");
        expectCode(verify(b, null), "key_unknown", "unknown_key");
        const other = clone(b);
        other.signature.key_id = testKey().record.key_id;
        expectCode(verify(other, keysDoc), "key_unknown", "unknown_key");
      });
    });
    it("the bundle's key record must equal the trusted one", () => {
      forAll((b) => {
        const k1 = clone(b);
        k1.key.public_key = testKey().record.public_key;
        expectCode(verify(k1, keysDoc), "key_mismatch");
        const k2 = clone(b);
        k2.key.not_before = "2000-01-01T00:00:00.001Z";
        expectCode(verify(k2, keysDoc), "key_mismatch");
        const k3 = clone(b);
        k3.key.comment = "x";
        expectCode(verify(k3, keysDoc), "key_mismatch");
        const k4 = clone(b);
        k4.key.not_after = "2099-01-01T00:00:00.000Z"; // closed in the bundle, open in the trusted set
        expectCode(verify(k4, keysDoc), "key_mismatch");
        const k5 = clone(b);
        delete k5.key.not_after;
        expectCode(verify(k5, keysDoc), "key_mismatch");
      });
    });
    it("a malformed trusted record gives key_malformed", () => {
      const b = richChrono();
      const trusted = keysDoc.keys.find((k: J) => k.key_id === b.signature.key_id);
      const variants: [string, (k: J) => void][] = [
        ["alg", (k) => (k.alg = "ed25519")],
        ["padding", (k) => (k.public_key = `${k.public_key}=`)],
        ["std alphabet", (k) => (k.public_key = Buffer.from(k.public_key, "base64url").toString("base64"))],
        ["short", (k) => (k.public_key = k.public_key.slice(0, 42))],
        ["other key", (k) => (k.public_key = testKey().record.public_key)],
        ["not_before", (k) => (k.not_before = "2000-01-01T00:00:00Z")],
        ["not_after", (k) => (k.not_after = "")],
        ["impossible date", (k) => (k.not_before = "2000-02-30T00:00:00.000Z")],
      ];
      for (const [what, mutate] of variants) {
        const rec = clone(trusted);
        mutate(rec);
        const bb = clone(b);
        bb.key = clone(rec);
        expect(verify(bb, { keys: [rec] }).code, what).toBe("key_malformed");
      }
      // non-canonical trailing bits in the public key (43 chars carry 2 spare bits)
      const rec = clone(trusted);
      const last = rec.public_key.at(-1);
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      rec.public_key = rec.public_key.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
      const bb = clone(b);
      bb.key = clone(rec);
      expectCode(verify(bb, { keys: [rec] }), "key_malformed");
      // key_id not derived from the key: both the record and the signature name it
      const rid = clone(trusted);
      rid.key_id = rid.key_id.toUpperCase().replace("ED25519-", "ed25519-");
      const bid = clone(b);
      bid.key = clone(rid);
      bid.signature.key_id = rid.key_id;
      expect(rid.key_id).not.toBe(trusted.key_id);
      expectCode(verify(bid, { keys: [rid] }), "key_malformed");
    });
    it("the first trusted record with the key id is used", () => {
      const b = richChrono();
      const trusted = keysDoc.keys.find((k: J) => k.key_id === b.signature.key_id);
      const bogus = { ...trusted, public_key: testKey().record.public_key };
      expectCode(verify(b, { keys: [bogus, trusted] }), "key_mismatch");
      expect(verify(b, { keys: [trusted, bogus] }).verdict).toBe("valid");
    });
  });

  describe("step 4 signature", () => {
    it("signature tampering", () => {
      forAll((b) => {
        const flip = clone(b);
        const raw = Buffer.from(flip.signature.sig, "base64url");
        raw[5] = raw[5]! ^ 1;
        flip.signature.sig = raw.toString("base64url");
        expectCode(verify(flip, keysDoc), "signature_invalid");
        const at = clone(b);
        at.signature.signed_at = plusMs(at.signature.signed_at, 1);
        expectCode(verify(at, keysDoc), "signature_invalid");
        const pad = clone(b);
        pad.signature.sig += "==";
        expectCode(verify(pad, keysDoc), "signature_malformed");
        const std = clone(b);
        std.signature.sig = Buffer.from(std.signature.sig, "base64url").toString("base64");
        if (std.signature.sig.replace(/=+$/, "") !== b.signature.sig) {
          expectCode(verify(std, keysDoc), "signature_malformed");
        }
        const short = clone(b);
        short.signature.sig = short.signature.sig.slice(0, 85);
        expectCode(verify(short, keysDoc), "signature_malformed");
        const alg = clone(b);
        alg.signature.alg = "EdDSA";
        expectCode(verify(alg, keysDoc), "signature_malformed");
        const type = clone(b);
        type.signature.type = "scoreia.card.signature/0.1";
        expectCode(verify(type, keysDoc), "signature_malformed");
        const num = clone(b);
        num.signature.signed_at = Date.parse(b.signature.signed_at);
        expectCode(verify(num, keysDoc), "signature_malformed");
      });
    });
    it("non-canonical base64url and non-canonical S are refused", () => {
      const b = richChrono();
      // 86 characters carry 4 spare bits
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
      const trail = clone(b);
      const last = trail.signature.sig.at(-1);
      trail.signature.sig = trail.signature.sig.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
      expect(Buffer.from(trail.signature.sig, "base64url")).toEqual(Buffer.from(b.signature.sig, "base64url"));
      expectCode(verify(trail, keysDoc), "signature_malformed");
      // S + L is the same scalar mod L: malleable, must be refused (§5.2)
      const L = 2n ** 252n + 27742317777372353535851937790883648493n;
      const raw = Buffer.from(b.signature.sig, "base64url");
      let s = 0n;
      for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(raw[i]!);
      let s2 = s + L;
      for (let i = 32; i < 64; i++) {
        raw[i] = Number(s2 & 0xffn);
        s2 >>= 8n;
      }
      const mall = clone(b);
      mall.signature.sig = raw.toString("base64url");
      expectCode(verify(mall, keysDoc), "signature_invalid");
    });
    it("odd public keys (§5.2, §13 item 3)", () => {
      const b = richChrono();
      const withKey = (raw: Buffer, sig: Buffer) => {
        const rec = {
          key_id: `ed25519-${raw.subarray(0, 8).toString("hex")}`,
          alg: "Ed25519",
          public_key: raw.toString("base64url"),
          not_before: "2000-01-01T00:00:00.000Z",
          not_after: null,
        };
        const x = clone(b);
        x.key = rec;
        x.signature.key_id = rec.key_id;
        x.signature.sig = sig.toString("base64url");
        // the card's log is untouched: its tree head is signed by the server's trusted key
        return verify(x, { keys: [rec, ...keysDoc.keys] });
      };
      // y = 2 is not the y of any curve point: passes step 3 (32 bytes), fails the Ed25519 check
      const notPoint = Buffer.alloc(32);
      notPoint[0] = 2;
      expectCode(withKey(notPoint, Buffer.from(b.signature.sig, "base64url")), "signature_invalid");
      // the identity (small order) is accepted as a key, and then anything verifies: R = B, S = 1.
      // This is why only keys ScoreIA generated may be trusted.
      const identity = Buffer.alloc(32);
      identity[0] = 1;
      const B = Buffer.from("5866666666666666666666666666666666666666666666666666666666666666", "hex");
      const one = Buffer.alloc(32);
      one[0] = 1;
      expect(withKey(identity, Buffer.concat([B, one])).verdict).toBe("valid");
    });
    it("a signature by another trusted key does not verify", () => {
      const b = richChrono();
      const k = testKey();
      const keys = { keys: [...keysDoc.keys, k.record] };
      const swapped = clone(b);
      swapped.signature.key_id = k.record.key_id;
      swapped.key = clone(k.record);
      expectCode(verify(swapped, keys), "signature_invalid");
    });
  });

  describe("step 6 replay", () => {
    it("changing a replay event breaks the chain", () => {
      forAll((b) => {
        const r1 = clone(b);
        r1.replay.events[0].response.seed = "another-seed";
        expectCode(verify(r1, keysDoc), "replay_chain_broken");
        // re-hashing that one event breaks the next link
        const r2 = clone(b);
        const e = r2.replay.events[0];
        e.response.seed = "another-seed";
        delete e.hash;
        e.hash = Hc(e);
        expectCode(verify(r2, keysDoc), "replay_chain_broken");
        // re-hashing the whole chain moves the head away from the signed card
        const r3 = clone(b);
        r3.replay.events[0].response.seed = "another-seed";
        rechain(r3.replay);
        expectCode(verify(r3, keysDoc), "replay_head_mismatch");
        // ...and re-signing the forged card only works with a key nobody trusts
        r3.card.replay.head = r3.replay.head;
        const k = testKey();
        const forged = resign(r3, k);
        expectCode(verify(forged, keysDoc), "key_unknown", "unknown_key");
        expect(verify(forged, { keys: [k.record] }).verdict).toBe("valid");
      });
    });
    it("removing an event", () => {
      forAll((b) => {
        const n = b.replay.events.length;
        const first = clone(b);
        first.replay.events.shift();
        expectCode(verify(first, keysDoc), "replay_chain_broken");
        const last = clone(b);
        last.replay.events.pop();
        last.replay.head = last.replay.events.at(-1).hash;
        expectCode(verify(last, keysDoc), "replay_malformed");
        if (n > 2) {
          const mid = clone(b);
          mid.replay.events.splice(1, 1);
          expectCode(verify(mid, keysDoc), "replay_chain_broken");
          rechain(mid.replay);
          expectCode(verify(mid, keysDoc), "replay_head_mismatch");
        }
        const none = clone(b);
        none.replay.events = [];
        none.replay.head = GENESIS;
        expectCode(verify(none, keysDoc), "replay_malformed");
      });
    });
    it("more replay tampering", () => {
      const b = richChrono();
      const withPrivate = b.replay.events.findIndex((e: J) => e.private !== null);
      expect(withPrivate).toBeGreaterThan(0);
      const cases: [string, (x: J) => void, string][] = [
        ["event extra member", (x) => (x.replay.events[1].note = "x"), "replay_malformed"],
        ["event missing member", (x) => delete x.replay.events[1].private, "replay_malformed"],
        ["event is an array", (x) => (x.replay.events[1] = []), "replay_malformed"],
        ["seq as string", (x) => (x.replay.events[0].seq = "0"), "replay_chain_broken"],
        ["kind unknown", (x) => (x.replay.events[1].kind = "hint"), "replay_malformed"],
        ["at without millis", (x) => (x.replay.events[1].at = "2026-11-30T12:00:01Z"), "replay_malformed"],
        ["at impossible date", (x) => (x.replay.events[1].at = "2026-02-30T12:00:01.000Z"), "replay_malformed"],
        ["prev wrong", (x) => (x.replay.events[1].prev = GENESIS), "replay_chain_broken"],
        [
          "hash uppercase",
          (x) => (x.replay.events[1].hash = x.replay.events[1].hash.toUpperCase()),
          "replay_chain_broken",
        ],
        [
          "swap two events",
          (x) => {
            const ev = x.replay.events;
            [ev[1], ev[2]] = [ev[2], ev[1]];
          },
          "replay_chain_broken",
        ],
        [
          "private marker revealed",
          (x) => (x.replay.events[withPrivate].private = { stage: 1 }),
          "replay_chain_broken",
        ],
        ["private marker dropped", (x) => (x.replay.events[withPrivate].private = null), "replay_chain_broken"],
        ["lone surrogate", (x) => (x.replay.events[1].response.op = "\udfff"), "replay_malformed"],
        ["replay head wrong", (x) => (x.replay.head = x.replay.events[0].hash), "replay_chain_broken"],
        ["replay card_id", (x) => (x.replay.card_id = `sia-${"0".repeat(32)}`), "replay_mismatch"],
        ["replay extra member", (x) => (x.replay.signature = null), "replay_malformed"],
        ["replay_version", (x) => (x.replay.replay_version = "scoreia-replay/0.1"), "replay_malformed"],
        ["events not an array", (x) => (x.replay.events = {}), "replay_malformed"],
        ["head not a string", (x) => (x.replay.head = null), "replay_malformed"],
      ];
      cases.push([
        "seq as string, chain re-hashed",
        (x) => {
          x.replay.events[0].seq = "0";
          rechain(x.replay, true);
        },
        "replay_chain_broken",
      ]);
      for (const [what, mutate, code] of cases) {
        const x = clone(b);
        mutate(x);
        expect(verify(x, keysDoc).code, what).toBe(code);
      }
    });
    it("card-side replay fields (re-signed with a test key)", () => {
      const k = testKey();
      const keys = { keys: [k.record] };
      const b = richChrono();
      expect(verify(resign(b, k), keys).verdict).toBe("valid");
      const count = clone(b);
      count.card.replay.events += 1;
      expectCode(verify(resign(count, k), keys), "replay_mismatch");
      const countStr = clone(b);
      countStr.card.replay.events = String(countStr.card.replay.events);
      expectCode(verify(resign(countStr, k), keys), "replay_mismatch");
      const head = clone(b);
      head.card.replay.head = GENESIS;
      expectCode(verify(resign(head, k), keys), "replay_head_mismatch");
      const noObj = clone(b);
      noObj.card.replay = null;
      expectCode(verify(resign(noObj, k), keys), "replay_malformed");
      // a quarantine event between enter and seal is a legal kind
      const q = clone(b);
      const at = q.replay.events[1].at;
      q.replay.events.splice(1, 0, {
        seq: 1,
        kind: "quarantine",
        action_index: null,
        at,
        request: { redacted: `sha256:${"1".repeat(64)}` },
        response: { attempt_state: "quarantined" },
        private: null,
      });
      rechain(q.replay);
      q.card.replay = { head: q.replay.head, events: q.replay.events.length };
      expect(verify(resign(q, k), keys).verdict).toBe("valid");
    });
  });

  describe("step 7 manifest", () => {
    it("changing the manifest", () => {
      forAll((b) => {
        const m1 = clone(b);
        m1.manifest.title += ".";
        expectCode(verify(m1, keysDoc), "manifest_mismatch");
        const m2 = clone(b);
        m2.manifest.limits.max_actions = 65;
        expectCode(verify(m2, keysDoc), "manifest_mismatch");
        const m3 = clone(b);
        m3.manifest.summary = "\ud800";
        expectCode(verify(m3, keysDoc), "manifest_malformed");
        const m4 = clone(b);
        delete m4.manifest.scoring;
        expectCode(verify(m4, keysDoc), "manifest_mismatch");
      });
      const swapped = richChrono();
      swapped.manifest = richAtelier().manifest;
      expectCode(verify(swapped, keysDoc), "manifest_mismatch");
    });
    it("card.suite must agree with the manifest (re-signed)", () => {
      const k = testKey();
      const keys = { keys: [k.record] };
      for (const [field, value] of [
        ["engine", "atelier"],
        ["generation", "002"],
        ["id", "chambre-atelier-v0"],
        ["manifest_hash", KNOWN_TOOLSETS["scoreia-chamber-tools/0.3.0"]],
      ] as const) {
        const b = richChrono();
        b.card.suite[field] = value;
        expect(verify(resign(b, k), keys).code, field).toBe("manifest_mismatch");
      }
      const b = richChrono();
      b.card.suite = "chambre-chrono-v0";
      expectCode(verify(resign(b, k), keys), "manifest_mismatch");
    });
  });

  describe("step 8 policy (re-signed with a test key)", () => {
    const k = testKey();
    const keys = { keys: [k.record] };
    const run = (mutate: (b: J) => void, table?: J) => {
      const b = richChrono();
      mutate(b);
      return verify(resign(b, k), keys, table);
    };
    it("each policy code", () => {
      expectCode(
        run((b) => (b.card.card_version = "0.1")),
        "card_version",
      );
      expectCode(
        run((b) => {
          b.card.card_id = `sia-${"A".repeat(32)}`;
          b.replay.card_id = b.card.card_id;
        }),
        "card_id",
      );
      expectCode(
        run((b) => {
          b.card.card_id = `sia-${"a".repeat(16)}`;
          b.replay.card_id = b.card.card_id;
        }),
        "card_id",
      );
      expectCode(
        run((b) => (b.card.channel = "web")),
        "channel",
      );
      expectCode(
        run((b) => (b.card.identity.assurance = "provider_attested")),
        "assurance",
      );
      expectCode(
        run((b) => (b.card.identity = null)),
        "assurance",
      );
      expectCode(
        run((b) => (b.card.toolset.hash = KNOWN_TOOLSETS["scoreia-chamber-tools/0.3.0"])),
        "toolset_hash",
      );
      expectCode(
        run((b) => (b.card.toolset.id = "scoreia-chamber-tools/0.3.0")),
        "toolset_hash",
      );
    });
    it("what passes policy", () => {
      const ok = (mutate: (b: J) => void, table?: J) => expect(run(mutate, table).verdict).toBe("valid");
      ok(() => {});
      ok((b) => {
        b.card.card_id = `oly-${"0".repeat(32)}`;
        b.replay.card_id = b.card.card_id;
      });
      for (const ch of ["provider_api", "local_model", "mcp_session"]) ok((b) => (b.card.channel = ch));
      for (const a of [
        "participant_claimed",
        "scoreia_controlled",
        "declared",
        "host_reported",
        "official_host_reported",
      ])
        ok((b) => (b.card.identity.assurance = a));
      ok((b) => (b.card.toolset = { id: "scoreia-chamber-tools/0.3.1", hash: "whatever" }));
      ok((b) => (b.card.toolset = { id: "toString", hash: "x" })); // own properties only
      ok((b) => (b.card.toolset = { id: "__proto__", hash: "x" }));
      ok((b) => (b.card.toolset.hash = "sha256:0"), null); // no table: the check is skipped
    });
    it("first failure decides", () => {
      const r = run((b) => {
        b.card.channel = "web";
        b.card.identity.assurance = "provider_attested";
      });
      expect(r).toMatchObject({ verdict: "invalid", code: "channel", step: "policy" });
      expect(r.steps.map((s) => s.step)).toEqual(ALL_STEPS.slice(0, 7));
      // card hash failure beats an unknown key
      const b = richChrono();
      b.card.verdict = "solved";
      expect(verify(b, { keys: [] })).toMatchObject({ code: "card_hash_mismatch", step: "canonical_form" });
      // unknown key beats a bad signature and a broken replay
      const c = richChrono();
      c.signature.sig = c.signature.sig.replace(/^./, (ch: string) => (ch === "A" ? "B" : "A"));
      c.replay.events.pop();
      expect(verify(c, { keys: [] })).toMatchObject({ verdict: "unknown_key", code: "key_unknown", step: "key" });
      // a broken replay beats a wrong manifest
      const d = richChrono();
      d.replay.events.pop();
      d.manifest.title = "x";
      expect(verify(d, keysDoc)).toMatchObject({ step: "replay" });
    });
  });

  describe("step 5 key_window (re-signed with test keys)", () => {
    it("signer clock tolerance and timestamps", () => {
      const k = testKey();
      const keys = { keys: [k.record] };
      const b = richChrono();
      const issued = b.card.issued_at;
      expect(verify(resign(b, k, plusMs(issued, -300_000)), keys).verdict).toBe("valid");
      expectCode(verify(resign(b, k, plusMs(issued, -300_001)), keys), "signed_before_issue");
      expect(verify(resign(b, k, plusMs(issued, 3 * 86_400_000)), keys).verdict).toBe("valid");
      for (const bad of [
        "2026-02-31T12:00:00.000Z",
        "2026-11-30T24:00:00.000Z",
        "2026-11-30T12:00:07.75Z",
        `${issued}\n`,
        "2026-11-30t12:00:07.750z",
        "+02026-11-30T12:00:07.750Z",
      ]) {
        expect(verify(resign(b, k, bad), keys).code, bad).toBe("time_malformed");
      }
      const c = richChrono();
      c.card.issued_at = "2026-11-30 12:00:07.750Z";
      expectCode(verify(resign(c, k, issued), keys), "time_malformed");
      const d = richChrono();
      d.card.issued_at = Date.parse(issued);
      expectCode(verify(resign(d, k, issued), keys), "time_malformed");
    });
    it("key windows and rotation (§6.2, §8.2 step 3.2, §13 item 1)", () => {
      const b = richChrono();
      const t = b.card.issued_at;
      const at = (nb: string, na: string | null) => {
        const k = testKey(nb, na);
        return { k, bundle: resign(b, k, t) };
      };
      {
        const { k, bundle } = at(plusMs(t, 1), null);
        expectCode(verify(bundle, { keys: [k.record] }), "key_outside_window");
      }
      {
        const { k, bundle } = at(t, null);
        expect(verify(bundle, { keys: [k.record] }).verdict).toBe("valid");
      }
      {
        const { k, bundle } = at("2000-01-01T00:00:00.000Z", t);
        expectCode(verify(bundle, { keys: [k.record] }), "key_outside_window");
      }
      {
        const { k, bundle } = at("2000-01-01T00:00:00.000Z", plusMs(t, 1));
        expect(verify(bundle, { keys: [k.record] }).verdict).toBe("valid");
      }
      // rotation after signing: the trusted record is closed later
      const k = testKey();
      const open = resign(b, k, t);
      const closedRecord = { ...k.record, not_after: plusMs(t, 60_000) };
      const rotated = { keys: [closedRecord, testKey(plusMs(t, 60_000)).record] };
      expect(verify(open, rotated).verdict).toBe("valid"); // fetched before the rotation
      const refetched = clone(open);
      refetched.key = clone(closedRecord);
      expect(verify(refetched, rotated).verdict).toBe("valid");
      expectCode(verify(refetched, { keys: [k.record] }), "key_mismatch"); // pinned keys predate it
      // the window is checked with the trusted record, not the bundle's open copy
      const early = { ...k.record, not_after: t };
      expectCode(verify(open, { keys: [early] }), "key_outside_window");
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("step 9 log and duplicate members (§1.1, §15)", () => {
  // The last card's bundle: leaf 4 of a tree of 5, so its audit path is not empty.
  const last = () => clone(fixtures.at(-1)!.bundle);
  /** Both verifiers give `code` (the independent one from the doc, the reference one from src). */
  const both = (b: J, code: string, keys: J = keysDoc) => {
    expectCode(verify(b, keys), code);
    expect(verifyProof(b, keys.keys, KNOWN_TOOLSETS).code, code).toBe(code);
  };
  const flipHex = (h: string) => `${h.slice(0, -1)}${h.at(-1) === "0" ? "1" : "0"}`;

  it("a missing or malformed log", () => {
    const { log: _l, ...noLog } = last();
    both(noLog, "log_missing");
    const variants: ((b: J) => void)[] = [
      (b) => (b.log.extra = 1),
      (b) => (b.log = [b.log]),
      (b) => (b.log.leaf.extra = 1),
      (b) => (b.log.index = -1),
      (b) => (b.log.index = 1.5),
      (b) => (b.log.index = "4"),
      (b) => (b.log.inclusion = b.log.inclusion[0]),
      (b) => (b.log.inclusion[0] = b.log.inclusion[0].toUpperCase()),
      (b) => (b.log.leaf.logged_at = "2026-12-01T00:00:00Z"),
    ];
    for (const mutate of variants) {
      const b = last();
      mutate(b);
      both(b, "log_malformed");
    }
  });

  it("a leaf for another card, hash or signing time", () => {
    for (const [field, value] of [
      ["type", "scoreia.log.leaf/0.1"],
      ["card_id", fixtures[0]!.bundle.card.card_id],
      ["card_hash", fixtures[0]!.bundle.card_hash],
      ["signed_at", plusMs(last().signature.signed_at, 1)],
    ]) {
      const b = last();
      b.log.leaf[field!] = value;
      both(b, "log_mismatch");
    }
  });

  it("a modified log is caught: audit path, index, root, tree head signature", () => {
    const path = last();
    path.log.inclusion[0] = flipHex(path.log.inclusion[0]);
    both(path, "log_inclusion_invalid");
    const short = last();
    short.log.inclusion.pop();
    both(short, "log_inclusion_invalid");
    const index = last();
    index.log.index -= 1;
    both(index, "log_inclusion_invalid");
    const beyond = last();
    beyond.log.index = beyond.log.tree_head.tree_size;
    both(beyond, "log_inclusion_invalid");
    const logged = last();
    logged.log.leaf.logged_at = plusMs(logged.log.leaf.logged_at, 1); // the leaf hash changes
    both(logged, "log_inclusion_invalid");
    // a head whose root or size was changed no longer matches its signature
    const root = last();
    root.log.tree_head.root_hash = flipHex(root.log.tree_head.root_hash);
    both(root, "tree_head_invalid");
    const size = last();
    size.log.tree_head.tree_size += 1;
    both(size, "tree_head_invalid");
    const sig = last();
    sig.log.tree_head.sig = `${sig.log.tree_head.sig.slice(0, 10)}${sig.log.tree_head.sig[10] === "A" ? "B" : "A"}${sig.log.tree_head.sig.slice(11)}`;
    both(sig, "tree_head_invalid");
    const extra = last();
    extra.log.tree_head.note = "x";
    both(extra, "tree_head_invalid");
  });

  it("a forged log: heads signed by an untrusted key, outside the key's window, or too early", () => {
    const k = testKey("2000-01-01T00:00:00.000Z");
    const b = last();
    const leafHash = logLeafHash(b.log.leaf);
    // a forger's one-leaf tree holding the card, under its own key: not trusted
    const forged = clone(b);
    forged.log = { ...forged.log, index: 0, inclusion: [] };
    forged.log.tree_head = signHead(k, 1, `sha256:${leafHash.toString("hex")}`, b.log.tree_head.timestamp);
    both(forged, "tree_head_invalid");
    const trusted = { keys: [...keysDoc.keys, k.record] };
    expect(verify(forged, trusted).verdict).toBe("valid"); // the same tree, its key trusted
    expect(verifyProof(forged, trusted.keys, KNOWN_TOOLSETS).verdict).toBe("valid");
    // the key's window must contain the head's timestamp
    const closed = testKey("2000-01-01T00:00:00.000Z", b.log.tree_head.timestamp);
    const outside = clone(forged);
    outside.log.tree_head = signHead(closed, 1, forged.log.tree_head.root_hash, b.log.tree_head.timestamp);
    both(outside, "tree_head_invalid", { keys: [...keysDoc.keys, closed.record] });
    // a head signed more than 5 minutes before the card was logged
    const early = clone(forged);
    early.log.tree_head = signHead(k, 1, forged.log.tree_head.root_hash, plusMs(b.log.leaf.logged_at, -300_001));
    both(early, "log_time_mismatch", trusted);
    // a two-leaf tree where the path is the other leaf: RFC 9162 inclusion with a real sibling
    const sibling = logLeafHash(fixtures[0]!.bundle.log.leaf);
    const pair = clone(forged);
    pair.log = { ...pair.log, index: 1, inclusion: [`sha256:${sibling.toString("hex")}`] };
    pair.log.tree_head = signHead(
      k,
      2,
      `sha256:${merkleNode(sibling, leafHash).toString("hex")}`,
      b.log.tree_head.timestamp,
    );
    expect(verify(pair, trusted).verdict).toBe("valid");
    pair.log.index = 0; // the same path read for the left leaf
    both(pair, "log_inclusion_invalid", trusted);
  });

  it("item 8: the first card's head is a prefix of the current head (consistency proof)", async () => {
    const b = clone(fixtures[0]!.bundle); // logged first, its head of size 1
    const current = (await reg.log.head())!;
    expect(current.tree_size).toBeGreaterThan(b.log.tree_head.tree_size);
    const consistency = await reg.log.consistency(b.log.tree_head.tree_size, current.tree_size);
    const check = (latest: J, code: string | null) => {
      const r = verify(b, keysDoc, KNOWN_TOOLSETS, latest);
      const ours = verifyProof(b, keysDoc.keys, KNOWN_TOOLSETS, { latestHead: latest });
      expect(r.code ?? null).toBe(code);
      expect(ours.code ?? null).toBe(code);
      if (code === null) expect(r.steps.at(-1)).toEqual(ours.steps.at(-1));
    };
    check({ tree_head: current, consistency }, null);
    check({ tree_head: current, consistency: [] }, "log_inconsistent");
    check(
      { tree_head: current, consistency: consistency.map((h: string) => `sha256:${"9".repeat(64)}${h.slice(71)}`) },
      "log_inconsistent",
    );
    check({ tree_head: { ...current, root_hash: `sha256:${"a".repeat(64)}` }, consistency }, "log_inconsistent");
    check({ tree_head: b.log.tree_head, consistency: [] }, null); // the same head
  });

  it("a card logged long after it was signed (backdated) is refused", () => {
    const k = testKey();
    const b = resign(last(), k);
    const trusted = { keys: [...keysDoc.keys, k.record] };
    expect(verify(b, trusted).verdict).toBe("valid");
    for (const [delta, code] of [
      [300_000, "valid"],
      [300_001, "log_time_mismatch"],
      [-300_001, "log_time_mismatch"],
    ] as const) {
      const x = clone(b);
      x.log.leaf.logged_at = plusMs(b.signature.signed_at, delta);
      const root = `sha256:${logLeafHash(x.log.leaf).toString("hex")}`;
      x.log.tree_head = signHead(k, 1, root, x.log.leaf.logged_at);
      const r = verify(x, trusted);
      expect(r.code ?? r.verdict, String(delta)).toBe(code);
      const ours = verifyProof(x, trusted.keys, KNOWN_TOOLSETS);
      expect(ours.code ?? ours.verdict, String(delta)).toBe(code);
    }
  });

  it("refuses a document with a duplicated member name, at any depth, after unescaping", () => {
    const text = JSON.stringify(last());
    expect(verifyText(text, keysDoc).verdict).toBe("valid");
    const dupes = [
      text.replace('"verdict":"', '"verdict":"solved","verdict":"'),
      text.replace('"verdict":"', '"\\u0076erdict":"solved","verdict":"'),
      text.replace('{"proof_version":', '{"log":null,"proof_version":'),
      text.replace('"redacted":"', '"redacted":"x","redacted":"'),
    ];
    for (const dup of dupes) {
      expect(dup).not.toBe(text);
      expect(verifyText(dup, keysDoc)).toMatchObject({ verdict: "invalid", code: "duplicate_member" });
      expect(() => parseStrictJson(dup)).toThrow(/duplicate member name/);
    }
    // the same name in different objects, or as a string value, is not a duplicate
    const fine = JSON.stringify({ a: { a: 1 }, b: [{ a: 1 }, { a: 2 }], c: "a" });
    expect(verifyText(fine, keysDoc).code).toBe("proof_malformed");
    expect(() => parseStrictJson(fine)).not.toThrow();
  });
});

describe("§12 worked example", () => {
  const keys12 = JSON.parse(fences(section("### 12.1 Key"), "json")[0]!);
  const card12 = JSON.parse(fences(section("### 12.2 Card"), "json")[0]!);
  const sig12 = JSON.parse(fences(section("### 12.3 Signature"), "json")[0]!);
  const replay12 = JSON.parse(fences(section("### 12.5 Replay"), "json")[0]!);
  const manifest12 = JSON.parse(fences(section("### 12.6 Manifest"), "json")[0]!);
  const s127 = section("### 12.7 Proof bundle");
  const [cardHash127] = firstMatch(s127, /"card_hash": "(sha256:[0-9a-f]{64})"/);
  const bundle12 = {
    proof_version: "scoreia-proof/0.2",
    card: card12,
    card_hash: cardHash127,
    signature: sig12,
    key: keys12.keys[0],
    manifest: manifest12,
    replay: replay12,
  };

  it("the assembled bundle passes steps 1-8 with the reference's details and has no log (§12.7)", () => {
    const r = verify(bundle12, keys12);
    const expected = JSON.parse(fences(s127, "json")[1]!);
    // the doc quotes the reference's output exactly
    expect(verifyProof(bundle12, keys12.keys, KNOWN_TOOLSETS)).toEqual(expected);
    expect({ verdict: r.verdict, code: r.code }).toEqual({ verdict: expected.verdict, code: expected.code });
    expect(r.steps).toEqual(expected.steps.filter((s: J) => s.ok));
    expect(r.steps.map((s) => s.step)).toEqual(ALL_STEPS.slice(0, 8));
  });

  it("copy check of the assembled bundle", () => {
    const [size, hex] = firstMatch(s127, /JCS of the assembled bundle \((\d+) bytes\) =\s*`([0-9a-f]{64})`/);
    const text = jcs(bundle12);
    expect(utf8len(text)).toBe(Number(size));
    expect(sha256hex(text)).toBe(hex);
  });

  it("card JCS and hash (§12.2)", () => {
    const s = section("### 12.2 Card");
    const line = fences(s, "")[0]!;
    const [size] = firstMatch(s, /JCS \(exactly (\d+) bytes/);
    const [hash] = firstMatch(s, /Card hash = `(sha256:[0-9a-f]{64})`/);
    expect(jcs(card12)).toBe(line);
    expect(utf8len(line)).toBe(Number(size));
    expect(Hc(card12)).toBe(hash);
    expect(hash).toBe(cardHash127);
  });

  it("key, statement and deterministic signature (§12.1, §12.3)", () => {
    const s1 = section("### 12.1 Key");
    const [seed] = firstMatch(s1, /Private key seed[^`]*`([0-9a-f]{64})`/);
    const [prefix] = firstMatch(s1, /the 48 bytes `([0-9a-f]{32})` ‖ seed/);
    const [rawHex, keyId] = firstMatch(
      s1,
      /Raw public key \(hex\): `([0-9a-f]{64})` → key id `(ed25519-[0-9a-f]{16})`/,
    );
    const priv = createPrivateKey({ key: Buffer.from(prefix + seed, "hex"), format: "der", type: "pkcs8" });
    const x = Buffer.from(createPublicKey(priv).export({ format: "jwk" }).x!, "base64url");
    expect(x.toString("hex")).toBe(rawHex);
    expect(keyId).toBe(`ed25519-${rawHex.slice(0, 16)}`);
    expect(keys12.keys[0].key_id).toBe(keyId);
    expect(b64urlStrict(keys12.keys[0].public_key, 32)?.toString("hex")).toBe(rawHex);

    const s3 = section("### 12.3 Signature");
    const statement = fences(s3, "")[0]!;
    const [size, stmtHash] = firstMatch(s3, /Statement bytes \((\d+) bytes; SHA-256 of them: `([0-9a-f]{64})`/);
    const [sigHex] = firstMatch(s3, /Ed25519 signature \(hex\): `([0-9a-f]{128})`/);
    expect(jcs({ type: SIG_TYPE, card: cardHash127, key_id: keyId, signed_at: sig12.signed_at })).toBe(statement);
    expect(utf8len(statement)).toBe(Number(size));
    expect(sha256hex(statement)).toBe(stmtHash);
    const sig = sign(null, Buffer.from(statement, "utf8"), priv);
    expect(sig.toString("hex")).toBe(sigHex);
    expect(sig.toString("base64url")).toBe(sig12.sig);
    // the §5.1 statement shape
    expect(statement).toMatch(
      /^\{"card":"sha256:[0-9a-f]{64}","key_id":"ed25519-[0-9a-f]{16}","signed_at":"[^"]{24}","type":"scoreia\.card\.signature\/0\.2"\}$/,
    );
  });

  it("replay salt, value salts and markers (§12.4)", () => {
    const s = section("### 12.4 Replay salt and markers");
    const [saltHex] = firstMatch(s, /Attempt replay salt[^`]*`([0-9a-f]{64})`/);
    const [handle] = firstMatch(s, /The attempt handle is `(chl-[0-9a-f]{16})`/);
    const salt = Buffer.from(saltHex, "hex");
    const rows = [
      ...s.matchAll(
        /^\| (\d+) \| `([^`]+)` \| `([^`]+)` \| `([0-9a-f]{64})` \| (.*?) \| `(sha256:[0-9a-f]{64})` \|$/gm,
      ),
    ];
    expect(rows.length).toBe(7);
    for (const [, seqS, location, message, saltOut, jcsCol, digest] of rows) {
      const seq = Number(seqS);
      expect(message).toBe(`${seq}:${location}`);
      expect(valueSalt(salt, seq, location!).toString("hex")).toBe(saltOut);
      const ev = replay12.events[seq];
      const path = location!.split(".");
      const published = path.reduce((v: J, p: string) => v[p], ev);
      expect(published).toEqual({ redacted: digest });
      if (jcsCol !== "(not reproduced)") {
        expect(jcsCol).toBe(`\`${jcs(handle)}\``);
        expect(marker(salt, seq, location!, handle)).toEqual({ redacted: digest });
      }
    }
    const [qSalt, qDigest] = firstMatch(
      s,
      /HMAC\(replay salt, `"3:request"`\) = `([0-9a-f]{64})`, marker digest\s+`(sha256:[0-9a-f]{64})`/,
    );
    expect(valueSalt(salt, 3, "request").toString("hex")).toBe(qSalt);
    expect(marker(salt, 3, "request", { reason: "doc example" }).redacted).toBe(qDigest);
  });

  it("replay chain table and the byte-level check of the last event (§12.5)", () => {
    const s = section("### 12.5 Replay");
    const rows = [...s.matchAll(/^\| (\d) \| `(\w+)` \| `(sha256:[0-9a-f]{64})` \| `(sha256:[0-9a-f]{64})` \|$/gm)];
    expect(rows.length).toBe(4);
    for (const [, seq, kind, prev, hash] of rows) {
      const e = replay12.events[Number(seq)];
      expect([e.kind, e.prev, e.hash]).toEqual([kind, prev, hash]);
      const { hash: _h, ...p } = e;
      expect(Hc(p)).toBe(hash);
    }
    const line = fences(s, "")[0]!;
    const { hash: _h, ...p3 } = replay12.events[3];
    expect(jcs(p3)).toBe(line);
    expect(`sha256:${sha256hex(line)}`).toBe(replay12.head);
    expect(replay12.head).toBe(card12.replay.head);
  });

  it("manifest hash (§12.6)", () => {
    const [hash] = firstMatch(section("### 12.6 Manifest"), /`Hc\(manifest\)` = `(sha256:[0-9a-f]{64})`/);
    expect(manifestHash(manifest12)).toBe(hash);
    expect(card12.suite.manifest_hash).toBe(hash);
  });

  it("rotation (§12.8)", () => {
    const rotated = JSON.parse(fences(section("### 12.8 Rotation"), "json")[0]!);
    expect(rotated.keys[0].key_id).toBe(keys12.keys[0].key_id);
    // steps 1-8 pass, then step 9 finds no log (the example predates it, §12.7)
    expectCode(verify(bundle12, rotated), "log_missing"); // copy made before the rotation
    const refetched = { ...bundle12, key: rotated.keys[0] };
    const r = verify(refetched, rotated);
    expectCode(r, "log_missing");
    expect(r.steps).toEqual(verify(bundle12, keys12).steps);
    expectCode(verify(refetched, keys12), "key_mismatch"); // pinned keys predate the rotation
    // the second key of the rotated document has a well-formed key id
    const second = rotated.keys[1];
    expect(second.key_id).toBe(`ed25519-${b64urlStrict(second.public_key, 32)!.subarray(0, 8).toString("hex")}`);
  });

  it("tampering the worked example", () => {
    const b = clone(bundle12);
    b.card.verdict = "solved";
    expectCode(verify(b, keys12), "card_hash_mismatch");
    expectCode(verify(bundle12, { keys: [] }), "key_unknown", "unknown_key");
    const c = clone(bundle12);
    c.replay.events[2].private = null;
    expectCode(verify(c, keys12), "replay_chain_broken");
  });
});

// ---------------------------------------------------------------------------------------------

describe("toolset hash (§3)", () => {
  const table = section("## 3. Toolset hash");
  const stated = (id: string) =>
    firstMatch(
      table,
      new RegExp(`\\| \`${id.replaceAll(".", "\\.")}\` \\| (\\d+) bytes \\| \`(sha256:[0-9a-f]{64})\` \\|`),
    );

  it("seed 000 hashes to the 0.3.0 hash the doc states", () => {
    const [, hash] = stated("scoreia-chamber-tools/0.3.0");
    expect(toolsetHash(SEED_000)).toBe(hash);
    expect(toolsetHash(JSON.parse(SEED_000))).toBe(hash);
    expect(hash).toBe(KNOWN_TOOLSETS["scoreia-chamber-tools/0.3.0"]);
  });

  it("the doc's schema_bundle quote is the seed's, and the payload size matches", () => {
    const contract = JSON.parse(SEED_000);
    const quoted = JSON.parse(`{${fences(table, "json")[0]!}}`);
    expect(contract.schema_bundle).toEqual(quoted.schema_bundle);
    const sb = contract.schema_bundle;
    const payload: J = {};
    for (const f of sb.payload_fields) {
      payload[f] =
        f === "canonical_tools"
          ? contract.canonical_tools.map((t: J) =>
              Object.fromEntries(sb.canonical_tools_fields.map((g: string) => [g, t[g]])),
            )
          : contract[f];
    }
    expect(utf8len(jcs(payload))).toBe(Number(stated("scoreia-chamber-tools/0.3.0")[0]));
  });

  it("0.3.2 derived as §3 describes gives the stated 0.3.2 hash, the one real cards bind", () => {
    const contract = JSON.parse(SEED_000);
    contract.toolset_id = "scoreia-chamber-tools/0.3.2";
    const extra = JSON.parse(`{${fences(table, "json")[1]!}}`);
    const enter = contract.canonical_tools.find((t: J) => t.name === "enter_open_challenge");
    Object.assign(enter.inputSchema.properties, extra);
    contract.note = "changed, not hashed";
    contract.supersedes = "scoreia-chamber-tools/0.3.0";
    const [size, hash] = stated("scoreia-chamber-tools/0.3.2");
    expect(toolsetHash(contract)).toBe(hash);
    expect(hash).toBe(KNOWN_TOOLSETS["scoreia-chamber-tools/0.3.2"]);
    const sb = contract.schema_bundle;
    const payload = Object.fromEntries(
      sb.payload_fields.map((f: string) => [
        f,
        f === "canonical_tools"
          ? contract.canonical_tools.map((t: J) =>
              Object.fromEntries(sb.canonical_tools_fields.map((g: string) => [g, t[g]])),
            )
          : contract[f],
      ]),
    );
    expect(utf8len(jcs(payload))).toBe(Number(size));
    for (const f of fixtures) expect(f.bundle.card.toolset.hash).toBe(hash);
  });

  it("members outside payload_fields do not affect the hash; the prefix and canonicalization rules hold", () => {
    const contract = JSON.parse(SEED_000);
    const base = toolsetHash(contract);
    contract.status = "changed";
    contract.suites = null;
    contract.canonical_tools[0].extra_field = 1;
    expect(toolsetHash(contract)).toBe(base);
    contract.limits = { ...contract.limits, x: 1 };
    expect(toolsetHash(contract)).not.toBe(base);
    const other = JSON.parse(SEED_000);
    other.schema_bundle.hash_prefix = "sha-256=";
    expect(toolsetHash(other)).toBe(`sha-256=${base.slice(7)}`);
    other.schema_bundle.canonicalization = "JCS";
    expect(() => toolsetHash(other)).toThrow(/unsupported/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("JCS and primitives (§1)", () => {
  it("RFC 8785 number serialization (appendix B)", () => {
    const f = (hex: string) => Buffer.from(hex, "hex").readDoubleBE(0);
    const vectors: [string, string][] = [
      ["0000000000000000", "0"],
      ["8000000000000000", "0"],
      ["0000000000000001", "5e-324"],
      ["8000000000000001", "-5e-324"],
      ["7fefffffffffffff", "1.7976931348623157e+308"],
      ["ffefffffffffffff", "-1.7976931348623157e+308"],
      ["4340000000000000", "9007199254740992"],
      ["c340000000000000", "-9007199254740992"],
      ["4430000000000000", "295147905179352830000"],
      ["44b52d02c7e14af5", "9.999999999999997e+22"],
      ["44b52d02c7e14af6", "1e+23"],
      ["44b52d02c7e14af7", "1.0000000000000001e+23"],
      ["444b1ae4d6e2ef4e", "999999999999999700000"],
      ["444b1ae4d6e2ef4f", "999999999999999900000"],
      ["444b1ae4d6e2ef50", "1e+21"],
      ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
      ["3eb0c6f7a0b5ed8d", "0.000001"],
      ["41b3de4355555553", "333333333.3333332"],
      ["41b3de4355555554", "333333333.33333325"],
      ["41b3de4355555555", "333333333.3333333"],
      ["41b3de4355555556", "333333333.3333334"],
      ["41b3de4355555557", "333333333.33333343"],
      ["becbf647612f3696", "-0.0000033333333333333333"],
      ["43143ff3c1cb0959", "1424953923781206.2"],
    ];
    for (const [hex, out] of vectors) expect(jcs(f(hex)), hex).toBe(out);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => jcs(bad)).toThrow(JcsError);
    }
    expect(jcs(JSON.parse("[1, 1.0, 1e0, 1e-7, 1e21, 1e20]"))).toBe("[1,1,1,1e-7,1e+21,100000000000000000000]");
  });

  it("RFC 8785 member order by UTF-16 code units (§3.2.3)", () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    const order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
    expect(jcs(input)).toBe(`{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k])}`).join(",")}}`);
    // integer-like names are not special (JS objects iterate them first)
    expect(jcs({ b: 1, 10: 2, 9: 3, a: 4 })).toBe('{"10":2,"9":3,"a":4,"b":1}');
  });

  it("string escaping equals JSON.stringify for every well-formed BMP code point, and the RFC example", () => {
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = `a${String.fromCharCode(c)}`;
      expect(jcs(s)).toBe(JSON.stringify(s));
    }
    expect(jcs("\u{1f600}")).toBe('"\u{1f600}"');
    expect(jcs("\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/")).toBe('"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"');
    expect(jcs("\u007f\u2028\u2029/")).toBe('"\u007f\u2028\u2029/"');
    expect(utf8len(jcs("chl-b649c7ceb8c13525"))).toBe(22);
  });

  it("refuses what has no canonical form", () => {
    for (const bad of [
      "\ud800",
      "x\udc00",
      "\ude00\ud83d",
      { "\ud800": 1 },
      [1, "\udfff"],
      undefined,
      () => 1,
      1n,
      Symbol("x"),
      new Date(0),
      new Map(),
      { a: undefined },
      [undefined],
      // biome-ignore lint/suspicious/noSparseArray: a hole is not a JSON value
      [1, , 2],
    ]) {
      expect(() => jcs(bad), String(typeof bad)).toThrow(JcsError);
    }
    expect(jcs({ a: [null, true, false, {}, []] })).toBe('{"a":[null,true,false,{},[]]}');
  });

  it("strict base64url and timestamps", () => {
    const k = Buffer.alloc(32, 0xfb);
    const s = k.toString("base64url");
    expect(s.length).toBe(43);
    expect(b64urlStrict(s, 32)).toEqual(k);
    for (const bad of [`${s}=`, ` ${s}`, s.replace("_", "/"), s.slice(0, -1), `${s}A`, 42]) {
      expect(b64urlStrict(bad, 32)).toBeNull();
    }
    expect(instant("2026-11-30T12:00:07.750Z")).toBe(Date.UTC(2026, 10, 30, 12, 0, 7, 750));
    for (const bad of [
      "2026-11-30T12:00:07.750",
      "2026-11-30T12:00:07Z",
      "2026-13-01T00:00:00.000Z",
      "2026-02-29T00:00:00.000Z",
      "2026-11-30T12:00:60.000Z",
      "2026-11-30T12:00:07.750Z\n",
      "2026-11-30T12:00:07.750+00:00",
      "２026-11-30T12:00:07.750Z",
    ]) {
      expect(instant(bad), bad).toBeNull();
    }
    expect(instant("2024-02-29T00:00:00.000Z")).not.toBeNull();
  });

  it("historical cards (§9)", () => {
    expect(verifyHistorical({ card_id: "sia-0123456789abcdef" }).verdict).toBe("unsigned_historical");
    const card = { card_id: "oly-0123456789abcdef", card_version: "0.1", score: 3 };
    expect(verifyHistorical({ ...card, content_hash: Hc(card) }).verdict).toBe("unsigned_historical");
    expect(verifyHistorical({ ...card, content_hash: Hc({ ...card, score: 4 }) }).code).toBe("content_hash_mismatch");
    expect(verifyHistorical({ ...card, content_hash: 7 }).verdict).toBe("unsigned_historical");
    expect(verifyHistorical({ ...card, card_version: null }).code).toBe("card_version");
    expect(verifyHistorical({ card_id: `sia-${"0".repeat(32)}` }).code).toBe("card_id");
    expect(verifyHistorical({ card_id: 5 }).code).toBe("card_malformed");
  });
});
