/**
 * Issue 28: a reveal must not open commitments to guessable values. The replay salt of an attempt
 * opens every commitment of it, so a reveal that published it let anyone test a guess: an ally's
 * seed (public on the ally's card) against the helper's call_for_help marker linked the two
 * cards. Reveals now carry a value salt per opening and no replay salt; saved reveals of the
 * earlier version (scoreia-reveal/0.2, with replay_salts) still re-grade and still open.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkReveal,
  LEGACY_REVEAL_VERSION,
  REVEAL_VERSION,
  type RevealDocument,
  regradeCard,
} from "../src/evidence/regrade.ts";
import { type PublicReplay, saltedDigest, valueSalt } from "../src/evidence/replay.ts";
import type { ProofBundle } from "../src/evidence/verify.ts";
import { SuiteSecrets, secretCommitment } from "../src/suites/secrets.ts";
import { checkOpenings } from "./independent/verifier.mjs";
import { harness, IDENTITY } from "./support/chamber.ts";

const CHRONO = "chambre-chrono-v0";

describe("reveal salts (sqlite)", () => {
  it("a reveal opens what re-grading reads and nothing guessable; a saved 0.2 reveal still re-grades", async () => {
    // A generation made before manifests named their room generator, as a deployment of that time
    // holds it: the kind whose reveal was published as 0.2.
    const dir = mkdtempSync(join(tmpdir(), "scoreia-reveal-salts-"));
    const secret = "ab".repeat(32);
    const legacyGeneration = `001.${secretCommitment(Buffer.from(secret, "hex")).slice(7, 15)}`;
    writeFileSync(
      join(dir, "suite-secrets.json"),
      JSON.stringify([
        {
          suite_id: CHRONO,
          generation: legacyGeneration,
          secret,
          created_at: "2026-11-30T12:00:00.000Z",
          revealed_at: null,
        },
      ]),
    );
    const h = await harness("sqlite", { secrets: SuiteSecrets.open(dir) });
    try {
      // The helper calls for help; the ally enters the issued seed; both seal.
      const helper = await h.sc("enter_open_challenge", { ...IDENTITY, suite: CHRONO, seed: "helper" });
      await h.sc("chamber_action", { challenge_handle: helper.attempt_handle, op: "look", expected_action_index: 0 });
      const help = await h.sc("call_for_help", { challenge_handle: helper.attempt_handle, ally: "friend" });
      const allySeed = help.ally_seed as string;
      expect(allySeed).toMatch(/^a-[0-9a-f]{16}$/);
      const helperCard = (await h.sc("seal_attempt", { challenge_handle: helper.attempt_handle })).card_id as string;
      const ally = await h.sc("enter_open_challenge", { ...IDENTITY, suite: CHRONO, seed: allySeed });
      const allyCard = (await h.sc("seal_attempt", { challenge_handle: ally.attempt_handle })).card_id as string;
      expect((await h.chamber.registry.get(allyCard))?.card.seed).toBe(allySeed); // public on the ally's card

      const stored = await h.chamber.registry.get(helperCard);
      const generation = (stored?.card.suite as { generation: string } | undefined)?.generation ?? "";
      expect(generation).toBe(legacyGeneration);
      await h.chamber.service.reveal(CHRONO, generation);
      const reveal = (await h.chamber.registry.revealed(CHRONO, generation)) as unknown as RevealDocument;
      expect(reveal.reveal_version).toBe(REVEAL_VERSION);
      expect(Object.keys(reveal).sort()).toEqual([
        "generation",
        "generator",
        "manifest_hash",
        "openings",
        "reveal_version",
        "revealed_at",
        "secret",
        "suite_id",
      ]);
      const rows = await h.db.db
        .selectFrom("chamber_attempts")
        .select(["handle", "replay_salt"])
        .where("handle", "in", [helper.attempt_handle as string, ally.attempt_handle as string])
        .execute();
      const text = JSON.stringify(reveal);
      for (const r of rows) expect(text).not.toContain(r.replay_salt);
      expect(Object.keys(reveal.openings).sort()).toEqual([helperCard, allyCard].sort());

      // The helper's replay commits the ally seed; no salt in the reveal opens it to the guess.
      const replay = (await h.chamber.registry.replay(helperCard)) as PublicReplay;
      const cfh = replay.events.find((e) => e.kind === "call_for_help");
      if (!cfh) throw new Error("no call_for_help event");
      const marker = (cfh.response as { ally_seed?: { redacted: string } }).ally_seed;
      expect(marker?.redacted).toMatch(/^sha256:/);
      const salts = Object.values(reveal.openings).flatMap((list) => list.map((o) => Buffer.from(o.salt, "hex")));
      expect(salts.length).toBeGreaterThan(0);
      expect(salts.some((s) => saltedDigest(s, allySeed) === marker?.redacted)).toBe(false);
      // What the earlier format allowed: the replay salt opens the guess at once.
      const helperSalt = Buffer.from(
        rows.find((r) => r.handle === helper.attempt_handle)?.replay_salt as string,
        "hex",
      );
      expect(saltedDigest(valueSalt(helperSalt, cfh.seq, "response.ally_seed"), allySeed)).toBe(marker?.redacted);

      // Re-grading and the independent verifier read the new reveal...
      const proof = (await h.chamber.registry.proof(helperCard)) as ProofBundle;
      expect(regradeCard(checkReveal(reveal), proof)).toMatchObject({ status: "agrees" });
      expect(checkOpenings(proof, reveal)).toBeNull();
      const wrongSalt = structuredClone(reveal);
      (wrongSalt.openings[helperCard] as Array<{ salt: string }>)[0] = {
        ...(wrongSalt.openings[helperCard]?.[0] as { salt: string }),
        salt: "0".repeat(64),
      };
      expect(regradeCard(checkReveal(wrongSalt), proof)).toMatchObject({ code: "opening_mismatch" });
      expect(checkOpenings(proof, wrongSalt)).toBe("opening_mismatch");

      // ...and a saved reveal of the earlier version, with replay salts and unsalted openings.
      const { generator: _g, ...withoutGenerator } = reveal;
      const legacy = {
        ...withoutGenerator,
        reveal_version: LEGACY_REVEAL_VERSION,
        replay_salts: Object.fromEntries(
          [helperCard, allyCard].map((id, i) => [
            id,
            rows.find((r) => r.handle === [helper, ally][i]?.attempt_handle)?.replay_salt,
          ]),
        ),
        openings: Object.fromEntries(
          Object.entries(reveal.openings).map(([id, list]) => [id, list.map(({ salt: _s, ...o }) => o)]),
        ),
      };
      expect(regradeCard(checkReveal(legacy), proof)).toMatchObject({ status: "agrees" });
      expect(checkOpenings(proof, legacy)).toBeNull();
      expect(() => checkReveal({ ...legacy, reveal_version: REVEAL_VERSION })).toThrow(/exactly the members/);
      expect(reveal.generator).toBeNull(); // it names none, so the reveal says so
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
