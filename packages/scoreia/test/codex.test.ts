/**
 * The Codex (issue 16 §3, §6): counts only cards that verify and attempts that took at least one
 * action; each cell shows cards, distinct seeds and the four outcomes, never a rank, and (§1)
 * where its cards' seeds came from and how many had been sealed before; it is kept
 * in the transaction that signs a card and equals a full recomputation (every card verified
 * through every step) after many seals, on both engines.
 */
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chamberOn } from "../src/app.ts";
import { type Codex, type CodexCell, OUTCOMES } from "../src/evidence/codex.ts";
import { canonicalJson } from "../src/evidence/jcs.ts";
import { CardRegistry } from "../src/evidence/registry.ts";
import { LocalKeyring, type Signer } from "../src/evidence/signer.ts";
import { chronoSuite } from "../src/suites/chrono/index.ts";
import { roomFor } from "../src/suites/chrono/room.ts";
import { solveChrono } from "../src/suites/chrono/solver.ts";
import { roomSeedOf } from "../src/suites/secrets.ts";
import { type Harness, harness, IDENTITY, mcpPort } from "./support/chamber.ts";

describe.each(DIALECTS)("the Codex on %s", (dialect) => {
  let h: Harness;
  let reg: CardRegistry;
  beforeAll(async () => {
    h = await harness(dialect);
    reg = new CardRegistry(h.db);
  });
  afterAll(async () => {
    await h.close();
  });

  type Play = "none" | "abandon" | "jam" | "exhaust" | "solve" | "expire";

  /** One attempt played to the given outcome and sealed; returns the seal's answer. */
  async function play(identity: Record<string, unknown>, how: Play): Promise<Record<string, unknown>> {
    const e = await h.sc("enter_open_challenge", { ...IDENTITY, ...identity });
    const handle = e.attempt_handle as string;
    const act = async (op: string, index: number, value?: unknown, object?: string) =>
      h.sc("chamber_action", {
        challenge_handle: handle,
        op,
        expected_action_index: index,
        ...(value === undefined ? {} : { value }),
        ...(object === undefined ? {} : { object }),
      });
    if (how === "abandon" || how === "expire") expect((await act("look", 0)).ok).toBe(true);
    if (how === "jam") {
      // three well-formed wrong orders: rotations of the logbook's, leaving out the true order of
      // the room the server built (its seed through the generation's room secret)
      const log = await act("inspect", 0, undefined, "logbook");
      const ids = ((log.observation as { data: { events: Array<{ id: string }> } }).data.events ?? []).map((x) => x.id);
      const rec = h.chamber.service.secrets.current(chronoSuite, "");
      expect(rec.generation).toBe(e.suite_generation);
      const truth = roomFor(roomSeedOf(Buffer.from(rec.secret, "hex"), e.seed as string)).order.join(",");
      let wrong = 0;
      for (let r = 1; wrong < 3; r++) {
        const order = [...ids.slice(r), ...ids.slice(0, r)];
        if (order.join(",") === truth) continue;
        const out = await act("submit_sequence", wrong + 1, order);
        expect(out.result, JSON.stringify(out)).toBe("wrong");
        wrong++;
      }
    }
    if (how === "exhaust") for (let i = 0; i < 64; i++) expect((await act("look", i)).ok).toBe(true);
    if (how === "solve") await solveChrono(mcpPort((n, a) => h.sc(n, a), e));
    if (how === "expire") h.clock.advance(7201 * 1000);
    const s = await h.sc("seal_attempt", { challenge_handle: handle });
    expect(s.ok, JSON.stringify(s)).toBe(true);
    return s;
  }

  const cellOf = (codex: Codex, model: string, host = "cursor"): CodexCell | undefined =>
    codex.rows.find((r) => r.subject.declared_model === model && r.subject.declared_host === host)?.cells[
      "chambre-chrono-v0|mcp_session"
    ];

  it("counts verified cards with at least one action: cards, distinct seeds, four outcomes, no rank", async () => {
    const who = { model_claim: `codex-a-${dialect}`, product: "codex-a" };
    // five zero-action seals under one identity once made a subject `confirmed`: now they are nothing
    for (let i = 0; i < 5; i++) expect((await play({ ...who, seed: `zero-${i}` }, "none")).verdict).toBe("abandoned");
    expect(cellOf(await reg.codex(), who.model_claim)).toBeUndefined();
    expect((await play({ ...who, seed: "late" }, "expire")).verdict).toBe("expired");
    expect(cellOf(await reg.codex(), who.model_claim)).toBeUndefined();

    const verdicts = [];
    verdicts.push((await play({ ...who, seed: "s1" }, "abandon")).verdict);
    verdicts.push((await play({ ...who, seed: "s1" }, "jam")).verdict);
    verdicts.push((await play({ ...who, seed: "s2" }, "exhaust")).verdict);
    verdicts.push((await play({ ...who, seed: "s3" }, "solve")).verdict);
    expect(verdicts).toEqual(["abandoned", "failed", "exhausted", "solved"]);
    const cell = cellOf(await reg.codex(), who.model_claim);
    expect(cell).toMatchObject({
      cards: 4,
      distinct_seeds: 3,
      outcomes: { solved: 1, failed: 1, exhausted: 1, abandoned: 1 },
      // four participant seeds; the second s1 had been sealed before it entered
      seed_sources: { participant: 4, server: 0, ally: 0 },
      seed_sealed_before: 1,
    });
    // the generation the cards bind: the suite's base, then the secret's commitment (suites/secrets.ts)
    const generation = h.chamber.service.secrets.current(chronoSuite, "").generation;
    expect(generation).toMatch(/^001\.[0-9a-f]{8}$/);
    expect(cell?.keys).toEqual([
      {
        parameters: { toolset_id: "scoreia-chamber-tools/0.3.2" },
        suite_generation: generation,
        cards: 4,
        distinct_seeds: 3,
        outcomes: { solved: 1, failed: 1, exhausted: 1, abandoned: 1 },
        seed_sources: { participant: 4, server: 0, ally: 0 },
        seed_sealed_before: 1,
        level: "provisional",
      },
    ]);
    const codex = await reg.codex();
    expect(codex.outcomes).toEqual([...OUTCOMES]);
    expect(codex.seed_sources).toEqual(["participant", "server", "ally"]);
    // no member of the document ranks or scores anything
    expect(canonicalJson(codex)).not.toMatch(/"[a-z_]*(?:rank|score)[a-z_]*":/i);
  });

  it("says where each cell's seeds came from and how many had been sealed before; levels count distinct seeds only", async () => {
    const who = { model_claim: `codex-seeds-${dialect}`, product: "codex-seeds" };
    // an ally seed, from another participant's call_for_help
    const caller = await h.sc("enter_open_challenge", {
      ...IDENTITY,
      model_claim: `codex-caller-${dialect}`,
      seed: "c",
    });
    const help = await h.sc("call_for_help", { challenge_handle: caller.attempt_handle, ally: "codex-ally" });
    const ally = help.ally_seed as string;
    expect(ally).toMatch(/^a-[0-9a-f]{16}$/);

    const seeds: string[] = [];
    const sealed = async (seed: string | undefined, how: Play = "abandon") => {
      const s = await play({ ...who, ...(seed === undefined ? {} : { seed }) }, how);
      const card = (await reg.get(s.card_id as string))?.card as Record<string, unknown>;
      seeds.push(String(card.seed));
      return card;
    };
    expect(await sealed("p1")).toMatchObject({ seed_source: "participant", seed_sealed_before: false });
    expect(await sealed("p1")).toMatchObject({ seed_source: "participant", seed_sealed_before: true });
    expect(await sealed(undefined)).toMatchObject({ seed_source: "server", seed_sealed_before: false });
    expect(await sealed(ally)).toMatchObject({ seed_source: "ally", seed_sealed_before: false });
    expect(await sealed(ally)).toMatchObject({ seed_source: "ally", seed_sealed_before: true });
    // a zero-action card is not counted, whatever its seed
    await sealed("p1", "none");
    const counts = {
      cards: 5,
      distinct_seeds: 3,
      outcomes: { solved: 0, failed: 0, exhausted: 0, abandoned: 5 },
      seed_sources: { participant: 2, server: 1, ally: 2 },
      seed_sealed_before: 2,
    };
    const cell = cellOf(await reg.codex(), who.model_claim);
    expect(cell).toMatchObject(counts);
    // five cards, three distinct seeds: provisional, not confirmed; reused seeds never raise it
    expect(cell?.keys).toHaveLength(1);
    expect(cell?.keys[0]).toMatchObject({ ...counts, level: "provisional" });
    expect(await reg.codex()).toEqual(await reg.recomputedCodex());
  });

  it("a card whose signature does not verify is not counted, and a rebuild drops a card altered in storage", async () => {
    const who = { model_claim: `codex-b-${dialect}`, product: "codex-b" };
    const keyring = LocalKeyring.ephemeral(h.clock);
    // A signer whose signatures are wrong (one bit flipped): the card is stored but never verifies.
    const forger: Signer = {
      publicKeys: () => keyring.publicKeys(),
      async signCard(hash) {
        const sig = await keyring.signCard(hash);
        const raw = Buffer.from(sig.sig, "base64url");
        raw[0] = (raw[0] as number) ^ 1;
        return { ...sig, sig: raw.toString("base64url") };
      },
      signTreeHead: (size, root) => keyring.signTreeHead(size, root),
    };
    const bad = chamberOn(h.db, { clock: h.clock, signer: forger });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await bad.mcp.registry.call(name, args, { mcpSession: "forger" })).structuredContent as Record<string, unknown>;
    const e = await call("enter_open_challenge", { ...IDENTITY, ...who, seed: "forged" });
    await call("chamber_action", { challenge_handle: e.attempt_handle, op: "look" });
    const s = await call("seal_attempt", { challenge_handle: e.attempt_handle });
    expect(s.evidence_status).toBe("signed");
    expect((await reg.verify(s.card_id as string))?.verdict).toBe("invalid");
    expect(cellOf(await reg.codex(), who.model_claim)).toBeUndefined();

    // A good card, then its stored body altered: the maintained Codex counted it when it verified;
    // the full recomputation (and so rebuildCodex) no longer does.
    const good = await play({ ...who, seed: "good" }, "abandon");
    expect(cellOf(await reg.codex(), who.model_claim)?.cards).toBe(1);
    const row = await h.db.db
      .selectFrom("chamber_cards")
      .select("body_json")
      .where("card_id", "=", good.card_id as string)
      .executeTakeFirstOrThrow();
    await h.db.db
      .updateTable("chamber_cards")
      .set({ body_json: row.body_json.replace('"abandoned"', '"solved"') })
      .where("card_id", "=", good.card_id as string)
      .execute();
    expect(cellOf(await reg.recomputedCodex(), who.model_claim)).toBeUndefined();
    await reg.rebuildCodex();
    expect(cellOf(await reg.codex(), who.model_claim)).toBeUndefined();
    expect(await reg.codex()).toEqual(await reg.recomputedCodex());
  });

  it("equals a full recomputation after many seals", async () => {
    const plays: Play[] = ["abandon", "none", "jam", "abandon", "solve", "abandon", "expire", "jam"];
    for (let i = 0; i < 24; i++) {
      const who = {
        model_claim: `codex-many-${i % 3}`,
        product: `p${i % 2}`,
        host: i % 4 === 0 ? "zed" : "cursor",
        // server seeds every seventh attempt; the others repeat five participant seeds
        ...(i % 7 === 3 ? {} : { seed: `m-${i % 5}` }),
        ...(i % 6 === 5 ? { suite: "chambre-atelier-v0" } : {}),
      };
      const how = plays[i % plays.length] as Play;
      await play(who, who.suite && (how === "solve" || how === "jam") ? "abandon" : how);
    }
    const maintained = await reg.codex();
    expect(maintained.rows.length).toBeGreaterThan(6);
    const cells = maintained.rows.flatMap((r) => Object.values(r.cells));
    const sum = (f: (c: CodexCell) => number) => cells.reduce((n, c) => n + f(c), 0);
    expect(sum((c) => c.seed_sources.server)).toBeGreaterThan(0);
    expect(sum((c) => c.seed_sealed_before)).toBeGreaterThan(0);
    for (const c of cells)
      expect(c.seed_sources.participant + c.seed_sources.server + c.seed_sources.ally).toBe(c.cards);
    expect(maintained).toEqual(await reg.recomputedCodex());
  });
});
