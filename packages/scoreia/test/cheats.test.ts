import { DIALECTS } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { generateRoom } from "../src/suites/atelier/generate.ts";
import { solveAtelier } from "../src/suites/atelier/solver.ts";
import { buildRoom } from "../src/suites/chrono/room.ts";
import { solveChrono } from "../src/suites/chrono/solver.ts";
import { SUITES as BASE, type Suite } from "../src/suites/index.ts";
import { roomSeedOf } from "../src/suites/secrets.ts";
import type { RoomAction } from "../src/suites/types.ts";
import { harness, IDENTITY, mcpPort } from "./support/chamber.ts";

// Issue 16 §1: neither the open code nor a solved card's public replay is an answer key.

/** The five (or four) submissions that would solve the room the public code builds from `seed` alone. */
function answersFromCode(suite: string, seed: string): RoomAction[] {
  if (suite === "chambre-chrono-v0") {
    const a = buildRoom(seed).answers;
    return [
      { op: "submit_sequence", value: a.sequence },
      { op: "submit_time", value: a.time },
      { op: "submit_number", value: String(a.number) },
      { op: "submit_master", value: a.master },
      { op: "submit_bolt", value: String(a.bolt) },
    ];
  }
  const a = generateRoom(seed).answer;
  return [
    { op: "submit_bins", value: Object.entries(a.bins).map(([p, b]) => `${p}:${b}`) },
    { op: "submit_placement", value: a.placement.map((p, i) => `${i + 1}:${p}`) },
    { op: "submit_order", value: a.order },
    { op: "submit_bolt", value: a.code },
  ];
}

const SUITES = ["chambre-chrono-v0", "chambre-atelier-v0"] as const;

describe.each(DIALECTS)("cheats on %s", (dialect) => {
  it.each(SUITES)("%s: answers computed from the code and the public seed do not solve the room", async (suite) => {
    const h = await harness(dialect);
    try {
      const first = await h.sc("enter_open_challenge", { ...IDENTITY, suite });
      const e = await h.sc("enter_open_challenge", { ...IDENTITY, suite, seed: `copy-${first.seed as string}` });
      // A server seed, shown at entry. (The control below re-enters it; a participant may not send
      // s- seeds, so it is taken as the seed of a participant attempt with the same room.)
      const seed = `copy-${e.seed as string}`;
      let index = 0;
      for (const action of answersFromCode(suite, seed)) {
        const r = await h.sc("chamber_action", {
          challenge_handle: e.attempt_handle,
          ...action,
          expected_action_index: index,
        });
        if (r.ok !== true) break; // a jammed stage or a locked op ends the cheat
        index = r.action_index as number;
        if (r.terminal) break;
      }
      const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expect(s.verdict).not.toBe("solved");

      // Control: with the generation's secret (which only the server holds) the same computation
      // solves the same seed, so the answers above were computed right, from the wrong room.
      const secret = h.chamber.service.secrets.current(BASE[suite] as Suite, "2026-11-30T12:00:00.000Z").secret;
      const again = await h.sc("enter_open_challenge", { ...IDENTITY, suite, seed });
      index = 0;
      for (const action of answersFromCode(suite, roomSeedOf(Buffer.from(secret, "hex"), seed))) {
        const r = await h.sc("chamber_action", {
          challenge_handle: again.attempt_handle,
          ...action,
          expected_action_index: index,
        });
        expect(r.ok, JSON.stringify(r)).toBe(true);
        index = r.action_index as number;
      }
      expect((await h.sc("seal_attempt", { challenge_handle: again.attempt_handle })).verdict).toBe("solved");
    } finally {
      await h.close();
    }
  });

  it.each(SUITES)("%s: a solved card's public replay gives nothing to copy; the real values would", async (suite) => {
    const h = await harness(dialect);
    try {
      const seed = `cheat-${suite}`;
      const e = await h.sc("enter_open_challenge", { ...IDENTITY, suite, seed });
      const port = mcpPort(h.sc, e);
      await (suite === "chambre-chrono-v0" ? solveChrono(port) : solveAtelier(port));
      const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expect(s.verdict).toBe("solved");
      const replay = await h.chamber.registry.replay(s.card_id as string);
      const actions = (replay?.events ?? []).filter((x) => x.kind === "action");
      const submissions = actions.filter((x) => String((x.request as { op: string }).op).startsWith("submit_"));
      expect(submissions.length).toBeGreaterThanOrEqual(answersFromCode(suite, seed).length);
      // Every submitted value and every observation is a salted commitment, never the value.
      for (const x of actions) {
        const req = x.request as Record<string, unknown>;
        const res = x.response as Record<string, unknown>;
        if ("value" in req) expect(Object.keys(req.value as object)).toEqual(["redacted"]);
        expect(Object.keys(res.observation as object)).toEqual(["redacted"]);
      }
      const text = JSON.stringify(replay);
      for (const a of answersFromCode(suite, seed)) expect(text).not.toContain(JSON.stringify(a.value));

      // The copycat: same seed, the submissions as the replay shows them, in as many actions.
      const copy = await h.sc("enter_open_challenge", { ...IDENTITY, suite, seed });
      let index = 0;
      for (const x of submissions) {
        const req = x.request as Record<string, unknown>;
        const r = await h.sc("chamber_action", {
          challenge_handle: copy.attempt_handle,
          op: req.op,
          value: JSON.stringify(req.value),
          expected_action_index: index,
        });
        if (r.ok !== true || r.terminal) break;
        index = r.action_index as number;
      }
      const copied = await h.sc("seal_attempt", { challenge_handle: copy.attempt_handle });
      expect(copied.verdict).not.toBe("solved");

      // Control: the values themselves (kept private by the server) do solve the same seed, so the
      // room is the same room and the refusal above is the commitments' doing.
      const stored = await h.db.db
        .selectFrom("chamber_events")
        .innerJoin("chamber_attempts", "chamber_attempts.handle", "chamber_events.handle")
        .select(["chamber_events.request_json", "chamber_events.response_json"])
        .where("chamber_attempts.card_id", "=", s.card_id as string)
        .where("chamber_events.kind", "=", "action")
        .orderBy("chamber_events.id")
        .execute();
      const right = stored
        .filter((r) => JSON.parse(r.response_json).result === "correct")
        .map((r) => JSON.parse(r.request_json) as Record<string, unknown>);
      const honest = await h.sc("enter_open_challenge", { ...IDENTITY, suite, seed });
      index = 0;
      for (const req of right) {
        const r = await h.sc("chamber_action", {
          challenge_handle: honest.attempt_handle,
          op: req.op,
          value: req.value,
          expected_action_index: index,
        });
        expect(r.ok, JSON.stringify(r)).toBe(true);
        index = r.action_index as number;
      }
      const control = await h.sc("seal_attempt", { challenge_handle: honest.attempt_handle });
      expect(control.verdict).toBe("solved");
      // …and its card says the seed had been sealed before this entry.
      const card = await h.chamber.registry.get(control.card_id as string);
      expect(card?.card.seed_sealed_before).toBe(true);
      expect((await h.chamber.registry.get(s.card_id as string))?.card.seed_sealed_before).toBe(false);
    } finally {
      await h.close();
    }
  });
});
