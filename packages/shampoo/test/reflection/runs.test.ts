import { randomUUID } from "node:crypto";
import type { Kysely } from "kernel";
import { DIALECTS, openTestDatabase } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detect, type EntityFact, flatten, type TaskFact } from "../../src/domains/reflection/rules/detect.ts";
import { createRun, executeRun } from "../../src/domains/reflection/service/runs.ts";
import { MODULES } from "../../src/modules.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import type { ShampooDB } from "../../src/store/schema.ts";
import { ADMIN, content, everything, refused, seedMemory } from "../support/reflection.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { ok, uniq } from "../support/tasks-write.ts";

describe.each(DIALECTS)("reflection runs (%s)", (dialect) => {
  let h: Harness;
  let admin: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    admin = await h.as(ADMIN);
  });
  afterAll(async () => h?.close());

  const ctxOf = (agent: Agent) => ({
    caller: agent.caller,
    source: { tool: "test" },
    clock: h.clock,
    database: h.db,
  });

  it("reflect_audit finds every category, writes nothing, and answers byte-identically", async () => {
    const { p, ids } = await seedMemory(h, admin);
    const alice = await h.as({ principal: "alice", grants: [p] });
    const before = await everything(h);
    const a = await alice.call("reflect_audit", { project: p });
    const b = await alice.call("reflect_audit", { project: p, format: "markdown" });
    expect(await everything(h)).toEqual(before); // no run, no event, no clock tick
    const sc = a.structuredContent as Record<string, Record<string, Array<{ target_ref: string }>>>;
    const refs = (c: string) => sc.candidates?.[c]?.map((x) => x.target_ref);
    expect(refs("exact_duplicate_titles")).toEqual([ids.copy]);
    expect(refs("stale_overdue_tasks")).toEqual([ids.stale]);
    expect(refs("empty_description_notes")).toEqual([ids.empty]);
    // The parent lives in a project alice cannot see: for her it is missing (no existence oracle).
    expect(refs("orphan_parent_tasks")).toEqual([ids.child]);
    expect(refs("abandoned_inbox_items")).toEqual([ids.abandoned]);
    expect(refs("entities_no_observations")).toEqual([ids.entity]);
    expect(sc.summary).toMatchObject({ total_candidates: 6 });
    expect(sc.version).toBe("reflect_v1.0");
    // admin sees the parent: no orphan for the same project.
    const adminAudit = await ok(admin, "reflect_audit", { project: p });
    expect((adminAudit.candidates as Record<string, unknown[]>).orphan_parent_tasks).toEqual([]);
    const md = (b.structuredContent as { markdown: string }).markdown;
    expect(md).toContain("# Reflection audit (reflect_v1.0)");
    expect(md).toContain("| stale overdue tasks | 1 |");
    const { markdown: _m, ...jsonPart } = b.structuredContent as Record<string, unknown>;
    expect(JSON.stringify(jsonPart)).toBe(JSON.stringify(a.structuredContent));
    expect((await alice.call("reflect_audit", { project: p })).content).toEqual(a.content);
  });

  it("the SQL scan and the pure detectors agree on the whole memory", async () => {
    const { p } = await seedMemory(h, admin);
    const audit = await ok(admin, "reflect_audit", { limit_per_category: 1000 });
    const tasks = (await h.db.db.selectFrom("shampoo_tasks").selectAll().execute()) as unknown as TaskFact[];
    const ents = await h.db.db.selectFrom("shampoo_entities").selectAll().where("lifecycle", "=", "live").execute();
    const live = await h.db.db
      .selectFrom("shampoo_observations")
      .select("entity_id")
      .where("lifecycle", "=", "live")
      .execute();
    const withObs = new Set(live.map((o) => o.entity_id));
    const entities = ents.map((e) => ({ ...e, active_observations: withObs.has(e.id) ? 1 : 0 })) as EntityFact[];
    const pure = detect(
      { tasks: tasks.filter((t) => t.project !== null), entities: entities.filter((e) => e.project !== null) },
      { project: null, stale_days: 60, abandoned_inbox_days: 30, limit_per_category: 1000 },
      h.clock.now(),
    );
    // admin holds the untagged grant too; this memory has no untagged rows, so both views match.
    const sql = audit.candidates as Record<string, Array<Record<string, unknown>>>;
    const view = (f: ReturnType<typeof flatten>[number]) => ({
      type: f.type,
      target_kind: f.target_kind,
      target_ref: f.target_ref,
      suggested_action: f.suggested_action,
      confidence: f.confidence,
      evidence: f.evidence,
    });
    expect(Object.values(sql).flat()).toEqual(flatten(pure).map(view));
    expect(Object.values(sql).flat().length).toBeGreaterThan(5);
    expect(p).toBeTruthy();
  });

  it("reflect_start persists the audit's candidates; the same memory gives byte-identical candidates", async () => {
    const { p } = await seedMemory(h, admin);
    const alice = await h.as({ principal: "alice", grants: [p] });
    const audit = await ok(alice, "reflect_audit", { project: p });
    const r1 = await ok(alice, "reflect_start", { project: p, created_by: "nightly", instructions: "tidy up" });
    expect(r1).toMatchObject({ status: "completed", candidates_persisted: 6, summary: audit.summary });
    h.clock.advance(1000); // runs list newest first (ties: by run id)
    const r2 = await ok(alice, "reflect_start", { project: p });
    const list = async (run: unknown) =>
      ((await ok(alice, "reflect_review", { run_id: run })).candidates as Array<Record<string, unknown>>).map(content);
    const c1 = await list(r1.run_id);
    expect(JSON.stringify(await list(r2.run_id))).toBe(JSON.stringify(c1));
    const flat = Object.values(audit.candidates as Record<string, unknown[]>).flat();
    expect(c1.map((c) => JSON.stringify((c as { evidence: unknown }).evidence))).toEqual(
      flat.map((f) => JSON.stringify((f as { evidence: unknown }).evidence)),
    );
    // The run's events: create, run, complete, persist_candidates.
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select(["action", "entity_kind"])
      .where("entity_id", "=", r1.run_id as string)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => e.action)).toEqual(["create", "run", "complete", "persist_candidates"]);
    const hist = await ok(alice, "reflect_history", { project: p });
    expect((hist.runs as Array<{ run_id: string }>).map((r) => r.run_id)).toEqual([r2.run_id, r1.run_id]);
    expect((hist.runs as Array<Record<string, unknown>>)[1]).toMatchObject({
      created_by: "nightly",
      instructions: "tidy up",
      status: "completed",
      version: "reflect_v1.0",
    });
  });

  it("gates runs by their input project; unknown and foreign answer the same bytes", async () => {
    const { p } = await seedMemory(h, admin);
    const alice = await h.as({ principal: "alice", grants: [p] });
    const bob = await h.as({ principal: "bob", grants: [uniq("other")] });
    const run = await ok(alice, "reflect_start", { project: p });
    const unfiltered = await ok(admin, "reflect_start", {});
    expect(unfiltered.status).toBe("completed");
    for (const tool of ["reflect_archive", "reflect_cancel", "reflect_discard", "reflect_apply"]) {
      const missing = await refused(bob, tool, { run_id: "00000000-0000-4000-8000-000000000000" });
      expect(missing).toEqual({ error: "run_not_found", error_type: "not_found" });
      expect(await refused(bob, tool, { run_id: run.run_id })).toEqual(missing);
      // Unfiltered runs are star-only.
      expect(await refused(alice, tool, { run_id: unfiltered.run_id })).toEqual(missing);
    }
    const empty = await ok(bob, "reflect_review", { run_id: run.run_id });
    expect(empty).toMatchObject({ candidates: [], total: 0 });
    expect(await ok(bob, "reflect_review", { run_id: "nope" })).toEqual(empty);
    expect((await ok(bob, "reflect_history", {})).runs).toEqual([]);
    expect((await ok(alice, "reflect_history", {})).runs).toHaveLength(1);
    // Starting: an ungranted project or an unfiltered run without star is invalid_argument.
    for (const args of [{ project: "elsewhere" }, {}]) {
      const before = await everything(h);
      const e = await refused(alice, "reflect_start", args);
      expect(e.error_type).toBe("invalid_argument");
      expect(String(e.error)).not.toMatch(/^invalid_argument/);
      expect(await refused(alice, "reflect_audit", args)).toEqual(e);
      expect(await everything(h)).toEqual(before);
    }
    const long = await refused(alice, "reflect_start", { project: p, instructions: "x".repeat(4097) });
    expect(long).toMatchObject({
      error_type: "invalid_argument",
      error: expect.stringMatching(/^instructions_too_long: /),
    });
    expect((await ok(alice, "reflect_start", { project: p, instructions: "x".repeat(4096) })).status).toBe("completed");
    expect((await refused(alice, "reflect_start", { project: p, version: "reflect_v9" })).error_type).toBe(
      "invalid_argument",
    );
    expect((await refused(alice, "reflect_start", { project: "*" })).error_type).toBe("validation");
    expect((await refused(alice, "reflect_start", { project: p, surprise: 1 })).error).toBe(
      "Unknown argument: surprise",
    );
  });

  it("walks the whole lifecycle: cancel, archive, discard, and what each status refuses", async () => {
    const { p } = await seedMemory(h, admin);
    const alice = await h.as({ principal: "alice", grants: [p] });
    const ctx = ctxOf(alice);
    // A pending run (as a crash would leave it) cancels; terminal runs refuse.
    const pending = await createRun(ctx, { project: p });
    expect(await refused(alice, "reflect_archive", { run_id: pending.run_id })).toEqual({
      error: "cannot_archive_active_run",
      error_type: "invalid_state_transition",
      run_id: pending.run_id,
      status: "pending",
    });
    expect(await refused(alice, "reflect_discard", { run_id: pending.run_id })).toMatchObject({
      error: "cannot_discard_active_run",
      error_type: "invalid_state_transition",
    });
    expect(await refused(alice, "reflect_apply", { run_id: pending.run_id })).toMatchObject({
      error: "run_not_completed",
      status: "pending",
    });
    expect(await ok(alice, "reflect_cancel", { run_id: pending.run_id })).toMatchObject({
      status: "canceled",
      previous_status: "pending",
    });
    expect(await refused(alice, "reflect_cancel", { run_id: pending.run_id })).toMatchObject({
      error: "cannot_cancel_terminal_run",
      error_type: "invalid_state_transition",
      status: "canceled",
    });
    // The pass of a canceled run does nothing.
    expect(await executeRun(ctx, pending.run_id)).toMatchObject({ status: "canceled", candidates_persisted: 0 });

    // A cancel that lands during the pass wins: the run persists no candidate.
    h.clock.advance(1000);
    const racing = await createRun(ctx, { project: p });
    const raced = await executeRun(ctx, racing.run_id, {
      beforeComplete: async () => {
        expect(await ok(alice, "reflect_cancel", { run_id: racing.run_id })).toMatchObject({
          previous_status: "running",
        });
      },
    });
    expect(raced).toMatchObject({ status: "canceled", candidates_persisted: 0 });
    expect((await ok(alice, "reflect_review", { run_id: racing.run_id })).total).toBe(0);

    // Archive: once, then idempotent with the same stamp; history hides it unless asked.
    const done = await ok(alice, "reflect_start", { project: p });
    const a1 = await ok(alice, "reflect_archive", { run_id: done.run_id });
    expect(a1).toMatchObject({ newly_archived: true });
    h.clock.advance(60_000);
    const before = await everything(h);
    expect(await ok(alice, "reflect_archive", { run_id: done.run_id })).toEqual({ ...a1, newly_archived: false });
    expect(await everything(h)).toEqual(before);
    const listed = async (args: Record<string, unknown>) =>
      ((await ok(alice, "reflect_history", { project: p, ...args })).runs as Array<{ run_id: string }>).map(
        (r) => r.run_id,
      );
    expect(await listed({})).not.toContain(done.run_id);
    expect(await listed({ include_archived: true })).toContain(done.run_id);
    expect(await listed({ status: "canceled" })).toEqual([racing.run_id, pending.run_id]);

    // Discard: the run resolves as absent; its candidates stay reviewable and decidable.
    const review = await ok(alice, "reflect_review", { run_id: done.run_id });
    expect(await ok(alice, "reflect_discard", { run_id: done.run_id, reason: "superseded" })).toEqual({
      run_id: done.run_id,
      rows_deleted: 1,
    });
    for (const tool of ["reflect_discard", "reflect_archive", "reflect_cancel", "reflect_apply"]) {
      expect(await refused(alice, tool, { run_id: done.run_id })).toEqual({
        error: "run_not_found",
        error_type: "not_found",
      });
    }
    expect(await listed({ include_archived: true })).not.toContain(done.run_id);
    expect(await ok(alice, "reflect_review", { run_id: done.run_id })).toEqual(review);
    const first = (review.candidates as Array<{ candidate_id: string }>)[0]?.candidate_id;
    expect(await ok(alice, "reflect_decide", { candidate_id: first, decision: "reject" })).toMatchObject({
      decision: "reject",
    });
    const row = await h.db.db
      .selectFrom("shampoo_reflection_runs")
      .selectAll()
      .where("run_id", "=", done.run_id as string)
      .executeTakeFirstOrThrow();
    // Discarding is the retire move: status discarded, lifecycle retired with its own stamps only.
    expect(row).toMatchObject({
      status: "discarded",
      lifecycle: "retired",
      retired_at: new Date(h.clock.now()).toISOString(),
      retired_by: "alice",
      retire_reason: "superseded",
      voided_at: null,
      voided_by: null,
      void_reason: null,
      revived_at: null,
      revived_by: null,
    });
    const actions = await h.db.db
      .selectFrom("shampoo_history")
      .select("action")
      .where("entity_id", "=", done.run_id as string)
      .orderBy("seq")
      .execute();
    expect(actions.map((x) => x.action)).toEqual([
      "create",
      "run",
      "complete",
      "persist_candidates",
      "archive",
      "discard",
    ]);
  });

  it("a database from before reflection/0003: a discarded run comes out retired with its discard stamps", async () => {
    const db = await openTestDatabase<ShampooDB>(dialect);
    await migrateModules(db, MODULES, { only: (m) => m.id !== "reflection/0003_lifecycle" });
    const p = uniq("legacy");
    const ids = { done: randomUUID(), discarded: randomUUID() };
    const run = (run_id: string, status: string, discard: [string, string, string | null] | null) => ({
      run_id,
      profile: "default",
      project: p,
      status,
      version: "reflect_v1.0",
      created_by: "user",
      principal: "alice",
      model: null,
      instructions: null,
      input_json: JSON.stringify({ project: p, stale_days: 60, abandoned_inbox_days: 30, limit_per_category: 20 }),
      summary_json: null,
      candidates_persisted: 1,
      error_type: null,
      created_at: "2026-11-01T00:00:00.000Z",
      started_at: "2026-11-01T00:00:00.000Z",
      finished_at: "2026-11-01T00:00:01.000Z",
      archived_at: null,
      discarded_at: discard?.[0] ?? null,
      discarded_by: discard?.[1] ?? null,
      discard_reason: discard?.[2] ?? null,
      updated_at: "2026-11-01T00:00:01.000Z",
      last_event_id: randomUUID(),
    });
    const legacy = db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await legacy
      .insertInto("shampoo_reflection_runs")
      .values([
        run(ids.done, "completed", null),
        run(ids.discarded, "discarded", ["2026-11-02T00:00:00.000Z", "bob", "stale"]),
      ])
      .execute();
    await legacy
      .insertInto("shampoo_reflection_candidates")
      .values({
        candidate_id: randomUUID(),
        run_id: ids.discarded,
        profile: "default",
        ord: 0,
        type: "stale_overdue_tasks",
        suggested_action: "archive_or_reschedule",
        target_kind: "task",
        target_ref: randomUUID(),
        evidence_json: "{}",
        evidence_project: p,
        private_to: null,
        confidence: 0.7,
        fingerprint_json: "{}",
        decision: null,
        decided_by: null,
        decided_principal: null,
        decided_at: null,
        created_at: "2026-11-01T00:00:01.000Z",
      })
      .execute();

    const old = await harness(dialect, { db });
    try {
      const rows = await old.db.db.selectFrom("shampoo_reflection_runs").selectAll().execute();
      const byId = new Map(rows.map((r) => [r.run_id, r as unknown as Record<string, unknown>]));
      const none = {
        voided_at: null,
        voided_by: null,
        void_reason: null,
        revived_at: null,
        revived_by: null,
      };
      expect(byId.get(ids.discarded)).toMatchObject({
        status: "discarded",
        lifecycle: "retired",
        retired_at: "2026-11-02T00:00:00.000Z",
        retired_by: "bob",
        retire_reason: "stale",
        ...none,
      });
      expect(byId.get(ids.done)).toMatchObject({
        status: "completed",
        lifecycle: "live",
        retired_at: null,
        retired_by: null,
        retire_reason: null,
        ...none,
      });
      // The discard columns were renamed, not copied.
      for (const col of ["discarded_at", "discarded_by", "discard_reason"])
        expect(Object.keys(rows[0] ?? {})).not.toContain(col);

      // The retired run resolves as absent run-centrically; its candidate stays reviewable.
      const alice = await old.as({ principal: "alice", grants: [p] });
      const listed = await ok(alice, "reflect_history", { project: p, include_archived: true });
      expect((listed.runs as Array<{ run_id: string }>).map((r) => r.run_id)).toEqual([ids.done]);
      expect(await refused(alice, "reflect_archive", { run_id: ids.discarded })).toEqual({
        error: "run_not_found",
        error_type: "not_found",
      });
      expect((await ok(alice, "reflect_review", { run_id: ids.discarded })).total).toBe(1);

      // The live one discards onto the retire stamps.
      expect(await ok(alice, "reflect_discard", { run_id: ids.done, reason: "migrated" })).toEqual({
        run_id: ids.done,
        rows_deleted: 1,
      });
      const after = await old.db.db
        .selectFrom("shampoo_reflection_runs")
        .selectAll()
        .where("run_id", "=", ids.done)
        .executeTakeFirstOrThrow();
      expect(after).toMatchObject({
        status: "discarded",
        lifecycle: "retired",
        retired_at: new Date(old.clock.now()).toISOString(),
        retired_by: "alice",
        retire_reason: "migrated",
      });
    } finally {
      await old.close();
    }
  });

  it("a broken pass marks the run failed (best effort) and answers internal_error", async () => {
    const { p } = await seedMemory(h, admin);
    const alice = await h.as({ principal: "alice", grants: [p] });
    const ctx = ctxOf(alice);
    const run = await createRun(ctx, { project: p });
    await expect(
      executeRun(ctx, run.run_id, {
        beforeComplete: async () => {
          throw new Error("disk on fire");
        },
      }),
    ).rejects.toThrow("disk on fire");
    const hist = await ok(alice, "reflect_history", { project: p, status: "failed" });
    expect(hist.runs).toEqual([expect.objectContaining({ run_id: run.run_id, error_type: "internal_error" })]);
    expect((await ok(alice, "reflect_review", { run_id: run.run_id })).total).toBe(0);
  });
});
