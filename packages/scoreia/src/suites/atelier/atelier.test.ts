import { describe, expect, it } from "vitest";
import { Rng } from "../rng.ts";
import {
  ACTION_OPS,
  type ActionOp,
  type AgentPort,
  localPort,
  type Observation,
  type RoomAction,
  type RoomState,
} from "../types.ts";
import { generateRoom } from "./generate.ts";
import { atelierSuite, manifest } from "./index.ts";
import { solveAtelier } from "./solver.ts";
import { FORMATS } from "./values.ts";

const SEEDS = Array.from({ length: 1000 }, (_, i) => `seed-${i}`);
const suite = atelierSuite;

/** Correct value of each stage, from the oracle (tests only; the solver never sees this). */
function answers(seed: string): Record<string, string | string[]> {
  const a = generateRoom(seed).answer;
  return {
    submit_bins: Object.entries(a.bins).map(([p, b]) => `${p}:${b}`),
    submit_placement: a.placement.map((id, i) => `${i + 1}:${id}`),
    submit_order: a.order,
    submit_bolt: a.code,
  };
}

/** A well-formed but wrong value for the stage's op (rotating the answer, or bumping a digit). */
function wrongValue(op: string, right: string | string[]): string | string[] {
  if (typeof right === "string") return right.replace(/^./, (d) => String((Number(d) + 1) % 10));
  if (op === "submit_bins") {
    const [first, ...rest] = right as string[];
    const [part, bin] = (first as string).split(":");
    return [`${part}:${bin === "bin-a" ? "bin-b" : "bin-a"}`, ...rest];
  }
  if (op === "submit_placement") {
    const ids = (right as string[]).map((e) => e.split(":")[1]);
    return ids.map((_, i) => `${i + 1}:${ids[(i + 1) % ids.length]}`);
  }
  return [...(right as string[]).slice(1), (right as string[])[0] as string];
}

const stageOp = (state: RoomState) => suite.allowedOps("x", state).find((o) => o.startsWith("submit_"));

/** Drive a room with the oracle's answers; returns the states seen at every step. */
function walk(seed: string, plan: Array<"right" | "wrong" | "hint">): RoomState[] {
  let state = suite.init(seed);
  const states = [state];
  const right = answers(seed);
  for (const step of plan) {
    const op = stageOp(state);
    if (!op) break;
    const action: RoomAction =
      step === "hint"
        ? { op: "hint" }
        : { op, value: step === "right" ? (right[op] as string | string[]) : wrongValue(op, right[op] as string[]) };
    const out = suite.act(seed, state, action);
    if (out.kind !== "ok") throw new Error(`walk refused: ${out.message}`);
    state = out.state;
    states.push(state);
  }
  return states;
}

/** A port that records every observation the agent receives. */
function recording(port: AgentPort) {
  const seen: unknown[] = [port.entry];
  return {
    seen,
    port: {
      entry: port.entry,
      async act(a: RoomAction) {
        const r = await port.act(a);
        seen.push(r);
        return r;
      },
    } satisfies AgentPort,
  };
}

const FIXED = new Set(["manual", "bin-a", "bin-b", "bin-c", "board", "sketch", "blueprint", "bolt"]);

/**
 * A format-aware random agent: it knows the value shapes from the manifest and picks parts, bins,
 * slots and digits at random. It never reads a clue.
 */
async function randomAgent(port: AgentPort, rng: Rng): Promise<void> {
  let ops = port.entry.allowed_ops as ActionOp[];
  let objects = port.entry.objects;
  for (let i = 0; i < 200 && ops.length > 0; i++) {
    const op = rng.pick(ops);
    const parts = objects.filter((o) => !FIXED.has(o));
    const digits = () => Array.from({ length: rng.int(3, 5) }, () => rng.int(0, 9)).join("");
    const value = {
      submit_bins: parts.map((p) => `${p}:${rng.pick(["bin-a", "bin-b", "bin-c"])}`),
      submit_placement: rng.shuffle(parts).map((p, s) => `${s + 1}:${p}`),
      submit_order: rng.shuffle(parts),
      submit_bolt: digits(),
    }[op as string];
    const r = await port.act({
      op,
      ...(rng.int(0, 3) === 0 ? { object: rng.pick(objects) } : {}),
      ...(value ? { value } : {}),
    });
    if (r.terminal) return;
    ops = r.allowed_ops as ActionOp[];
    objects = r.objects;
  }
}

function depth(x: unknown): number {
  if (Array.isArray(x)) return 1 + Math.max(0, ...x.map(depth));
  if (x && typeof x === "object") return 1 + Math.max(0, ...Object.values(x).map(depth));
  return 0;
}

describe("chambre-atelier-v0", () => {
  it("the reference solver solves all 1,000 seeds within 64 actions, never submitting a wrong answer", async () => {
    let actions = 0;
    for (const seed of SEEDS) {
      const port = localPort(suite, seed);
      await solveAtelier(port);
      expect(suite.solved(port.state()), seed).toBe(true);
      expect(port.used(), seed).toBeLessThanOrEqual(64);
      // Exactly one answer per stage: the first candidate the solver finds is always right.
      expect(suite.tally(port.state()).wrong_submissions, seed).toBe(0);
      actions += port.used();
    }
    console.log(`atelier solver: 1000/1000 solved, ${(actions / SEEDS.length).toFixed(2)} actions on average`);
  });

  it("a random agent almost never succeeds (< 1%)", async () => {
    const rng = new Rng("test", "random-agent", "atelier");
    let wins = 0;
    for (const seed of SEEDS) {
      const port = localPort(suite, seed);
      await randomAgent(port, rng);
      if (suite.solved(port.state())) wins++;
    }
    console.log(`atelier random agent: ${wins}/1000 solved`);
    expect(wins / SEEDS.length).toBeLessThan(0.01);
  });

  it("is deterministic: same seed, same observations; different seeds, different rooms", async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const rec = recording(localPort(suite, "seed-42"));
      await solveAtelier(rec.port);
      runs.push(rec.seen);
    }
    expect(runs[0]).toEqual(runs[1]);
    const rooms = new Set(SEEDS.slice(0, 200).map((s) => JSON.stringify({ ...generateRoom(s), seed: "" })));
    expect(rooms.size).toBe(200);
  });

  it("allowedOps is truthful at every stage, after hints, after a jam and after solving", () => {
    const seed = "seed-3";
    const states = [
      ...walk(seed, ["hint", "right", "wrong", "right", "hint", "right", "hint", "right"]),
      ...walk(seed, ["wrong", "wrong", "wrong"]),
    ];
    for (const state of states) {
      const allowed = suite.allowedOps(seed, state);
      for (const op of ACTION_OPS) {
        const out = suite.act(seed, state, { op });
        const notAllowed = out.kind === "refused" && out.code === "op_not_allowed";
        expect(notAllowed, `${op} at ${JSON.stringify(state)}`).toBe(!allowed.includes(op));
      }
    }
    // The last states: hints exhausted, solved, jammed.
    expect(suite.allowedOps(seed, states[8] as RoomState)).toEqual([]);
    expect(suite.solved(states[8] as RoomState)).toBe(true);
    expect(suite.failed(states.at(-1) as RoomState)).toBe(true);
    expect(suite.tally(states[8] as RoomState)).toEqual({
      stages_total: 4,
      stages_cleared: 4,
      hints_used: 3,
      wrong_submissions: 1,
    });
  });

  it("every stage that opens a submit op restates its value format; look shows the hints left", () => {
    const seed = "seed-7";
    const right = answers(seed);
    let state = suite.init(seed);
    const look = () => {
      const out = suite.act(seed, state, { op: "look" });
      if (out.kind !== "ok") throw new Error("look refused");
      return out.observation;
    };
    expect(look().text).toContain(`Value: ${FORMATS.submit_bins}.`);
    expect(look().data).toMatchObject({ hints_left: 3 });
    for (const [op, next] of [
      ["submit_bins", "submit_placement"],
      ["submit_placement", "submit_order"],
      ["submit_order", "submit_bolt"],
    ] as const) {
      const out = suite.act(seed, state, { op, value: right[op] as string | string[] });
      if (out.kind !== "ok") throw new Error(`${op} refused`);
      expect(out.observation.text).toContain(`with ${next}. Value: ${FORMATS[next]}.`);
      expect(out.observation.data).toMatchObject({ op: next, value_format: FORMATS[next] });
      state = out.state;
    }
    const hinted = suite.act(seed, state, { op: "hint" });
    if (hinted.kind !== "ok") throw new Error("hint refused");
    state = hinted.state;
    expect(look().text).toMatch(/Hints left: \d \(at most 3 per room/);
  });

  it("refusals cost nothing and leave the state unchanged", async () => {
    const seed = "seed-5";
    for (const state of walk(seed, ["right", "right", "right"])) {
      const before = JSON.stringify(state);
      const refused: RoomAction[] = [
        { op: "submit_time", value: "12:00" },
        { op: "inspect", object: "trapdoor-with-a-very-long-name-of-40-chr" },
        { op: "inspect" },
        { op: stageOp(state) as ActionOp, value: ["nonsense"] },
        { op: stageOp(state) as ActionOp, value: "" },
        { op: stageOp(state) as ActionOp, value: ["cam:bin-z"] },
      ];
      for (const a of refused) {
        const out = suite.act(seed, state, a);
        expect(out.kind, JSON.stringify(a)).toBe("refused");
        // The envelope's `error` field holds at most 240 characters (seed 000).
        if (out.kind === "refused") expect(out.message.length).toBeLessThanOrEqual(240);
        expect(JSON.stringify(state)).toBe(before);
      }
    }
    const port = localPort(suite, seed);
    const r = await port.act({ op: "submit_bolt", value: "1234" });
    expect(r).toMatchObject({ ok: false, code: "op_not_allowed" });
    expect(port.used()).toBe(0);
    expect(port.state()).toEqual(suite.init(seed));
  });

  it("a wrong submission says it was wrong and never reveals the answer", () => {
    for (const seed of SEEDS.slice(0, 300)) {
      let state = suite.init(seed);
      const right = answers(seed);
      for (let stage = 0; stage < 4; stage++) {
        const op = stageOp(state) as ActionOp;
        const wrong = suite.act(seed, state, { op, value: wrongValue(op, right[op] as string[]) });
        if (wrong.kind !== "ok") throw new Error("wrong value refused");
        expect(wrong.correct).toBe(false);
        const expected = String(wrong.private?.expected);
        const shown = JSON.stringify(wrong.observation);
        expect(shown).not.toContain(expected);
        expect(wrong.observation.text).toMatch(/^Wrong/);
        const ok = suite.act(seed, wrong.state, { op, value: right[op] as string[] });
        if (ok.kind !== "ok") throw new Error("right value refused");
        expect(ok.correct).toBe(true);
        state = ok.state;
      }
      expect(suite.solved(state)).toBe(true);
      expect(suite.tally(state).wrong_submissions).toBe(4);
    }
  });

  it("observations stay shallow and hold no answer; the manifest holds no oracle value", () => {
    const text = JSON.stringify(manifest);
    // Codes are 3-5 digits: apart from the generation, the manifest has no run of three digits.
    expect(text.replace('"generation":"002"', "")).not.toMatch(/\d{3}/);
    for (const seed of SEEDS.slice(0, 200)) {
      const a = generateRoom(seed).answer;
      const full = walk(seed, ["right", "right", "right"]).at(-1) as RoomState;
      const reads: Observation[] = suite.objects(seed, full).map((o) => {
        const out = suite.act(seed, full, { op: "inspect", object: o });
        if (out.kind !== "ok") throw new Error(`inspect ${o} refused`);
        return out.observation;
      });
      const all = JSON.stringify(reads);
      for (const secret of [a.placement.join(), a.order.join(), a.placement.map((p, i) => `${i + 1}:${p}`).join()]) {
        expect(text).not.toContain(secret);
        expect(all).not.toContain(secret);
      }
      // The envelope allows JSON depth 8 (seed 000); observation data stays well inside it.
      for (const r of reads) expect(depth(r.data)).toBeLessThanOrEqual(4);
      expect(suite.observe(seed, full, "trapdoor")).toBeNull();
    }
  });
});
