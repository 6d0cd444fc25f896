import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  answers,
  barrierState,
  commitmentOf,
  compareQueue,
  flipRate,
  laneOf,
  missingSections,
  moveTo,
  payloadError,
  type QueueSignals,
  roleShapeError,
  strictUtc,
  verdictOutcome,
} from "./rules.ts";

/** The debate's pure decisions, without a database. */
describe("debate rules", () => {
  it("topics move forward only", () => {
    expect(moveTo("INIT", "ACTIVE")).toBe("activate");
    expect(moveTo("ACTIVE", "RESOLVED")).toBe("resolve");
    expect(moveTo("INIT", "RESOLVED")).toBe("resolve");
    expect(moveTo("RESOLVED", "ARCHIVED")).toBe("archive");
    for (const [from, to] of [
      ["ACTIVE", "INIT"],
      ["ACTIVE", "ACTIVE"],
      ["ARCHIVED", "RESOLVED"],
      ["ACTIVE", "ARCHIVED"],
    ] as const) {
      expect(moveTo(from, to)).toBeNull();
    }
  });

  it("an A reply or a [DEFERRED: body answers a question", () => {
    expect(answers({ kind: "A", body: "yes" })).toBe(true);
    expect(answers({ kind: "STATUS", body: "  [DEFERRED: later]" })).toBe(true);
    expect(answers({ kind: "STATUS", body: "later [DEFERRED:" })).toBe(false);
  });

  it("role shapes: uppercase, numbered executors", () => {
    expect(roleShapeError("CONDUCTOR")).toBeNull();
    expect(roleShapeError("EXECUTOR_2")).toBeNull();
    expect(roleShapeError("EXECUTOR")).toMatch(/numbered/);
    expect(roleShapeError("EXECUTOR_0")).toMatch(/numbered/);
    expect(roleShapeError("pro")).toMatch(/must match/);
  });

  it("strict UTC timestamps and lanes", () => {
    expect(strictUtc("2026-11-30T12:00:00Z")).toBe(Date.parse("2026-11-30T12:00:00Z"));
    expect(strictUtc("2026-11-30T12:00:00")).toBeNull();
    expect(strictUtc("2026-11-30T12:00:00+01:00")).toBeNull();
    expect(laneOf("p3")).toEqual({ lane: "P3", rank: 3 });
    expect(laneOf("P8")).toBeNull();
  });

  it("commitments are sha256 of nonce:body; the barrier opens when the round is revealed", () => {
    expect(commitmentOf("claim", "n1")).toBe(createHash("sha256").update("n1:claim").digest("hex"));
    expect(commitmentOf("claim", "n1")).not.toBe(commitmentOf("claim", "n2"));
    expect(barrierState(null, null, null)).toBe("not_configured");
    expect(barrierState("ROUND", 2, 1)).toBe("sealed");
    expect(barrierState("ROUND", 2, 2)).toBe("open");
    expect(barrierState("ADJUDICATE", 2, 2)).toBe("open");
  });

  it("verdicts: agreement across orders is stable; flip rates count disagreeing pairs", () => {
    expect(verdictOutcome("a", null)).toEqual({ complete: false, stable: null });
    expect(verdictOutcome("a", "a")).toEqual({ complete: true, stable: true });
    expect(verdictOutcome("a", "b")).toEqual({ complete: true, stable: false });
    expect(flipRate([])).toEqual({ pairs: 0, flips: 0, rate: null });
    expect(
      flipRate([
        { ab: "a", ba: "b" },
        { ab: "a", ba: "a" },
      ]),
    ).toEqual({ pairs: 2, flips: 1, rate: 0.5 });
  });

  it("compaction sections and v1 payloads", () => {
    expect(missingSections("OBSERVE\nORIENT\n# DECIDE\nACT now")).toEqual([]);
    expect(missingSections("we OBSERVE things")).toEqual(["OBSERVE", "ORIENT", "DECIDE", "ACT"]);
    expect(payloadError({ summary: "s", assumptions: [], evidence_refs: [] })).toBeNull();
    expect(payloadError({ summary: " ", assumptions: [], evidence_refs: [] })).toMatch(/summary/);
    expect(payloadError([])).toMatch(/object/);
  });

  it("the work queue: lanes first, then deadline, questions, claims, missing roles, signals, id", () => {
    const base: QueueSignals = {
      topic_id: "m",
      lane_rank: null,
      resolve_by_ms: null,
      open_questions: 0,
      active_claims: 0,
      missing_roles: 0,
      high_messages: 0,
      latest_seq: 0,
    };
    const xs: QueueSignals[] = [
      { ...base, topic_id: "z" },
      { ...base, topic_id: "y", high_messages: 1 },
      { ...base, topic_id: "x", missing_roles: 1 },
      { ...base, topic_id: "w", active_claims: 1 },
      { ...base, topic_id: "v", open_questions: 1 },
      { ...base, topic_id: "u", resolve_by_ms: 5 },
      { ...base, topic_id: "t", lane_rank: 7, resolve_by_ms: null },
      { ...base, topic_id: "s", lane_rank: 0 },
      { ...base, topic_id: "a" },
    ];
    expect(xs.sort(compareQueue).map((x) => x.topic_id)).toEqual(["s", "t", "u", "v", "w", "x", "y", "a", "z"]);
  });
});
