/**
 * Commit-reveal re-grading (issue 16 §1, docs/evidence-0.2.md §14.5): once a generation is
 * revealed, anyone rebuilds every room from its secret, opens every commitment of each public
 * replay and re-grades every card offline — and a record that disagrees with its room is caught.
 * The reveal document (secret, salts, openings) comes from the store: both engines.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveHttp } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { CURRENT_TOOLSET } from "../src/contract/index.ts";
import { canonicalJson } from "../src/evidence/jcs.ts";
import { checkReveal, type RegradeRefusal, type RevealDocument, regradeCard } from "../src/evidence/regrade.ts";
import { buildReplay, openingsOf, storedEvent, valueSalt } from "../src/evidence/replay.ts";
import type { ProofBundle } from "../src/evidence/verify.ts";
import { solveAtelier } from "../src/suites/atelier/solver.ts";
import { solveChrono } from "../src/suites/chrono/solver.ts";
import type { AgentPort, RoomAction } from "../src/suites/types.ts";
import { run } from "./cli/support.ts";
import { tempDir } from "./e2e/support.ts";
import { checkOpenings, duplicateMember } from "./independent/verifier.mjs";
import { type Harness, harness, IDENTITY, mcpPort } from "./support/chamber.ts";

const CHRONO = "chambre-chrono-v0";
const ATELIER = "chambre-atelier-v0";

/** A port that sends one wrong value before the first submission of each stage it sees. */
function withOneWrong(port: AgentPort): AgentPort {
  const tried = new Set<string>();
  return {
    entry: port.entry,
    async act(action: RoomAction) {
      if (action.op.startsWith("submit_") && !tried.has(action.op) && tried.size === 0) {
        tried.add(action.op);
        const wrong = Array.isArray(action.value) ? [...action.value].reverse() : "0";
        const w = await port.act({ ...action, value: wrong });
        expect(w.ok, JSON.stringify(w)).toBe(true);
      }
      return port.act(action);
    },
  };
}

interface Played {
  h: Harness;
  cards: Record<string, string>;
  generations: Record<string, string>;
}

/** Four cards in two generations: solved after a hint and a wrong try, abandoned after looks, solved, abandoned at once. */
async function play(h: Harness): Promise<Played> {
  const cards: Record<string, string> = {};
  const seal = async (
    name: string,
    suite: string,
    seed: string,
    drive: (e: Record<string, unknown>) => Promise<void>,
  ) => {
    h.clock.advance(1000);
    const e = await h.sc("enter_open_challenge", { ...IDENTITY, suite, seed });
    expect(e.ok, JSON.stringify(e)).toBe(true);
    await drive(e);
    const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
    expect(s.ok, JSON.stringify(s)).toBe(true);
    cards[name] = s.card_id as string;
  };
  await seal("chronoSolved", CHRONO, "regrade-1", async (e) => {
    const port = mcpPort(h.sc, e);
    await port.act({ op: "hint" });
    await solveChrono(withOneWrong(port));
  });
  await seal("chronoLooks", CHRONO, "regrade-2", async (e) => {
    for (let i = 0; i < 3; i++) {
      await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look", expected_action_index: i });
    }
  });
  await seal("atelierSolved", ATELIER, "regrade-3", async (e) => {
    await solveAtelier(mcpPort(h.sc, e));
  });
  await seal("atelierEmpty", ATELIER, "regrade-4", async () => {});
  const generations: Record<string, string> = {};
  for (const [suite, id] of [
    [CHRONO, cards.chronoSolved],
    [ATELIER, cards.atelierSolved],
  ] as const) {
    const stored = await h.chamber.registry.get(id as string);
    if (!stored) throw new Error(`no card ${id}`);
    generations[suite] = (stored.card.suite as { generation: string }).generation;
    await h.chamber.service.reveal(suite, generations[suite] as string);
  }
  return { h, cards, generations };
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe.each(DIALECTS)("regrade on %s", (dialect) => {
  it("every card of a revealed generation re-grades to what it records: the CLI from the server and from files", async () => {
    const h = await harness(dialect);
    const tmp = tempDir("regrade");
    const http = await serveHttp({
      mcp: h.chamber.mcp,
      routes: h.chamber.routes,
      port: 0,
      maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
    });
    try {
      const { cards, generations } = await play(h);
      const base = `http://127.0.0.1:${http.port}`;
      const chronoUrl = `${base}/suites/${CHRONO}/${generations[CHRONO]}/reveal.json`;
      const reveal = (await (await fetch(chronoUrl)).json()) as RevealDocument;
      // The reveal opens action values, observations and private facts, never a bearer handle.
      expect(Object.keys(reveal.openings).sort()).toEqual([cards.chronoSolved, cards.chronoLooks].sort());
      const locations = new Set(Object.values(reveal.openings).flatMap((l) => l.map((o) => o.location)));
      expect([...locations].sort()).toEqual(["private", "request.value", "response.observation"]);
      expect(JSON.stringify(reveal)).not.toContain("att-");

      // From the server: the reveal URL, every proof it names fetched from its origin.
      const fromServer = await run(["regrade", chronoUrl]);
      expect(fromServer.code, fromServer.stderr).toBe(0);
      expect(fromServer.stdout).toContain(`agrees ${cards.chronoSolved}: solved`);
      expect(fromServer.stdout).toContain(`agrees ${cards.chronoLooks}: abandoned, 3 actions`);
      expect(fromServer.stdout).toContain("2 agree, 0 disagree, 0 refused");

      // From files, as an auditor keeps them.
      const atelierReveal = await h.chamber.registry.revealed(ATELIER, generations[ATELIER] as string);
      writeFileSync(join(tmp.dir, "reveal.json"), JSON.stringify(atelierReveal));
      const files = [];
      for (const id of [cards.atelierSolved, cards.atelierEmpty] as string[]) {
        const file = join(tmp.dir, `${id}.json`);
        writeFileSync(file, canonicalJson(await h.chamber.registry.proof(id)));
        files.push(file);
      }
      const offline = await run(["regrade", join(tmp.dir, "reveal.json"), ...files, "--json"]);
      expect(offline.code, offline.stderr).toBe(0);
      const doc = JSON.parse(offline.stdout) as { agrees: number; cards: Array<Record<string, unknown>> };
      expect(doc.agrees).toBe(2);
      const solved = doc.cards.find((c) => c.card_id === cards.atelierSolved);
      expect(solved).toMatchObject({ status: "agrees", verdict: "solved" });
      expect(solved?.opened as number).toBeGreaterThan(0);

      // A card of the other generation is not this reveal's: refused, exit 7.
      const other = join(tmp.dir, "other.json");
      writeFileSync(other, canonicalJson(await h.chamber.registry.proof(cards.chronoSolved as string)));
      const mixed = await run(["regrade", join(tmp.dir, "reveal.json"), other]);
      expect(mixed.code).toBe(7);
      expect(mixed.stdout).toMatch(/refused .*\(card_not_in_reveal\)/);
    } finally {
      await http.close();
      tmp.remove();
      await h.close();
    }
  });

  it("a record that disagrees with its room is caught; unusable input is refused", async () => {
    const h = await harness(dialect);
    const tmp = tempDir("regrade-bad");
    try {
      const { cards, generations } = await play(h);
      const id = cards.chronoSolved as string;
      const reveal = (await h.chamber.registry.revealed(
        CHRONO,
        generations[CHRONO] as string,
      )) as unknown as RevealDocument;
      const proof = (await h.chamber.registry.proof(id)) as ProofBundle;
      const checked = checkReveal(reveal);
      expect(regradeCard(checked, proof)).toMatchObject({ status: "agrees", verdict: "solved" });

      const withReveal = (mutate: (r: RevealDocument) => void) => {
        const r = clone(reveal);
        mutate(r);
        return regradeCard(checkReveal(r), proof);
      };
      const openings = reveal.openings[id] ?? [];
      const valueAt = openings.findIndex((o) => o.location === "request.value");
      // An opened value that is not the committed one.
      expect(
        withReveal((r) => {
          (r.openings[id] as RevealDocument["openings"][string])[valueAt] = {
            ...openings[valueAt],
            value: "99",
          } as never;
        }),
      ).toMatchObject({ status: "disagrees", code: "opening_mismatch" });
      // A commitment left closed.
      expect(withReveal((r) => (r.openings[id] as unknown[]).splice(valueAt, 1))).toMatchObject({
        status: "disagrees",
        code: "opening_missing",
      });
      // A salt that opens nothing.
      expect(
        withReveal((r) => {
          (r.openings[id] as RevealDocument["openings"][string])[valueAt] = {
            ...(openings[valueAt] as RevealDocument["openings"][string][number]),
            salt: "0".repeat(64),
          };
        }),
      ).toMatchObject({ code: "opening_mismatch" });

      // A server that recorded the wrong submission as correct: a consistent chain, salts and
      // openings for a replay that is not what the room says. Only re-grading catches it.
      const attempt = await h.db.db
        .selectFrom("chamber_attempts")
        .select(["handle", "replay_salt"])
        .where("card_id", "=", id)
        .executeTakeFirstOrThrow();
      const stored = (
        await h.db.db
          .selectFrom("chamber_events")
          .selectAll()
          .where("handle", "=", attempt.handle)
          .orderBy("seq")
          .execute()
      ).map(storedEvent);
      const wrong = stored.find((e) => (e.response as { result?: string }).result === "wrong");
      expect(wrong).toBeDefined();
      (wrong?.response as { result: string }).result = "correct";
      const salt = Buffer.from(attempt.replay_salt, "hex");
      const forged = clone(proof);
      forged.replay = buildReplay(id, salt, stored, true);
      (forged.card.replay as { head: string }).head = forged.replay.head;
      const liar = clone(reveal);
      liar.openings[id] = openingsOf(stored).map((o) => ({
        ...o,
        salt: valueSalt(salt, o.seq, o.location).toString("hex"),
      }));
      expect(regradeCard(checkReveal(liar), forged)).toMatchObject({ status: "disagrees", code: "action_mismatch" });

      // Counts and verdict that the room does not give.
      const counted = clone(proof);
      (counted.card.attempt as { wrong_submissions: number }).wrong_submissions = 0;
      expect(regradeCard(checked, counted)).toMatchObject({ status: "disagrees", code: "count_mismatch" });
      const looks = (await h.chamber.registry.proof(cards.chronoLooks as string)) as ProofBundle;
      const claimed = clone(looks);
      claimed.card.verdict = "exhausted";
      expect(regradeCard(checked, claimed)).toMatchObject({ status: "disagrees", code: "verdict_mismatch" });
      // The replay must still chain to the card.
      const broken = clone(proof);
      (broken.replay.events[1] as { at: string }).at = "2026-11-30T12:00:00.000Z";
      expect(regradeCard(checked, broken)).toMatchObject({ status: "disagrees", code: "replay_chain_broken" });

      // A secret other than the committed one, and malformed reveals, refuse the whole input.
      const refusal = (doc: unknown) => {
        try {
          checkReveal(doc);
          return null;
        } catch (e) {
          return (e as RegradeRefusal).code;
        }
      };
      expect(refusal({ ...reveal, secret: "1".repeat(64) })).toBe("secret_mismatch");
      expect(refusal({ ...reveal, suite_id: "chambre-none-v0" })).toBe("suite_unknown");
      expect(refusal({ ...reveal, extra: 1 })).toBe("reveal_malformed");
      expect(refusal({ ...reveal, secret: "XYZ" })).toBe("reveal_malformed");
      expect(refusal({ ...reveal, openings: { [id]: [{ seq: 1 }] } })).toBe("reveal_malformed");

      // Through the CLI: 1 for a disagreement, 7 for unusable input, 2 for a usage error.
      const file = (name: string, text: string) => {
        writeFileSync(join(tmp.dir, name), text);
        return join(tmp.dir, name);
      };
      const proofFile = file("proof.json", canonicalJson(proof));
      const lie = await run([
        "regrade",
        file("liar.json", JSON.stringify(liar)),
        file("forged.json", canonicalJson(forged)),
      ]);
      expect(lie.code).toBe(1);
      expect(lie.stdout).toMatch(
        new RegExp(
          `DISAGREES ${id} \\(action_mismatch\\): event \\d+ \\(action \\d+\\): submit_\\w+ is wrong in the room, correct in the replay`,
        ),
      );
      const secret = await run([
        "regrade",
        file("secret.json", JSON.stringify({ ...reveal, secret: "1".repeat(64) })),
        proofFile,
      ]);
      expect(secret.code).toBe(7);
      expect(secret.stdout).toMatch(/^refused \(secret_mismatch\): /);
      const text = JSON.stringify(reveal);
      const dup = file("dup.json", `${text.slice(0, -1)},"secret":"${"2".repeat(64)}"}`);
      expect(duplicateMember(readFileSync(dup, "utf8"))).toBe("secret");
      const dupRun = await run(["regrade", dup, proofFile]);
      expect(dupRun.code).toBe(7);
      expect(dupRun.stdout).toMatch(/refused \(reveal_malformed\): .*duplicate member name "secret"/);
      expect((await run(["regrade"])).code).toBe(2);
      expect((await run(["regrade", dup])).code).toBe(2);
      expect((await run(["regrade", dup, proofFile, "--db", "x"])).code).toBe(2);
      expect((await run(["regrade", join(tmp.dir, "missing.json"), proofFile])).code).toBe(6);

      // The independent verifier (written from the document) opens the same commitments and
      // refuses the same tampered openings; the liar's openings open, as ours do: only the room
      // (the suite code) tells it apart.
      expect(checkOpenings(proof, reveal)).toBeNull();
      const tampered = clone(reveal);
      (tampered.openings[id] as Array<{ value: unknown }>)[valueAt] = { ...openings[valueAt], value: "99" } as never;
      expect(checkOpenings(proof, tampered)).toBe("opening_mismatch");
      const closed = clone(reveal);
      (closed.openings[id] as unknown[]).splice(valueAt, 1);
      expect(checkOpenings(proof, closed)).toBe("opening_missing");
      expect(checkOpenings(proof, { ...reveal, secret: "1".repeat(64) })).toBe("secret_mismatch");
      expect(checkOpenings(forged, liar)).toBeNull();
    } finally {
      tmp.remove();
      await h.close();
    }
  });
});
