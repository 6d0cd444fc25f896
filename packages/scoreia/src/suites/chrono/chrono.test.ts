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
import { chronoSuite, manifest } from "./index.ts";
import { buildRoom, type ChronoRoom } from "./room.ts";
import { solveChrono } from "./solver.ts";

const SEEDS = Array.from({ length: 1000 }, (_, i) => `seed-${i}`);

/** Wraps a port to record every observation and every state reached (tests only: reads state). */
function recording(seed: string) {
  const port = localPort(chronoSuite, seed);
  const observations: Observation[] = [];
  const states: RoomState[] = [port.state()];
  const wrapped: AgentPort = {
    entry: port.entry,
    async act(action) {
      const r = await port.act(action);
      if (r.observation) observations.push(r.observation);
      states.push(port.state());
      return r;
    },
  };
  return { port, wrapped, observations, states };
}

/** A format-aware random agent: random allowed op, random object, random well-formed value. */
async function randomAgent(port: AgentPort, rng: Rng): Promise<void> {
  let ops = port.entry.allowed_ops;
  let objects = port.entry.objects;
  const ids: string[] = [];
  const labels = ["A", "B", "C", "D", "E", "F"];
  for (let step = 0; step < 200 && ops.length > 0; step++) {
    const op = rng.pick(ops) as ActionOp;
    const action: RoomAction = { op };
    if (op === "inspect" || (op === "look" && rng.int(0, 1) === 1)) action.object = rng.pick(objects);
    if (op === "submit_sequence") action.value = ids.length > 0 ? rng.shuffle(ids) : ["cat", "lamp"];
    if (op === "submit_time")
      action.value = `${String(rng.int(0, 23)).padStart(2, "0")}:${String(rng.int(0, 59)).padStart(2, "0")}`;
    if (op === "submit_number") action.value = String(rng.int(0, 9999));
    if (op === "submit_master") action.value = rng.pick(labels);
    if (op === "submit_bolt") action.value = String(rng.int(0, 99));
    const r = await port.act(action);
    // It does pick up the event ids if it happens to read the logbook (a generous random agent).
    const data = r.observation?.data as { events?: Array<{ id: string }> } | undefined;
    if (ids.length === 0 && Array.isArray(data?.events)) ids.push(...data.events.map((e) => e.id));
    if (r.terminal) return;
    ops = r.allowed_ops;
    objects = r.objects;
  }
}

/** Drives a room through its stages with the oracle (tests only), yielding the state before each stage. */
function stageStates(seed: string, room: ChronoRoom): RoomState[] {
  const a = room.answers;
  const values: Array<[ActionOp, string | string[]]> = [
    ["submit_sequence", a.sequence],
    ["submit_time", a.time],
    ["submit_number", String(a.number)],
    ["submit_master", a.master],
    ["submit_bolt", String(a.bolt)],
  ];
  const out: RoomState[] = [];
  let state = chronoSuite.init(seed);
  for (const [op, value] of values) {
    out.push(state);
    const r = chronoSuite.act(seed, state, { op, value });
    if (r.kind !== "ok" || r.correct !== true) throw new Error(`oracle answer refused at ${op}`);
    state = r.state;
  }
  out.push(state);
  return out;
}

function wrongValue(room: ChronoRoom, op: ActionOp): string | string[] {
  const a = room.answers;
  if (op === "submit_sequence") return [...a.sequence].reverse();
  if (op === "submit_time")
    return a.time === "23:59" ? "00:00" : a.time.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
  if (op === "submit_number") return String(a.number === 9999 ? 0 : a.number + 1);
  if (op === "submit_master") return room.keys.find((k) => k.label !== a.master)?.label ?? "A";
  return String((a.bolt + 1) % 100);
}

function mentions(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^0-9A-Za-z])${escaped}($|[^0-9A-Za-z])`).test(text);
}

describe("chambre-chrono-v0 reference solver", () => {
  it("solves all 1,000 seeds within 64 actions, using only the port", async () => {
    const failures: string[] = [];
    let used = 0;
    for (const seed of SEEDS) {
      const port = localPort(chronoSuite, seed);
      try {
        await solveChrono(port);
      } catch (e) {
        failures.push(`${seed}: ${(e as Error).message}`);
      }
      if (!chronoSuite.solved(port.state()) || port.used() > 64) failures.push(`${seed}: used ${port.used()}`);
      expect(chronoSuite.tally(port.state())).toMatchObject({ stages_cleared: 5, wrong_submissions: 0, hints_used: 0 });
      used += port.used();
    }
    expect(failures).toEqual([]);
    expect(used / SEEDS.length).toBeLessThanOrEqual(20);
  });
});

describe("chambre-chrono-v0 random agent", () => {
  it("succeeds on fewer than 1% of 1,000 seeds", async () => {
    let wins = 0;
    for (const seed of SEEDS) {
      const port = localPort(chronoSuite, seed);
      await randomAgent(port, new Rng("chrono-test", "random-agent", seed));
      expect(port.used()).toBeLessThanOrEqual(64);
      if (chronoSuite.solved(port.state())) wins++;
    }
    expect(wins).toBeLessThan(10);
  });
});

describe("chambre-chrono-v0 determinism", () => {
  it("builds the same room and observations for the same seed", async () => {
    for (const seed of SEEDS.slice(0, 20)) {
      expect(buildRoom(seed)).toEqual(buildRoom(seed));
      const a = recording(seed);
      const b = recording(seed);
      await solveChrono(a.wrapped);
      await solveChrono(b.wrapped);
      expect(a.observations).toEqual(b.observations);
      expect(a.states).toEqual(b.states);
    }
  });

  it("builds different rooms for different seeds", () => {
    const logbooks = new Set<string>();
    for (const seed of SEEDS) {
      const r = chronoSuite.act(seed, chronoSuite.init(seed), { op: "inspect", object: "logbook" });
      if (r.kind === "ok") logbooks.add(r.observation.text);
    }
    expect(logbooks.size).toBe(SEEDS.length);
  });

  it("keeps the state plain, small JSON", () => {
    for (const seed of SEEDS.slice(0, 50)) {
      for (const s of stageStates(seed, buildRoom(seed))) {
        expect(JSON.parse(JSON.stringify(s))).toEqual(s);
        expect(JSON.stringify(s).length).toBeLessThan(120);
      }
    }
  });
});

describe("chambre-chrono-v0 protocol", () => {
  /** States from every stage, jammed rooms and exhausted hints: solver and random-agent runs. */
  async function sampleStates(): Promise<Array<{ seed: string; state: RoomState }>> {
    const seen = new Map<string, { seed: string; state: RoomState }>();
    for (const seed of SEEDS.slice(0, 60)) {
      const solver = recording(seed);
      await solveChrono(solver.wrapped);
      const random = recording(seed);
      await randomAgent(random.wrapped, new Rng("chrono-test", "states", seed));
      for (const state of [...solver.states, ...random.states])
        seen.set(`${seed}|${JSON.stringify(state)}`, { seed, state });
    }
    return [...seen.values()];
  }

  it("allowedOps is exactly what act does not refuse as op_not_allowed", async () => {
    const samples = await sampleStates();
    const kinds = new Set(samples.map(({ state }) => `${state.stage}/${state.jammed}`));
    expect(kinds.size).toBeGreaterThanOrEqual(7); // stages 0..5 plus a jammed room at least
    for (const { seed, state } of samples) {
      const allowed = chronoSuite.allowedOps(seed, state);
      const live = !chronoSuite.solved(state) && !chronoSuite.failed(state);
      expect(allowed.length > 0).toBe(live);
      for (const op of ACTION_OPS) {
        const r = chronoSuite.act(seed, state, { op, object: "logbook", value: "x" });
        const refusedAsNotAllowed = r.kind === "refused" && r.code === "op_not_allowed";
        expect(refusedAsNotAllowed, `${seed} ${JSON.stringify(state)} ${op}`).toBe(!allowed.includes(op));
      }
    }
  });

  it("objects() are inspectable and unknown objects are refused", () => {
    for (const seed of SEEDS.slice(0, 50)) {
      for (const state of stageStates(seed, buildRoom(seed)).slice(0, 5)) {
        for (const object of chronoSuite.objects(seed, state)) {
          expect(chronoSuite.act(seed, state, { op: "inspect", object }).kind).toBe("ok");
          expect(chronoSuite.observe(seed, state, object)).not.toBeNull();
        }
        const r = chronoSuite.act(seed, state, { op: "inspect", object: "trapdoor" });
        expect(r.kind === "refused" && r.code).toBe("object_not_available");
        expect(chronoSuite.observe(seed, state, "trapdoor")).toBeNull();
      }
    }
  });

  it("refusals cost nothing and leave the state unchanged", async () => {
    const malformed: Record<string, Array<string | string[]>> = {
      submit_sequence: ["", ["cat"], "a,b,c,d,e,f,g"],
      submit_time: ["25:00", "noon", "9h05", ["10:00", "11:00"]],
      submit_number: ["-1", "12a", "10000", "3.5"],
      submit_master: ["Z", "key", ""],
      submit_bolt: ["100", "-5", "x"],
    };
    for (const seed of SEEDS.slice(0, 50)) {
      for (const state of stageStates(seed, buildRoom(seed)).slice(0, 5)) {
        const before = JSON.stringify(state);
        const op = chronoSuite.allowedOps(seed, state).find((o) => o.startsWith("submit_")) as ActionOp;
        for (const value of malformed[op] ?? []) {
          const r = chronoSuite.act(seed, state, { op, value });
          expect(r.kind === "refused" && r.code, `${op} ${JSON.stringify(value)}`).toBe("value_format_invalid");
        }
        const other = chronoSuite.act(seed, state, { op: "inspect", object: "attic" });
        expect(other.kind).toBe("refused");
        expect(JSON.stringify(state)).toBe(before);
      }
      // Through the port: refused actions are not counted.
      const port = localPort(chronoSuite, seed);
      await port.act({ op: "submit_bolt", value: "12" });
      await port.act({ op: "submit_sequence", value: "nonsense" });
      expect(port.used()).toBe(0);
      expect(port.state()).toEqual(chronoSuite.init(seed));
    }
  });

  it("a wrong submission costs an action, is counted and never states the answer", () => {
    for (const seed of SEEDS.slice(0, 200)) {
      const room = buildRoom(seed);
      for (const state of stageStates(seed, room).slice(0, 5)) {
        const op = chronoSuite.allowedOps(seed, state).find((o) => o.startsWith("submit_")) as ActionOp;
        const r = chronoSuite.act(seed, state, { op, value: wrongValue(room, op) });
        if (r.kind !== "ok") throw new Error(`wrong value refused: ${op}`);
        expect(r.correct).toBe(false);
        expect(chronoSuite.tally(r.state).wrong_submissions).toBe(1);
        const expected = String(r.private?.expected);
        // tries_left is a counter (2 here), not a clue; everything else must not state the answer.
        const { tries_left, ...data } = r.observation.data as { tries_left: number };
        expect(tries_left).toBe(2);
        const shown = `${r.observation.text} ${JSON.stringify(data)}`;
        expect(mentions(shown, expected), `${seed} ${op}: ${shown}`).toBe(false);
        if (op === "submit_sequence") for (const id of room.order) expect(mentions(shown, id)).toBe(false);
      }
    }
  });

  it("jams a stage after three wrong submissions", () => {
    const seed = "seed-7";
    const room = buildRoom(seed);
    let state = chronoSuite.init(seed);
    for (let i = 0; i < 3; i++) {
      const r = chronoSuite.act(seed, state, { op: "submit_time", value: "00:00" });
      expect(r.kind === "refused" && r.code).toBe("op_not_allowed"); // stage 2 is still locked
      const w = chronoSuite.act(seed, state, { op: "submit_sequence", value: [...room.answers.sequence].reverse() });
      if (w.kind !== "ok") throw new Error("refused");
      state = w.state;
    }
    expect(chronoSuite.failed(state)).toBe(true);
    expect(chronoSuite.allowedOps(seed, state)).toEqual([]);
  });

  it("hints are counted, capped, and never give a stage answer", () => {
    for (const seed of SEEDS.slice(0, 200)) {
      const room = buildRoom(seed);
      const answers = [
        room.answers.sequence.join(","),
        room.answers.time,
        String(room.answers.number),
        room.answers.master,
      ];
      stageStates(seed, room)
        .slice(0, 4)
        .forEach((state, stage) => {
          let s = state;
          for (let k = 0; k < 2; k++) {
            const r = chronoSuite.act(seed, s, { op: "hint" });
            if (r.kind !== "ok") throw new Error("hint refused");
            expect(mentions(r.observation.text, answers[stage] ?? "")).toBe(false);
            s = r.state;
          }
          expect(chronoSuite.tally(s).hints_used).toBe(2);
          // two per stage: a third is refused (costs no action), and hint leaves allowed_ops
          expect(chronoSuite.allowedOps(seed, s)).not.toContain("hint");
          const third = chronoSuite.act(seed, s, { op: "hint" });
          expect(third).toMatchObject({ kind: "refused", code: "op_not_allowed" });
          if (third.kind === "refused")
            expect(third.message).toMatch(/^No hint is left for this stage.*Nothing was counted\.$/);
        });
    }
    const seed = "seed-1";
    let s = chronoSuite.init(seed);
    const room = buildRoom(seed);
    for (const [op, value] of [
      ["hint", undefined],
      ["hint", undefined],
      ["submit_sequence", room.answers.sequence],
      ["hint", undefined],
    ] as const) {
      const r = chronoSuite.act(seed, s, { op, ...(value ? { value: [...value] } : {}) });
      if (r.kind !== "ok") throw new Error("refused");
      s = r.state;
    }
    expect(chronoSuite.tally(s).hints_used).toBe(3);
    expect(chronoSuite.allowedOps(seed, s)).not.toContain("hint");
  });
});

describe("chambre-chrono-v0 manifest", () => {
  it("is public: no seed's answers appear in it", () => {
    const text = JSON.stringify(manifest);
    expect(manifest.limits).toEqual({ max_actions: 64, max_hints: 3 });
    expect(manifest.stages.map((s) => s.op)).toEqual([
      "submit_sequence",
      "submit_time",
      "submit_number",
      "submit_master",
      "submit_bolt",
    ]);
    for (const seed of SEEDS.slice(0, 100)) {
      const a = buildRoom(seed).answers;
      expect(text).not.toContain(a.sequence.join(","));
      expect(text).not.toContain(a.sequence.join(", "));
      expect(text).not.toContain(a.time);
      if (a.number > 100) expect(mentions(text, String(a.number))).toBe(false);
    }
  });
});
