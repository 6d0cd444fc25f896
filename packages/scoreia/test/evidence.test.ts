import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../src/evidence/jcs.ts";
import { CardRegistry, levelFor } from "../src/evidence/registry.ts";
import { verifyReplay } from "../src/evidence/replay.ts";
import { type ProofBundle, verifyProof } from "../src/evidence/verify.ts";
import { type Harness, harness, IDENTITY } from "./support/chamber.ts";

const known = CardRegistry.knownToolsets();

describe.each(DIALECTS)("Evidence 0.2 on %s", (dialect) => {
  let h: Harness;
  let reg: CardRegistry;
  beforeAll(async () => {
    h = await harness(dialect);
    reg = new CardRegistry(h.db);
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.signer.available = true;
  });

  async function sealedCard(extra: Record<string, unknown> = {}, actions = 2): Promise<string> {
    const e = await h.sc("enter_open_challenge", { ...IDENTITY, ...extra });
    for (let i = 0; i < actions; i++) {
      const r = await h.sc("chamber_action", {
        challenge_handle: e.attempt_handle,
        op: "look",
        expected_action_index: i,
      });
      expect(r.ok).toBe(true);
    }
    const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
    expect(s.ok, JSON.stringify(s)).toBe(true);
    return s.card_id as string;
  }

  it("a sealed card's proof verifies through every step, and the server agrees", async () => {
    const id = await sealedCard();
    const proof = await reg.proof(id);
    const res = verifyProof(proof, await reg.keys(), known);
    expect(res.verdict, res.message).toBe("valid");
    expect(res.steps.map((s) => s.step)).toEqual([
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
    ]);
    // offline: step 10 could not run, and says so; the server runs it against its current head
    expect(res.steps.at(-1)).toMatchObject({ step: "consistency", ok: true, checked: false });
    const server = await reg.verify(id);
    expect(server?.verdict).toBe("valid");
    expect(server?.steps.at(-1)).toMatchObject({ step: "consistency", ok: true });
    expect(server?.steps.at(-1)).not.toHaveProperty("checked");
  });

  it("the card binds the four identity layers, the observed client, suite manifest, toolset and replay head", async () => {
    const id = await sealedCard({ participation_class: "sponsored" });
    const proof = (await reg.proof(id)) as ProofBundle;
    const card = proof.card as Record<string, Record<string, unknown>>;
    expect(card.identity).toMatchObject({
      declared_model: IDENTITY.model_claim,
      product: IDENTITY.product,
      declared_host: IDENTITY.host,
      assurance: "participant_claimed",
    });
    expect(card.observed_client).toEqual({ name: "vitest-client", version: "1.0.0" });
    expect(card.toolset).toEqual({ id: "scoreia-chamber-tools/0.3.2", hash: known["scoreia-chamber-tools/0.3.2"] });
    expect(card.replay).toEqual({ head: proof.replay.head, events: 4 });
    expect(proof.replay.events.map((e) => e.kind)).toEqual(["enter", "action", "action", "seal"]);
  });

  it("the public replay hides the handle and oracle values behind salted digests, and still verifies", async () => {
    const e = await h.sc("enter_open_challenge", { ...IDENTITY, seed: "oracle-check" });
    const wrong = await h.sc("chamber_action", {
      challenge_handle: e.attempt_handle,
      op: "submit_sequence",
      value: (e.objects as string[]).slice(0, 2),
      expected_action_index: 0,
    });
    const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
    const replay = await reg.replay(s.card_id as string);
    const text = JSON.stringify(replay);
    expect(text).not.toContain(e.attempt_handle as string);
    const priv = await h.db.db
      .selectFrom("chamber_events")
      .select("private_json")
      .where("handle", "=", e.attempt_handle as string)
      .where("private_json", "is not", null)
      .execute();
    if (wrong.ok === true) {
      expect(priv.length).toBeGreaterThan(0);
      for (const p of priv) expect(text).not.toContain(p.private_json as string);
      expect(replay?.events.some((x) => x.private !== null)).toBe(true);
    }
    expect(verifyReplay(replay, replay?.head as string)).toBeNull();
  });

  /** The hashes stored with an attempt's events, in order, and its chain head. */
  async function storedChain(handle: string): Promise<{ hashes: Array<string | null>; head: string | null }> {
    const events = await h.db.db
      .selectFrom("chamber_events")
      .select(["hash"])
      .where("handle", "=", handle)
      .orderBy("seq")
      .execute();
    const row = await h.db.db
      .selectFrom("chamber_attempts")
      .select(["chain_head"])
      .where("handle", "=", handle)
      .executeTakeFirstOrThrow();
    return { hashes: events.map((e) => e.hash), head: row.chain_head };
  }

  it("chains every event as it is written: each stored hash is the public replay's, for every event kind", async () => {
    const e = await h.sc("enter_open_challenge", { ...IDENTITY, seed: "chain-on-write" });
    const handle = e.attempt_handle as string;
    const after0 = await storedChain(handle);
    expect(after0.hashes).toHaveLength(1);
    expect(after0.head).toBe(after0.hashes[0]);
    await h.sc("chamber_action", { challenge_handle: handle, op: "look", expected_action_index: 0 });
    const objects = e.objects as string[];
    await h.sc("chamber_action", {
      challenge_handle: handle,
      op: "inspect",
      object: objects[0],
      expected_action_index: 1,
    });
    expect((await h.sc("call_for_help", { challenge_handle: handle, ally: "grok-4.6" })).ok).toBe(true);
    // An in-process caller may hand over undefined members: stored without them, hashed as stored.
    const direct = await h.chamber.service.act(
      { challenge_handle: handle, op: "look", object: undefined, expected_action_index: 2 },
      { mcpSession: "direct" },
    );
    expect(direct.ok).toBe(true);
    await h.chamber.service.quarantine(handle, "review the chain");
    const before = await storedChain(handle);
    expect(before.hashes.every((x) => typeof x === "string")).toBe(true);
    expect(before.head).toBe(before.hashes.at(-1));
    const s = await h.sc("seal_attempt", { challenge_handle: handle });
    expect(s.ok, JSON.stringify(s)).toBe(true);
    const replay = await reg.replay(s.card_id as string);
    const sealed = await storedChain(handle);
    expect(replay?.events.map((x) => x.kind)).toEqual([
      "enter",
      "action",
      "action",
      "call_for_help",
      "action",
      "quarantine",
      "seal",
    ]);
    // Rebuilt from the stored rows, the replay has exactly the hashes written with them.
    expect(replay?.events.map((x) => x.hash)).toEqual(sealed.hashes);
    expect(replay?.head).toBe(sealed.head);
    expect((await reg.verify(s.card_id as string))?.verdict).toBe("valid");
  });

  it("an attempt entered before its chain was kept on write seals by rebuilding the chain from its events", async () => {
    const e = await h.sc("enter_open_challenge", { ...IDENTITY, seed: "legacy-chain" });
    const handle = e.attempt_handle as string;
    await h.sc("chamber_action", { challenge_handle: handle, op: "look", expected_action_index: 0 });
    // What migration 002 leaves on an attempt that was open when it ran.
    await h.db.db.updateTable("chamber_attempts").set({ chain_head: null }).where("handle", "=", handle).execute();
    await h.db.db.updateTable("chamber_events").set({ hash: null }).where("handle", "=", handle).execute();
    await h.sc("chamber_action", { challenge_handle: handle, op: "look", expected_action_index: 1 });
    const s = await h.sc("seal_attempt", { challenge_handle: handle });
    expect(s.ok, JSON.stringify(s)).toBe(true);
    expect((await storedChain(handle)).hashes).toEqual([null, null, null, null]);
    const proof = (await reg.proof(s.card_id as string)) as ProofBundle;
    expect((proof.card as { replay: unknown }).replay).toEqual({ head: proof.replay.head, events: 4 });
    expect((await reg.verify(s.card_id as string))?.verdict).toBe("valid");
  });

  it("detects every single flipped byte of the proof, the card and the replay", async () => {
    const id = await sealedCard({}, 1);
    const proof = (await reg.proof(id)) as ProofBundle;
    const keys = await reg.keys();
    const bytes = Buffer.from(canonicalJson(proof), "utf8");
    const undetected: number[] = [];
    const check = (buf: Buffer, verify: (v: unknown) => boolean) => {
      for (let i = 0; i < buf.length; i++) {
        const copy = Buffer.from(buf);
        copy[i] = (copy[i] as number) ^ 0x01;
        let parsed: unknown;
        try {
          parsed = JSON.parse(copy.toString("utf8"));
        } catch {
          continue; // no longer JSON: detected
        }
        if (verify(parsed)) undetected.push(i);
      }
    };
    check(bytes, (p) => verifyProof(p, keys, known).verdict === "valid");
    expect(undetected, "proof bytes whose flip went unnoticed").toEqual([]);

    const cardBytes = Buffer.from(canonicalJson(proof.card), "utf8");
    check(cardBytes, (c) => verifyProof({ ...proof, card: c }, keys, known).verdict === "valid");
    expect(undetected, "card bytes").toEqual([]);

    const replayBytes = Buffer.from(canonicalJson(proof.replay), "utf8");
    check(replayBytes, (r) => verifyProof({ ...proof, replay: r }, keys, known).verdict === "valid");
    expect(undetected, "replay bytes").toEqual([]);
    expect(bytes.length).toBeGreaterThan(1000);
  });

  it("names the failing step: unknown key, wrong signature, foreign manifest, broken chain", async () => {
    const id = await sealedCard();
    const proof = (await reg.proof(id)) as ProofBundle;
    const keys = await reg.keys();
    expect(verifyProof(proof, [], known)).toMatchObject({ verdict: "unknown_key", code: "key_unknown" });
    const sigBytes = Buffer.from(proof.signature.sig, "base64url");
    sigBytes[0] = (sigBytes[0] as number) ^ 0xff;
    const badSig = { ...proof, signature: { ...proof.signature, sig: sigBytes.toString("base64url") } };
    expect(verifyProof(badSig, keys, known).code).toMatch(/^signature_/);
    const other = (await reg.proof(await sealedCard({ suite: "chambre-atelier-v0" }))) as ProofBundle;
    expect(verifyProof({ ...proof, manifest: other.manifest }, keys, known).code).toBe("manifest_mismatch");
    const events = proof.replay.events.slice();
    events.splice(1, 1);
    expect(verifyProof({ ...proof, replay: { ...proof.replay, events } }, keys, known).code).toBe(
      "replay_chain_broken",
    );
  });

  it("refuses a null replay event, extra replay members and a replay that does not end with seal", async () => {
    const id = await sealedCard({}, 1);
    const proof = (await reg.proof(id)) as ProofBundle;
    const keys = await reg.keys();
    const withNull = { ...proof, replay: { ...proof.replay, events: [...proof.replay.events.slice(0, -1), null] } };
    expect(verifyProof(withNull, keys, known).code).toBe("replay_malformed");
    const extra = { ...proof, replay: { ...proof.replay, note: "unsigned" } };
    expect(verifyProof(extra, keys, known).code).toBe("replay_malformed");
    const truncated = proof.replay.events.slice(0, -1);
    const cut = {
      ...proof,
      replay: { ...proof.replay, events: truncated, head: truncated[truncated.length - 1]?.hash },
    };
    expect(verifyProof(cut, keys, known).verdict).toBe("invalid");
  });

  it("a bundle fetched before a rotation still verifies after it", async () => {
    const { LocalKeyring, SwitchableSigner } = await import("../src/evidence/signer.ts");
    const { chamberOn } = await import("../src/app.ts");
    const { connect } = await import("./support/chamber.ts");
    const keyring = LocalKeyring.ephemeral(h.clock);
    const ch = chamberOn(h.db, { clock: h.clock, signer: new SwitchableSigner(keyring) });
    const c = await connect(ch, "prefetch");
    const e = (await c.callTool({ name: "enter_open_challenge", arguments: IDENTITY })).structuredContent as Record<
      string,
      unknown
    >;
    const s = (await c.callTool({ name: "seal_attempt", arguments: { challenge_handle: e.attempt_handle } }))
      .structuredContent as Record<string, unknown>;
    const early = (await reg.proof(s.card_id as string)) as ProofBundle;
    expect(early.key.not_after).toBeNull();
    h.clock.advance(5000);
    keyring.rotate();
    await ch.service.publishKeys();
    const keys = await reg.keys();
    expect(keys.find((k) => k.key_id === early.key.key_id)?.not_after).not.toBeNull();
    expect(verifyProof(early, keys, known).message).toMatch(/^valid/);
    const forged = { ...early, key: { ...early.key, not_after: "2099-01-01T00:00:00.000Z" } };
    expect(verifyProof(forged, keys, known).code).toBe("key_mismatch");
    await c.close();
  });

  it("never stores a signature from a signer whose clock is far behind: the card stays pending", async () => {
    const { LocalKeyring } = await import("../src/evidence/signer.ts");
    const { ManualClock } = await import("kernel");
    const { chamberOn } = await import("../src/app.ts");
    const { connect } = await import("./support/chamber.ts");
    const lagging = new ManualClock(h.clock.now() - 3_600_000);
    const ch = chamberOn(h.db, { clock: h.clock, signer: LocalKeyring.ephemeral(lagging) });
    const c = await connect(ch, "lagging");
    const e = (await c.callTool({ name: "enter_open_challenge", arguments: IDENTITY })).structuredContent as Record<
      string,
      unknown
    >;
    const s = (await c.callTool({ name: "seal_attempt", arguments: { challenge_handle: e.attempt_handle } }))
      .structuredContent as Record<string, unknown>;
    expect(s).toMatchObject({ code: "signature_unavailable", attempt_state: "pending_signature" });
    expect((await reg.verify(s.card_id as string))?.verdict).toBe("pending_signature");
    await c.close();
  });

  it("a card signed later (signer was down) verifies and its content never changed", async () => {
    const e = await h.sc("enter_open_challenge", IDENTITY);
    h.signer.available = false;
    const s1 = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
    expect(s1.code).toBe("signature_unavailable");
    const before = (await reg.get(s1.card_id as string))?.card;
    expect((await reg.verify(s1.card_id as string))?.verdict).toBe("pending_signature");
    expect(await reg.proof(s1.card_id as string)).toBeNull();
    h.clock.advance(60_000);
    h.signer.available = true;
    expect((await h.sc("seal_attempt", { challenge_handle: e.attempt_handle })).ok).toBe(true);
    expect((await reg.get(s1.card_id as string))?.card).toEqual(before);
    expect((await reg.verify(s1.card_id as string))?.verdict).toBe("valid");
  });

  it("imports historical 0.1 and oly-16 cards unsigned; they verify as unsigned historical, never signed", async () => {
    const body = {
      card_version: "0.1",
      card_id: "oly-0123456789abcdef",
      issued_at: "2025-06-01T10:00:00.000Z",
      verdict: "solved",
    };
    const { sha256Tagged } = await import("../src/evidence/jcs.ts");
    const withHash = { ...body, card_id: "sia-0123456789abcdef", content_hash: "" };
    const { content_hash: _c, ...hashed } = withHash;
    withHash.content_hash = sha256Tagged(canonicalJson(hashed));
    const r = await reg.importHistorical([body, withHash], "2026-11-30T12:00:00.000Z");
    expect(r).toEqual({ imported: 2, skipped: 0 });
    expect(await reg.importHistorical([body], "2026-11-30T12:00:00.000Z")).toEqual({ imported: 0, skipped: 1 });
    for (const id of ["oly-0123456789abcdef", "sia-0123456789abcdef"]) {
      expect((await reg.verify(id))?.verdict).toBe("unsigned_historical");
      expect(await reg.proof(id)).toBeNull();
      expect(await reg.replay(id)).toBeNull();
      expect((await reg.get(id))?.signature).toBeNull();
    }
    await expect(reg.importHistorical([{ ...withHash, verdict: "failed" }], "x")).rejects.toThrow(/content_hash/);
    await expect(reg.importHistorical([{ card_id: "sia_bad" }], "x")).rejects.toThrow(/historical ids/);
  });

  it("counts evidence levels by distinct seeds per comparison key; a repeated seed never raises it", async () => {
    const subject = { ...IDENTITY, model_claim: `levels-${dialect}`, product: "levels-model" };
    const keyOf = async (host = "cursor") =>
      (await reg.codex()).rows.find(
        (r) => r.subject.declared_model === subject.model_claim && r.subject.declared_host === host,
      )?.cells["chambre-chrono-v0|mcp_session"]?.keys[0];
    const levelOf = () => keyOf();
    await sealedCard({ ...subject, seed: "a" }, 1);
    expect(await levelOf()).toMatchObject({ distinct_seeds: 1, level: "exploratory", cards: 1 });
    for (let i = 0; i < 3; i++) await sealedCard({ ...subject, seed: "a" }, 1);
    expect(await levelOf()).toMatchObject({ distinct_seeds: 1, level: "exploratory", cards: 4 });
    await sealedCard({ ...subject, seed: "b" }, 1);
    await sealedCard({ ...subject, seed: "c" }, 1);
    expect((await levelOf())?.level).toBe("provisional");
    await sealedCard({ ...subject, seed: "d" }, 1);
    await sealedCard({ ...subject, seed: "e" }, 1);
    expect(await levelOf()).toMatchObject({ distinct_seeds: 5, level: "confirmed" });
    // a card still waiting for its signature is not evidence yet
    h.signer.available = false;
    const pending = await h.sc("enter_open_challenge", { ...subject, seed: "f" });
    expect((await h.sc("seal_attempt", { challenge_handle: pending.attempt_handle })).code).toBe(
      "signature_unavailable",
    );
    expect(await levelOf()).toMatchObject({ distinct_seeds: 5 });
    h.signer.available = true;
    // another host is another comparison key
    await sealedCard({ ...subject, host: "zed", seed: "z" }, 1);
    const zed = await keyOf("zed");
    expect(zed).toMatchObject({ distinct_seeds: 1, level: "exploratory" });
    expect([0, 1, 2, 3, 4, 5, 6].map(levelFor)).toEqual([
      null,
      "exploratory",
      "exploratory",
      "provisional",
      "provisional",
      "confirmed",
      "confirmed",
    ]);
    const codex = await reg.codex();
    expect(codex.empty_cell).toBe("not measured");
    expect(codex.channels).toEqual(["mcp_session", "provider_api", "local_model"]);
    const row = codex.rows.find(
      (r) => r.subject.declared_model === subject.model_claim && r.subject.declared_host === "cursor",
    );
    expect(row?.cells["chambre-chrono-v0|mcp_session"]?.keys[0]?.level).toBe("confirmed");
    expect(row?.cells["chambre-chrono-v0|provider_api"]).toBeUndefined();
  });

  it("rotation never invalidates older cards", async () => {
    const { LocalKeyring, SwitchableSigner } = await import("../src/evidence/signer.ts");
    const keyring = LocalKeyring.ephemeral(h.clock);
    const { chamberOn } = await import("../src/app.ts");
    const { connect } = await import("./support/chamber.ts");
    const ch = chamberOn(h.db, { clock: h.clock, signer: new SwitchableSigner(keyring) });
    const c = await connect(ch, "rotation");
    const seal = async () => {
      const e = (await c.callTool({ name: "enter_open_challenge", arguments: IDENTITY })).structuredContent as Record<
        string,
        unknown
      >;
      return (
        (await c.callTool({ name: "seal_attempt", arguments: { challenge_handle: e.attempt_handle } }))
          .structuredContent as Record<string, unknown>
      ).card_id as string;
    };
    const old = await seal();
    const oldKey = keyring.currentKeyId;
    h.clock.advance(1000);
    keyring.rotate();
    const fresh = await seal();
    await ch.service.publishKeys();
    const keys = await reg.keys();
    expect(keys.find((k) => k.key_id === oldKey)?.not_after).toBeTruthy();
    expect((await reg.verify(old))?.verdict).toBe("valid");
    expect((await reg.verify(fresh))?.verdict).toBe("valid");
    expect((await reg.get(fresh))?.signature?.key_id).not.toBe(oldKey);
    await c.close();
  });
});

describe("timestamps in proofs", () => {
  it("accept only real instants written as toISOString writes them", async () => {
    const { isIsoMs } = await import("../src/evidence/replay.ts");
    expect(isIsoMs("2026-11-30T12:00:00.000Z")).toBe(true);
    for (const bad of [
      "2026-02-31T00:00:00.000Z",
      "2026-13-01T00:00:00.000Z",
      "2026-11-30T25:00:00.000Z",
      "2026-11-30T12:00:00Z",
      ["2026-11-30T12:00:00.000Z"],
      0,
    ]) {
      expect(isIsoMs(bad)).toBe(false);
    }
  });
});
