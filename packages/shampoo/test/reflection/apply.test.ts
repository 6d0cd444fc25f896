import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, everything, refused, seedMemory } from "../support/reflection.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { mustRow, ok, uniq } from "../support/tasks-write.ts";

type Candidate = { candidate_id: string; type: string; target_ref: string; already_applied: boolean; decision: string };

describe.each(DIALECTS)("reflection decide, review and apply (%s)", (dialect) => {
  let h: Harness;
  let admin: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    admin = await h.as(ADMIN);
  });
  afterAll(async () => h?.close());

  /** A seeded memory, alice (its project only), a completed run, and its candidates by type. */
  async function started() {
    const m = await seedMemory(h, admin);
    const alice = await h.as({ principal: "alice", grants: [m.p] });
    const run = await ok(alice, "reflect_start", { project: m.p });
    const list = (await ok(alice, "reflect_review", { run_id: run.run_id })).candidates as Candidate[];
    const by = Object.fromEntries(list.map((c) => [c.type, c])) as Record<string, Candidate>;
    const accept = async (...types: string[]) => {
      for (const t of types)
        await ok(alice, "reflect_decide", { candidate_id: by[t]?.candidate_id, decision: "accept" });
    };
    return { ...m, alice, run_id: run.run_id as string, list, by, accept };
  }

  it("decides, overwrites decisions, and refuses unknown decisions and candidates", async () => {
    const s = await started();
    const id = s.by.stale_overdue_tasks?.candidate_id;
    expect(await ok(s.alice, "reflect_decide", { candidate_id: id, decision: "defer" })).toEqual({
      candidate_id: id,
      decision: "defer",
      decided_by: "user",
    });
    expect(
      await ok(s.alice, "reflect_decide", { candidate_id: id, decision: "accept", decided_by: "ops lead" }),
    ).toEqual({
      candidate_id: id,
      decision: "accept",
      decided_by: "ops lead",
    });
    const before = await everything(h);
    expect(await refused(s.alice, "reflect_decide", { candidate_id: id, decision: "maybe" })).toEqual({
      error: "decision must be accept, reject or defer",
      error_type: "invalid_argument",
    });
    const missing = await refused(s.alice, "reflect_decide", { candidate_id: "rc_nope", decision: "accept" });
    expect(missing).toEqual({ error: "candidate_not_found", error_type: "not_found" });
    const bob = await h.as({ principal: "bob", grants: [uniq("other")] });
    expect(await refused(bob, "reflect_decide", { candidate_id: id, decision: "reject" })).toEqual(missing);
    expect(await refused(s.alice, "reflect_decide", { candidate_id: id })).toMatchObject({
      error: "Missing required argument: decision",
    });
    expect(await everything(h)).toEqual(before);
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select(["action", "new_json"])
      .where("entity_id", "=", id as string)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => [e.action, JSON.parse(e.new_json as string).decision])).toEqual([
      ["decide", "defer"],
      ["decide", "accept"],
    ]);
  });

  it("reviews with filters, clamps and the documented errors", async () => {
    const s = await started();
    await ok(s.alice, "reflect_decide", { candidate_id: s.list[0]?.candidate_id, decision: "reject" });
    const review = (args: Record<string, unknown>) => ok(s.alice, "reflect_review", { run_id: s.run_id, ...args });
    expect((await review({ decision_filter: "reject" })).total).toBe(1);
    expect((await review({ decision_filter: "pending" })).total).toBe(5);
    expect((await review({ decision_filter: "" })).total).toBe(6);
    const one = await review({ candidate_type_filter: "stale_overdue_tasks" });
    expect((one.candidates as Candidate[]).map((c) => c.type)).toEqual(["stale_overdue_tasks"]);
    expect(await review({ limit: 0 })).toMatchObject({ limit: 1, total: 6 });
    expect(await review({ limit: 5000, offset: -3 })).toMatchObject({ limit: 1000, offset: 0 });
    const page = await review({ limit: 2, offset: 4 });
    expect((page.candidates as Candidate[]).map((c) => c.candidate_id)).toEqual(
      s.list.slice(4).map((c) => c.candidate_id),
    );
    expect(await refused(s.alice, "reflect_review", { run_id: s.run_id, decision_filter: "all" })).toMatchObject({
      error: expect.stringMatching(/^unknown_decision_filter: /),
      error_type: "invalid_argument",
    });
    expect(
      await refused(s.alice, "reflect_review", { run_id: s.run_id, candidate_type_filter: "typos" }),
    ).toMatchObject({
      error_type: "invalid_argument",
    });
    expect(await refused(s.alice, "reflect_review", {})).toMatchObject({ error: "Missing required argument: run_id" });
  });

  it("applies accepted candidates with before/after snapshots; a rerun skips and writes nothing", async () => {
    const s = await started();
    await s.accept(
      "exact_duplicate_titles",
      "stale_overdue_tasks",
      "empty_description_notes",
      "orphan_parent_tasks",
      "entities_no_observations",
    );
    const r = await ok(s.alice, "reflect_apply", { run_id: s.run_id, applied_by: "nightly" });
    expect(r).toEqual({
      run_id: s.run_id,
      considered: 5,
      applied: 4,
      skipped: [{ candidate_id: s.by.entities_no_observations?.candidate_id, reason: "no_archive_primitive" }],
      failed: [],
    });
    expect((await mustRow(h, s.ids.copy as string)).status).toBe("archived");
    expect((await mustRow(h, s.ids.keeper as string)).status).toBe("not_started"); // the kept copy
    expect((await mustRow(h, s.ids.stale as string)).status).toBe("archived");
    expect((await mustRow(h, s.ids.empty as string)).status).toBe("archived");
    expect((await mustRow(h, s.ids.child as string)).parent_id).toBeNull();
    expect((await mustRow(h, s.ids.parent as string)).status).toBe("not_started"); // never touched
    expect((await mustRow(h, s.ids.abandoned as string)).status).toBe("not_started"); // not accepted

    const snaps = await h.db.db
      .selectFrom("shampoo_reflection_snapshots")
      .selectAll()
      .where("run_id", "=", s.run_id)
      .orderBy("target_ref")
      .execute();
    expect(snaps).toHaveLength(4);
    const stale = snaps.find((x) => x.target_ref === s.ids.stale);
    expect(JSON.parse(stale?.before_json as string)).toMatchObject({ id: s.ids.stale, status: "not_started" });
    expect(JSON.parse(stale?.after_json as string)).toMatchObject({ id: s.ids.stale, status: "archived" });
    expect(stale).toMatchObject({ applied_by: "nightly", applied_principal: "alice" });
    // Through the canonical path: a task event per mutation, chained, with the run named.
    const ev = await h.db.db
      .selectFrom("shampoo_history")
      .selectAll()
      .where("event_id", "=", stale?.event_id as string)
      .executeTakeFirstOrThrow();
    expect(ev).toMatchObject({
      entity_kind: "task",
      entity_id: s.ids.stale,
      action: "reflect_apply",
      principal: "alice",
    });
    expect(JSON.parse(ev.payload_json as string)).toMatchObject({ run_id: s.run_id });
    expect((await mustRow(h, s.ids.stale as string)).last_event_id).toBe(ev.event_id);

    const flags = (await ok(s.alice, "reflect_review", { run_id: s.run_id, decision_filter: "accept" }))
      .candidates as Candidate[];
    expect(flags.map((c) => c.already_applied)).toEqual([true, true, true, true, false]);

    const before = await everything(h);
    const again = await ok(s.alice, "reflect_apply", { run_id: s.run_id });
    expect(again).toMatchObject({ considered: 5, applied: 0, failed: [] });
    expect((again.skipped as Array<{ reason: string }>).map((x) => x.reason).sort()).toEqual([
      "already_applied",
      "already_applied",
      "already_applied",
      "already_applied",
      "no_archive_primitive",
    ]);
    expect(await everything(h)).toEqual(before);
  });

  it("never clobbers concurrent work: a target written after the run is skipped as target_changed", async () => {
    const s = await started();
    await s.accept("stale_overdue_tasks", "exact_duplicate_titles", "empty_description_notes", "abandoned_inbox_items");
    // Between start and apply: someone reschedules the stale task, and edits the kept duplicate.
    h.clock.advance(1000);
    await ok(s.alice, "update_task", { task_id: s.ids.stale, due_date: "2027-01-10" });
    await ok(admin, "update_task", { task_id: s.ids.keeper, notes: "still the canonical copy?" });
    // Someone else moves the empty note to a project alice cannot see.
    const away = uniq("away");
    await ok(admin, "update_task", { task_id: s.ids.empty, project: away });
    // And the abandoned item vanishes from the store (e.g. a restore from an older backup).
    await h.db.db
      .deleteFrom("shampoo_tasks")
      .where("id", "=", s.ids.abandoned as string)
      .execute();
    const staleBefore = await mustRow(h, s.ids.stale as string);
    const r = await ok(s.alice, "reflect_apply", { run_id: s.run_id });
    const reasons = Object.fromEntries(
      (r.skipped as Array<{ candidate_id: string; reason: string }>).map((x) => [
        s.list.find((c) => c.candidate_id === x.candidate_id)?.type,
        x.reason,
      ]),
    );
    expect(reasons).toEqual({
      exact_duplicate_titles: "target_changed",
      stale_overdue_tasks: "target_changed",
      empty_description_notes: "target_out_of_scope",
      abandoned_inbox_items: "target_not_found",
    });
    expect(r).toMatchObject({ considered: 4, applied: 0 });
    expect(await mustRow(h, s.ids.stale as string)).toEqual(staleBefore); // the reschedule stands
    expect((await mustRow(h, s.ids.copy as string)).status).toBe("not_started");
    expect(
      await h.db.db.selectFrom("shampoo_reflection_snapshots").selectAll().where("run_id", "=", s.run_id).execute(),
    ).toEqual([]);
  });

  it("applies a chosen subset, and only accepted candidates", async () => {
    const s = await started();
    await s.accept("stale_overdue_tasks", "empty_description_notes");
    await ok(s.alice, "reflect_decide", { candidate_id: s.by.orphan_parent_tasks?.candidate_id, decision: "reject" });
    const only = s.by.empty_description_notes?.candidate_id as string;
    const orphan = s.by.orphan_parent_tasks?.candidate_id as string;
    const r = await ok(s.alice, "reflect_apply", { run_id: s.run_id, candidate_ids_csv: ` ${only}, ${orphan},, ` });
    expect(r).toEqual({ run_id: s.run_id, considered: 1, applied: 1, skipped: [], failed: [] });
    expect((await mustRow(h, s.ids.stale as string)).status).toBe("not_started");
    expect((await mustRow(h, s.ids.child as string)).parent_id).toBe(s.ids.parent);
  });

  it("two applies of one run at once apply each candidate exactly once", async () => {
    const s = await started();
    await s.accept("stale_overdue_tasks", "empty_description_notes", "exact_duplicate_titles", "orphan_parent_tasks");
    const other = await h.as({ principal: "alice-2", grants: [s.p] });
    const [a, b] = await Promise.all([
      ok(s.alice, "reflect_apply", { run_id: s.run_id }),
      ok(other, "reflect_apply", { run_id: s.run_id }),
    ]);
    expect((a.applied as number) + (b.applied as number)).toBe(4);
    expect([a.applied, b.applied].sort()).toEqual([0, 4]);
    const snaps = await h.db.db
      .selectFrom("shampoo_reflection_snapshots")
      .select("candidate_id")
      .where("run_id", "=", s.run_id)
      .execute();
    expect(snaps).toHaveLength(4);
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select("entity_id")
      .where("action", "=", "reflect_apply")
      .where("entity_id", "in", [s.ids.stale, s.ids.empty, s.ids.copy, s.ids.child] as string[])
      .execute();
    expect(events).toHaveLength(4);
  });
});
