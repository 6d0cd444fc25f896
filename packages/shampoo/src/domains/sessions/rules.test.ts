import { describe, expect, it } from "vitest";
import type { TaskRow } from "../tasks/schema.ts";
import { buildHandoff, changes, type PackInput, parseSessionId, recallCount, resumeSummary, tokens } from "./rules.ts";
import type { SessionRow } from "./schema.ts";

const ID = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const NOW = Date.parse("2025-06-10T12:00:00.000Z");

const session: SessionRow = {
  profile: "default",
  session_id: ID,
  owner: "alice",
  project: "ops",
  summary: "Drafted the README.",
  active_files: JSON.stringify(["a.ts", "b.ts"]),
  state: "live",
  started_at: "2025-06-10T11:00:00.000Z",
  ended_at: "2025-06-10T12:00:00.000Z",
  closed_at: null,
  closed_by: null,
  handed_to: null,
  updated_at: "2025-06-10T12:00:00.000Z",
  last_event_id: "e1",
};

const input = (over: Partial<PackInput> = {}): PackInput => ({
  now: NOW,
  budget: 4000,
  session,
  tasks: [],
  openChildren: new Map(),
  events: [],
  questions: [],
  awaiting: [],
  facts: [],
  ...over,
});

describe("session ids", () => {
  it("reads every form the platform UUID parser reads, canonical lowercase", () => {
    for (const raw of [ID, ID.toUpperCase(), `{${ID.toUpperCase()}}`, `urn:uuid:${ID}`, ID.replaceAll("-", "")]) {
      expect(parseSessionId(raw)).toBe(ID);
    }
  });

  it("refuses anything but 32 hex digits", () => {
    for (const raw of ["", "not-a-uuid", `${ID}0`, ID.slice(1), ID.replace("6", "g")]) {
      expect(parseSessionId(raw)).toBeNull();
    }
  });
});

describe("session_recall count", () => {
  it("defaults to 5, reads booleans as 0/1, clamps to 0..100", () => {
    expect(recallCount(undefined)).toBe(5);
    expect([true, false].map(recallCount)).toEqual([1, 0]);
    expect([-3, 0, 7, 100, 101, 10_000].map(recallCount)).toEqual([0, 0, 7, 100, 100, 100]);
  });
});

describe("handoff pack", () => {
  it("holds the session, its files and the empty sections; everything dated now is fresh", () => {
    const p = buildHandoff(input());
    expect(p.body).toContain(`Session ${ID} (project ops, live)`);
    expect(p.body).toContain("## Summary\nDrafted the README.");
    expect(p.body).toContain("## Active files\n- a.ts\n- b.ts");
    expect(p.body).toContain("## Open tasks (project ops)\n(none)");
    expect(p.counts).toEqual({ tasks: 0, events: 0, files: 2 });
    expect(p.tokenUsage).toBe(tokens(p.body));
    expect(p.freshness).toBe(1);
  });

  it("without a session is a general handoff with nothing dated (freshness 0)", () => {
    const p = buildHandoff(input({ session: null }));
    expect(p.body).toContain("General handoff (no session)");
    expect(p.body).toContain("## Open tasks (all visible projects)");
    expect(p.freshness).toBe(0);
  });

  it("stays under its budget: a long summary is cut and marked, tasks stop when they no longer fit", () => {
    const task = (i: number) =>
      ({
        id: `t${i}`,
        title: `Task ${i} ${"x".repeat(200)}`,
        status: "not_started",
        priority: "high",
        project: "ops",
        updated_at: "2025-06-03T12:00:00.000Z",
      }) as TaskRow;
    const p = buildHandoff(
      input({
        budget: 400,
        session: { ...session, summary: "word ".repeat(1000) },
        tasks: [1, 2, 3].map(task),
      }),
    );
    expect(p.tokenUsage).toBeLessThanOrEqual(400);
    expect(p.body).toContain("…");
    expect(p.counts.tasks).toBeLessThan(3);
  });

  it("weighs freshness by age: a week old counts one half", () => {
    const old = { ...session, ended_at: "2025-06-03T12:00:00.000Z" };
    expect(buildHandoff(input({ session: old })).freshness).toBe(0.5);
  });

  it("says what an event changed; a creation lists only the facets it set", () => {
    expect(changes('{"status":"not_started","updated_at":"a"}', '{"status":"done","updated_at":"b"}')).toBe(
      'status: "not_started" → "done"',
    );
    expect(changes(null, '{"title":"T","priority":"high","assignee":null}')).toBe('priority "high"');
  });

  it("summarises what it built and what continuity it found", () => {
    const built = buildHandoff(input());
    const s = resumeSummary({ session, packId: "p1", built, questions: null, awaiting: 1, facts: 2 });
    expect(s).toBe(
      `Resumed session ${ID} (project ops): handoff pack p1 with the session summary, 2 active files, 0 open tasks, 0 recent events (${built.tokenUsage} of 4000 tokens). Context: open-question scan skipped on request, 1 chunk awaiting human input, 2 facts changed in the last 7 days.`,
    );
  });
});
