import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GUIDANCE, MANDATE } from "../../src/domains/tasks/rules/ready.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, expectError, freshProfile, NOW, seed, seedAll, type Task, titles } from "../support/tasks-read.ts";

const V1 = "ready_context.v1";
const MODES = ["ready", "suggested", "prime"];
type Rec = Task & {
  ready_state: string;
  score: number;
  urgency: string;
  reasons: string[];
  reason_primary: string;
  blockers: { kind: string; detail: string; refs: string[] }[];
  provenance: Record<string, unknown>;
  sort_position: number;
};
const recs = (v: unknown) => v as Rec[];
const byTitle = (list: unknown, title: string) => recs(list).find((r) => r.title === title) as Rec;

describe.each(DIALECTS)("ready_context on %s", (dialect) => {
  let h: Harness;
  let a: Agent;
  const id: Record<string, string> = {};

  beforeAll(async () => {
    h = await harness(dialect);
    a = await h.as({ principal: "alice", grants: ["alpha", "beta"], profile: freshProfile("rc") });
    // Stale and long-finished content first, 60 days back.
    h.clock.set("2026-10-01T00:00:00.000Z");
    id["Stale inbox"] = await seed(a, { title: "Stale inbox", project: "alpha", section: "inbox" });
    id["Cancelled old"] = await seed(a, { title: "Cancelled old", project: "alpha", status: "cancelled" });
    h.clock.set(NOW);
    const specs = [
      { title: "Continue refactor", project: "alpha", section: "next", status: "in_progress" },
      { title: "Ship release", project: "beta", section: "today", priority: "critical", due_date: "2026-11-29" },
      {
        title: "Pay invoice",
        project: "alpha",
        section: "inbox",
        priority: "high",
        due_date: "2026-11-30",
        description: "ACME invoice #42",
        notes: "net 30",
      },
      { title: "Plan Q1", project: "alpha", section: "next", due_date: "2026-12-02" },
      { title: "Triage idea", project: "alpha", section: "inbox", priority: "low" },
      { title: "Vendor reply", project: "alpha", section: "waiting", reminder_at: "2026-11-29T09:00:00" },
      { title: "Epic parent", project: "alpha", section: "next", priority: "high" },
      { title: "Finished parent", project: "alpha", status: "done" },
      { title: "Someday dream", project: "alpha", section: "someday" },
      { title: "Reading list note", project: "alpha", section: "next", type: "note" },
      { title: "Not yet waiting", project: "beta", section: "waiting", reminder_at: "2026-12-24T09:00:00Z" },
    ];
    const ids = await seedAll(h, a, specs);
    specs.forEach((s, i) => {
      id[s.title] = ids[i] as string;
    });
    const [step, orphan, done] = await seedAll(h, a, [
      { title: "Epic step", project: "alpha", section: "next", parent_id: id["Epic parent"] },
      { title: "Orphan step", project: "alpha", section: "inbox", parent_id: id["Finished parent"] },
      { title: "Recently done", project: "beta", status: "done" },
    ]);
    Object.assign(id, { "Epic step": step, "Orphan step": orphan, "Recently done": done });
  });
  afterAll(async () => {
    await h.close();
  });

  const ORDER = [
    "Ship release",
    "Pay invoice",
    "Continue refactor",
    "Plan Q1",
    "Epic step",
    "Triage idea",
    "Epic parent",
    "Vendor reply",
    "Not yet waiting",
    "Stale inbox",
    "Orphan step",
    "Someday dream",
  ];

  it("ready (default mode): scored records in a deterministic order, contract ready_context.v1", async () => {
    const r = await a.sc("ready_context", {});
    expect(r).toMatchObject({
      contract_version: V1,
      mode: "ready",
      today_used: "2026-11-30",
      count: 12,
      total: 12,
      truncated: false,
    });
    expect(titles(r.items)).toEqual(ORDER);
    expect(recs(r.items).map((x) => x.sort_position)).toEqual(ORDER.map((_, i) => i));
    expect(recs(r.items).map((x) => x.ready_state)).toEqual([
      "ready_now",
      "ready_now",
      "ready_now",
      "suggested_ready",
      "suggested_ready",
      "suggested_ready",
      "blocked",
      "waiting",
      "waiting",
      "cleanup_candidate",
      "cleanup_candidate",
      "deferred",
    ]);
    expect(byTitle(r.items, "Ship release")).toEqual({
      id: id["Ship release"],
      type: "task",
      title: "Ship release",
      status: "not_started",
      section: "today",
      priority: "critical",
      due_date: "2026-11-29",
      project: "beta",
      parent_id: null,
      ready_state: "ready_now",
      score: 91,
      urgency: "critical",
      urgency_reason: "past due since 2026-11-29 at critical priority",
      reasons: ["past_due", "section_today", "critical_priority"],
      reason_primary: "past_due",
      blockers: [],
      next_action: "Start it now",
      provenance: {
        source_kind: "task",
        source_id: id["Ship release"],
        project: "beta",
        created_at: expect.any(String),
        updated_at: expect.any(String),
        last_event_id: expect.any(String),
        rule_version: V1,
      },
      sort_position: 0,
    });
    // Same rows, same clock: the same bytes.
    expect(await a.call("ready_context", { mode: "ready" })).toEqual(await a.call("ready_context", {}));
    expect(await a.call("ready_context", { mode: "" })).toEqual(await a.call("ready_context", {}));
  });

  it("reasons, urgency and score follow structure: due dates, status, section, priority", async () => {
    const items = (await a.sc("ready_context", {})).items;
    expect(byTitle(items, "Pay invoice")).toMatchObject({
      ready_state: "ready_now",
      reasons: ["due_today", "high_priority"],
      urgency: "high",
      urgency_reason: "due today",
      score: 58,
    });
    expect(byTitle(items, "Continue refactor")).toMatchObject({
      reasons: ["in_progress"],
      urgency: "medium",
      score: 41,
      next_action: "Continue it",
    });
    expect(byTitle(items, "Plan Q1")).toMatchObject({
      ready_state: "suggested_ready",
      reasons: ["due_soon"],
      urgency: "medium",
      score: 38,
    });
    expect(byTitle(items, "Triage idea")).toMatchObject({ reasons: ["backlog"], urgency: "low", score: 13 });
    expect(byTitle(items, "Someday dream")).toMatchObject({ ready_state: "deferred", reasons: ["someday"] });
  });

  it("blockers: open subtasks block their parent; the waiting section parks work until its follow-up", async () => {
    const items = (await a.sc("ready_context", {})).items;
    expect(byTitle(items, "Epic parent")).toMatchObject({
      ready_state: "blocked",
      blockers: [{ kind: "open_subtasks", detail: "1 open subtask", refs: [id["Epic step"]] }],
      reasons: ["open_subtasks", "high_priority"],
      next_action: "Work the open subtasks first",
    });
    expect(byTitle(items, "Epic step")).toMatchObject({ ready_state: "suggested_ready", blockers: [] });
    expect(byTitle(items, "Vendor reply")).toMatchObject({
      ready_state: "waiting",
      blockers: [{ kind: "waiting", detail: "parked in the waiting section", refs: [] }],
      reasons: ["followup_due", "waiting"],
      urgency: "high",
      next_action: "Follow up: the reminder time has passed",
    });
    expect(byTitle(items, "Not yet waiting")).toMatchObject({
      ready_state: "waiting",
      reasons: ["waiting"],
      urgency: "low",
      next_action: "Check whether the wait is over",
    });
    // Once the subtask is done, the parent is ready again.
    await a.call("update_task", { task_id: id["Epic step"], status: "done" });
    try {
      expect(byTitle((await a.sc("ready_context", {})).items, "Epic parent")).toMatchObject({
        ready_state: "suggested_ready",
        blockers: [],
      });
    } finally {
      await a.call("update_task", { task_id: id["Epic step"], status: "not_started" });
    }
  });

  it("cleanup candidates: open work under a finished parent, inbox items untouched for 30 days", async () => {
    const items = (await a.sc("ready_context", {})).items;
    expect(byTitle(items, "Orphan step")).toMatchObject({
      ready_state: "cleanup_candidate",
      reasons: ["parent_finished"],
      next_action: "Its parent is finished: close it or move it under live work",
    });
    expect(byTitle(items, "Stale inbox")).toMatchObject({
      ready_state: "cleanup_candidate",
      reasons: ["stale_inbox"],
      next_action: "Triage: schedule it, park it in someday, or cancel it",
    });
  });

  it("limit clamps to 1..100 (default 12); truncated says more records exist", async () => {
    expect(await a.sc("ready_context", { limit: 3 })).toMatchObject({ count: 3, total: 12, truncated: true });
    expect(await a.sc("ready_context", { limit: 0 })).toMatchObject({ count: 1, truncated: true });
    expect(await a.sc("ready_context", { limit: 500 })).toMatchObject({ count: 12, truncated: false });
    const profile = freshProfile("rc");
    const b = await h.as({ principal: "bob", grants: ["bulk"], profile });
    await bulkInsert(
      h,
      profile,
      Array.from({ length: 105 }, (_, i) => ({ title: `b${i}`, project: "bulk" })),
    );
    expect(await b.sc("ready_context", {})).toMatchObject({ count: 12, total: 105, truncated: true });
    expect(await b.sc("ready_context", { limit: 1000 })).toMatchObject({ count: 100, total: 105, truncated: true });
    const prime = await b.sc("ready_context", { mode: "prime" });
    expect((prime.top_ready_items as unknown[]).length).toBe(12);
  });

  it("suggested: task-shaped candidates, actionable states only", async () => {
    const r = await a.sc("ready_context", { mode: "suggested" });
    expect(r).toMatchObject({ contract_version: V1, mode: "suggested", count: 6, total: 6, truncated: false });
    expect(titles(r.items)).toEqual(ORDER.slice(0, 6));
    const first = (r.items as Task[])[0] as Task;
    expect(first).toMatchObject({
      id: id["Ship release"],
      title: "Ship release",
      type: "task",
      status: "not_started",
      priority: "critical",
      section: "today",
      project: "beta",
      description: null,
      notes: null,
      due_date: "2026-11-29",
      ready_state: "ready_now",
      ready_score: 91,
      urgency: "critical",
      reason_primary: "past_due",
      sort_position: 0,
    });
    expect(first).toHaveProperty("created_at");
    // Task-shaped means the whole task, long bodies included.
    expect(byTitle(r.items, "Pay invoice")).toMatchObject({ description: "ACME invoice #42", notes: "net 30" });
    expect(await a.sc("ready_context", { mode: "suggested", limit: 2 })).toMatchObject({ count: 2, truncated: true });
  });

  it("prime: the session boot pack", async () => {
    const r = await a.sc("ready_context", { mode: "prime" });
    expect(Object.keys(r).sort()).toEqual(
      [
        "contract_version",
        "mode",
        "today_used",
        "mandate",
        "guidance",
        "items_empty",
        "top_ready_items",
        "blocked_or_waiting",
        "cleanup_candidates",
        "explicit_exclusions",
        "risk_or_escalation_items",
        "evidence_refs",
      ].sort(),
    );
    expect(r).toMatchObject({
      contract_version: V1,
      mode: "prime",
      today_used: "2026-11-30",
      mandate: MANDATE,
      guidance: GUIDANCE,
      items_empty: false,
    });
    expect(titles(r.top_ready_items)).toEqual(ORDER.slice(0, 6));
    expect(titles(r.blocked_or_waiting)).toEqual(["Epic parent", "Vendor reply", "Not yet waiting"]);
    expect(titles(r.cleanup_candidates)).toEqual(["Stale inbox", "Orphan step"]);
    expect(titles(r.risk_or_escalation_items)).toEqual(["Ship release", "Pay invoice", "Vendor reply"]);
    // Finished in the last 14 days, most recent first: review-only, never to be redone.
    // ("Cancelled old" finished 60 days ago: long out of the picture.)
    expect(r.explicit_exclusions).toEqual([
      expect.objectContaining({
        id: id["Finished parent"],
        title: "Finished parent",
        status: "done",
        project: "alpha",
      }),
      expect.objectContaining({ id: id["Recently done"], title: "Recently done", status: "done", project: "beta" }),
    ]);
    expect(r.evidence_refs).toEqual(recs(r.top_ready_items).map((x) => x.provenance));
    // limit caps every list.
    const one = await a.sc("ready_context", { mode: "prime", limit: 1 });
    for (const k of [
      "top_ready_items",
      "blocked_or_waiting",
      "cleanup_candidates",
      "explicit_exclusions",
      "risk_or_escalation_items",
      "evidence_refs",
    ]) {
      expect((one[k] as unknown[]).length, k).toBe(1);
    }
  });

  it("include_readings threads notes in as readings (off by default)", async () => {
    const plain = await a.sc("ready_context", {});
    expect(titles(plain.items)).not.toContain("Reading list note");
    const r = await a.sc("ready_context", { include_readings: true, limit: 20 });
    expect(titles(r.items)).toEqual([...ORDER.slice(0, 11), "Reading list note", "Someday dream"]);
    expect(byTitle(r.items, "Reading list note")).toMatchObject({
      type: "note",
      ready_state: "reading",
      reasons: ["reading"],
      urgency: "low",
      provenance: expect.objectContaining({ source_kind: "note" }),
    });
    const s = await a.sc("ready_context", { mode: "suggested", include_readings: true });
    expect(titles(s.items)).not.toContain("Reading list note");
    const p = await a.sc("ready_context", { mode: "prime", include_readings: true });
    expect(titles(p.readings)).toEqual(["Reading list note"]);
    expect(await a.sc("ready_context", { mode: "prime", include_readings: false })).not.toHaveProperty("readings");
  });

  it("an unknown mode returns an error with valid_modes", async () => {
    for (const mode of ["soon", "READY", " ready"]) {
      const r = await a.call("ready_context", { mode });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual({
        error: `Invalid mode: ${JSON.stringify(mode)}; valid modes are ready, suggested, prime`,
        error_type: "validation",
        valid_modes: MODES,
        contract_version: V1,
      });
    }
  });

  it("no visible scope reads as the empty shape of the requested mode", async () => {
    const none = await h.as({ principal: "nobody", grants: [], profile: a.caller.profile });
    const foreign = await h.as({ principal: "eve", grants: ["gamma"], profile: a.caller.profile });
    const fresh = await h.as({ principal: "fred", grants: ["alpha"], profile: freshProfile("rc") });
    for (const mode of MODES) {
      const want = await fresh.call("ready_context", { mode });
      expect(await none.call("ready_context", { mode })).toEqual(want);
      expect(await foreign.call("ready_context", { mode })).toEqual(want);
    }
    expect(await fresh.sc("ready_context", {})).toEqual({
      contract_version: V1,
      mode: "ready",
      today_used: "2026-11-30",
      count: 0,
      total: 0,
      truncated: false,
      items: [],
    });
    expect(await fresh.sc("ready_context", { mode: "prime" })).toMatchObject({
      mandate: MANDATE,
      items_empty: true,
      top_ready_items: [],
      blocked_or_waiting: [],
      cleanup_candidates: [],
      explicit_exclusions: [],
      risk_or_escalation_items: [],
      evidence_refs: [],
    });
  });

  it("structure only counts when visible: an invisible subtask never blocks (or reveals itself)", async () => {
    const profile = freshProfile("rc");
    const owner = await h.as({ principal: "owner", grants: ["pub", "priv"], profile });
    const viewer = await h.as({ principal: "viewer", grants: ["pub"], profile });
    const [parent] = await seedAll(h, owner, [{ title: "Public epic", project: "pub", section: "next" }]);
    await seedAll(h, owner, [{ title: "Private step", project: "priv", parent_id: parent }]);
    expect(byTitle((await owner.sc("ready_context", {})).items, "Public epic").ready_state).toBe("blocked");
    const seen = await viewer.sc("ready_context", {});
    expect(titles(seen.items)).toEqual(["Public epic"]);
    expect(byTitle(seen.items, "Public epic")).toMatchObject({ ready_state: "suggested_ready", blockers: [] });
  });

  it("strict validator: unknown arguments and bad types are rejected", async () => {
    await expectError(a, "ready_context", { project: "alpha" }, "Unknown argument: project");
    await expectError(a, "ready_context", { mode: 5 }, "mode must be string");
    await expectError(a, "ready_context", { include_readings: "yes" }, "include_readings must be boolean");
    await expectError(a, "ready_context", { limit: 1.5 }, "limit must be integer");
  });
});
