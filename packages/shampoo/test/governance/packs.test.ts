import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kernel";
import { DIALECTS, openTestDatabase } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODULES } from "../../src/modules.ts";
import { LIFECYCLE_AUDIT_COLUMNS } from "../../src/platform/lifecycle.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import type { ShampooDB } from "../../src/store/schema.ts";
import { factsFrom } from "../support/governance.ts";
import { eventsOf, uniq } from "../support/sessions.ts";
import { type Harness, harness } from "../support/shampoo.ts";

describe.each(DIALECTS)("context packs on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  // A pack reads the newest 300 live facts and 200 candidate claims; a targeted pack read them
  // first and tested relevance after, so a fact naming the target but older than the newest 300
  // was never considered. It must be found however many newer facts there are.
  it("a targeted pack finds the facts and claims naming its target behind 300 newer ones", async () => {
    const p = uniq("packs");
    const alice = await h.as({ principal: uniq("alice"), grants: [p] });
    const target = await alice.sc("create_task_or_note", { title: "Orion launch", project: p });
    const relevant = (await factsFrom(alice, p, "launch site", "The Orion launch site is Kourou since 2026-01-05."))
      .facts.Kourou as string;
    expect(relevant).toBeDefined();
    // A candidate claim naming the target, left unpromoted.
    const note = await alice.sc("create_task_or_note", {
      title: "launch fuel",
      project: p,
      type: "note",
      description: "The Orion launch vehicle uses hydrazine.",
    });
    const a = await alice.sc("assess_context", { chunk_ref: note.task_id });
    const claim = (
      (await alice.sc("extract_candidate_claims", { chunk_ref: a.chunk_id })).claims as Array<{
        claim_id: string;
      }>
    )[0]?.claim_id as string;
    expect(claim).toBeDefined();

    h.clock.advance(60_000);
    const lines = Array.from({ length: 310 }, (_, i) => `Filler component ${i} uses library ${i}.`).join(" ");
    const filler = await factsFrom(alice, p, "filler", lines);
    expect(Object.keys(filler.facts)).toHaveLength(310);
    const fillerClaims = Array.from({ length: 210 }, (_, i) => `Padding module ${i} uses crate ${i}.`).join(" ");
    const pad = await alice.sc("create_task_or_note", {
      title: "padding",
      project: p,
      type: "note",
      description: fillerClaims,
    });
    const pa = await alice.sc("assess_context", { chunk_ref: pad.task_id });
    const px = await alice.sc("extract_candidate_claims", { chunk_ref: pa.chunk_id });
    expect(px.claims as unknown[]).toHaveLength(210);

    // The executor role weighs facts, the reviewer claims: each finds its own kind.
    const args = (pack_type: string, target_ref?: string) => (target_ref ? { pack_type, target_ref } : { pack_type });
    const body = async (pack_type: string, target_ref?: string) =>
      (await alice.sc("build_context_pack", args(pack_type, target_ref))).body as string;
    expect(await body("executor")).not.toContain(`(fact ${relevant})`);
    expect(await body("reviewer")).not.toContain(`(claim ${claim})`);
    const executor = await alice.sc("build_context_pack", args("executor", target.task_id as string));
    expect(executor.task_scoped).toBe(true);
    expect(executor.body as string).toContain(`(fact ${relevant})`);
    const reviewer = await alice.sc("build_context_pack", args("reviewer", target.task_id as string));
    expect(reviewer.body as string).toContain(`(claim ${claim})`);
    // Its provenance names them too.
    const sources = await h.db.db
      .selectFrom("governance_provenance")
      .select(["source_kind", "source_ref"])
      .where("target_kind", "=", "pack")
      .where("target_id", "in", [executor.pack_id as string, reviewer.pack_id as string])
      .execute();
    expect(sources).toContainEqual({ source_kind: "fact", source_ref: relevant });
    expect(sources).toContainEqual({ source_kind: "claim", source_ref: claim });
  });

  it("a newer pack of the same kind retires the older one: lifecycle retired, stamped, one retire event", async () => {
    const p = uniq("packs");
    const alice = await h.as({ principal: uniq("alice"), grants: [p] });
    await alice.sc("create_task_or_note", { title: "Plan the launch", project: p });
    const first = await alice.sc("build_context_pack", { pack_type: "planner" });
    const other = await alice.sc("build_context_pack", { pack_type: "reviewer" });
    h.clock.advance(60_000);
    const second = await alice.sc("build_context_pack", { pack_type: "planner" });
    expect([first.persisted, other.persisted, second.persisted]).toEqual([true, true, true]);
    const row = (id: unknown) =>
      h.db.db
        .selectFrom("shampoo_context_packs")
        .selectAll()
        .where("pack_id", "=", id as string)
        .executeTakeFirstOrThrow();
    const retired = await row(first.pack_id);
    expect(retired).toMatchObject({
      lifecycle: "retired",
      retired_at: new Date(h.clock.now()).toISOString(),
      retired_by: alice.caller.principal,
      retire_reason: `superseded by pack ${second.pack_id}`,
      voided_at: null,
      revived_at: null,
    });
    expect(await row(second.pack_id)).toMatchObject({ lifecycle: "live", retired_at: null });
    expect(await row(other.pack_id)).toMatchObject({ lifecycle: "live", retired_at: null });
    const events = await eventsOf(h, first.pack_id as string);
    expect(events.map((e) => e.action)).toEqual(["create", "retire"]);
    expect(JSON.parse(events[1]?.new_json ?? "null")).toEqual({
      lifecycle: "retired",
      retired_at: retired.retired_at,
      retired_by: alice.caller.principal,
      retire_reason: `superseded by pack ${second.pack_id}`,
    });
    expect(retired.last_event_id).toBe(events[1]?.event_id);
  });
});

describe.each(DIALECTS)("context packs migrated from their old status on %s", (dialect) => {
  it("a database from before governance/0003: active packs come out live, retired ones retired", async () => {
    const db = await openTestDatabase<ShampooDB>(dialect);
    await migrateModules(db, MODULES, { only: (m) => m.id !== "governance/0003_pack_lifecycle" });
    const p = uniq("legacy");
    const principal = uniq("alice");
    const ids = { active: randomUUID(), retired: randomUUID() };
    const pack = (pack_id: string, status: string) => ({
      pack_id,
      profile: "default",
      pack_type: "planner",
      session_id: null,
      project: p,
      token_budget: 4000,
      token_usage: 10,
      freshness_score: 1,
      body: "old pack",
      items_json: "[]",
      status,
      created_by: principal,
      created_at: "2026-11-01T00:00:00.000Z",
      last_event_id: randomUUID(),
    });
    const legacy = db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await legacy
      .insertInto("shampoo_context_packs")
      .values([pack(ids.active, "active"), pack(ids.retired, "retired")])
      .execute();

    const old = await harness(dialect, { db });
    try {
      const rows = await old.db.db.selectFrom("shampoo_context_packs").selectAll().execute();
      const byId = new Map(rows.map((r) => [r.pack_id, r as unknown as Record<string, unknown>]));
      const none = Object.fromEntries(LIFECYCLE_AUDIT_COLUMNS.map((c) => [c, null]));
      expect(byId.get(ids.active)).toEqual(expect.objectContaining({ lifecycle: "live", ...none }));
      expect(byId.get(ids.retired)).toEqual(expect.objectContaining({ lifecycle: "retired", ...none }));
      expect(Object.keys(rows[0] ?? {})).not.toContain("status");
      // The kind index followed the rename.
      const def =
        dialect === "postgres"
          ? sql<{
              d: string;
            }>`SELECT indexdef AS d FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'shampoo_context_packs_kind'`
          : sql<{ d: string }>`SELECT sql AS d FROM sqlite_master WHERE name = 'shampoo_context_packs_kind'`;
      expect((await def.execute(old.db.db)).rows[0]?.d).toMatch(/pack_type"?, "?lifecycle/);

      // The live one is retired by the next pack of its kind, onto the retire stamps.
      const alice = await old.as({ principal, grants: [p] });
      await alice.sc("create_task_or_note", { title: "Plan the launch", project: p });
      const next = await alice.sc("build_context_pack", { pack_type: "planner" });
      expect(next.persisted).toBe(true);
      const after = await old.db.db
        .selectFrom("shampoo_context_packs")
        .selectAll()
        .where("pack_id", "in", [ids.active, ids.retired])
        .orderBy("pack_id")
        .execute();
      expect(new Map(after.map((r) => [r.pack_id, r]))).toEqual(
        new Map([
          [
            ids.active,
            expect.objectContaining({
              lifecycle: "retired",
              retired_at: new Date(old.clock.now()).toISOString(),
              retired_by: principal,
              retire_reason: `superseded by pack ${next.pack_id}`,
            }),
          ],
          [ids.retired, expect.objectContaining({ lifecycle: "retired", retired_at: null })],
        ]),
      );
    } finally {
      await old.close();
    }
  });
});
