import { describe, expect, it } from "vitest";
import { assess, canMove, detectSignals, score } from "./chunks.ts";
import { sourceHash } from "./text.ts";

const base = { hash: "h1", stateHash: null, force: false, last: { materiality: 0, uncertainty: 0 } };

describe("chunk signals and scores", () => {
  it("detects each marker kind, counted, in the fixed order", () => {
    const s = detectSignals(
      "We decided the gateway must use PostgreSQL since 2026-01-05. Maybe Redis? TODO: see docs/a.md [frozen]",
    );
    expect(s.map((x) => x.kind)).toEqual(["decision", "hedge", "question", "todo", "time", "reference", "freeze"]);
    expect(s.find((x) => x.kind === "decision")).toEqual({ kind: "decision", count: 2, markers: ["decided", "must"] });
  });
  it("materiality counts decisions, constraints, claims, times and references; uncertainty hedges, questions, to-dos", () => {
    const body = "We decided the gateway requires PostgreSQL since 2026-01-05, see docs/db.md.";
    expect(score(body, detectSignals(body))).toEqual({ materiality: 1, uncertainty: 0 });
    const vague = "Maybe the cache is Redis. Probably? TODO ask.";
    expect(score(vague, detectSignals(vague))).toEqual({ materiality: 0.2, uncertainty: 0.85 });
    expect(score("hi", [])).toEqual({ materiality: 0, uncertainty: 0 });
  });
});

describe("chunk lifecycle", () => {
  it("new → enrichable for a settled body, → uncertain for a hedged one, → frozen on the marker", () => {
    expect(assess({ ...base, state: "new", body: "The gateway uses PostgreSQL." }).state).toBe("enrichable");
    const u = assess({ ...base, state: "new", body: "Maybe the cache is Redis. Probably? TODO ask." });
    expect([u.state, u.policy]).toEqual(["uncertain", "clarify"]);
    const f = assess({ ...base, state: "enrichable", body: "[frozen] The gateway uses PostgreSQL." });
    expect([f.state, f.should_skip, f.skip_reason]).toEqual(["frozen", true, "frozen"]);
  });
  it("advises skipping low-materiality chunks", () => {
    const a = assess({ ...base, state: "new", body: "lunch" });
    expect([a.state, a.should_skip, a.skip_reason, a.policy]).toEqual(["enrichable", true, "low_materiality", "skip"]);
  });
  it("frozen without force is a skip payload; with force it is assessed again", () => {
    const last = { materiality: 0.4, uncertainty: 0.1 };
    const blocked = assess({ ...base, last, state: "frozen", body: "The gateway uses PostgreSQL." });
    expect(blocked).toMatchObject({ state: "frozen", assessed: false, skip_reason: "frozen", materiality: 0.4 });
    const forced = assess({ ...base, state: "frozen", force: true, body: "The gateway uses PostgreSQL." });
    expect([forced.state, forced.previous_state, forced.assessed]).toEqual(["enrichable", "frozen", true]);
  });
  it("awaiting_human with an unchanged source is a skip; a changed source is assessed", () => {
    const h = sourceHash("x");
    const same = assess({ ...base, hash: h, stateHash: h, state: "awaiting_human", body: "x" });
    expect([same.state, same.skip_reason, same.assessed]).toEqual([
      "awaiting_human",
      "awaiting_human_unchanged",
      false,
    ]);
    const changed = assess({
      ...base,
      hash: "other",
      stateHash: h,
      state: "awaiting_human",
      body: "The API uses JSON.",
    });
    expect(changed.state).toBe("enrichable");
  });
  it("the move table refuses what the lifecycle does not allow", () => {
    expect(canMove("frozen", "queue", "awaiting_human")).toBe(false);
    expect(canMove("frozen", "answer", "enrichable")).toBe(false);
    expect(canMove("frozen", "assess", "enrichable")).toBe(false);
    expect(canMove("uncertain", "answer", "enrichable")).toBe(true);
    expect(canMove("new", "queue", "awaiting_human")).toBe(true);
  });
});
