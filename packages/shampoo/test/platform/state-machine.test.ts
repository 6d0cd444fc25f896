import { DomainError, sql } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adoptLifecycle, LIFECYCLE_AUDIT_COLUMNS, lifecycleOf } from "../../src/platform/lifecycle.ts";
import { defineStateMachine } from "../../src/platform/state-machine.ts";
import { write } from "../../src/platform/write.ts";
import { platformDb } from "./support.ts";

const review = defineStateMachine({
  name: "review",
  table: "t_items",
  states: ["draft", "open", "accepted", "rejected"] as const,
  initial: "draft",
  moves: {
    submit: { from: ["draft"], to: "open" },
    accept: { from: ["open"], to: "accepted" },
    reject: { from: ["open"], to: "rejected" },
    reopen: { from: ["rejected"], to: "open" },
  },
});

const conflictOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return null;
  } catch (e) {
    if (e instanceof DomainError) return { code: e.code, ...e.extra };
    throw e;
  }
};

for (const dialect of DIALECTS) {
  describe(`state machines with compare-and-swap (${dialect})`, () => {
    let p: Awaited<ReturnType<typeof platformDb>>;
    beforeAll(async () => {
      p = await platformDb(dialect);
    });
    afterAll(() => p.db.drop());
    const add = (id: string) =>
      p.db.db
        .insertInto("t_items" as never)
        .values({ id, profile: "p", state: "draft", version: 1 } as never)
        .execute();

    it("a move checks the version and the source state, raises the version, records its event", async () => {
      await add("m1");
      const moved = await write(p.ctx(), (w) => review.move(w, { id: "m1", move: "submit", expectedVersion: 1 }));
      expect(moved).toEqual({ id: "m1", state: "open", version: 2 });
      expect(
        await conflictOf(write(p.ctx(), (w) => review.move(w, { id: "m1", move: "submit", expectedVersion: 2 }))),
      ).toEqual({
        code: "state_conflict",
        error_type: "state_conflict",
        current_state: "open",
        current_version: 2,
        allowed_moves: ["accept", "reject"],
      });
      expect(
        await conflictOf(write(p.ctx(), (w) => review.move(w, { id: "nope", move: "submit", expectedVersion: 1 }))),
      ).toMatchObject({ code: "not_found" });
      const ev = await p.db.db
        .selectFrom("shampoo_history")
        .select(["action", "new_json"])
        .where("entity_kind", "=", "review")
        .where("entity_id", "=", "m1")
        .execute();
      expect(ev).toEqual([{ action: "submit", new_json: JSON.stringify({ state: "open", version: 2 }) }]);
    });

    it("race: concurrent moves from the same version, exactly one winner", async () => {
      await add("m2");
      await write(p.ctx(), (w) => review.move(w, { id: "m2", move: "submit", expectedVersion: 1 }));
      const other = await p.second();
      try {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            conflictOf(
              write(p.ctx(`r${i}`, i % 2 ? other : p.db), (w) =>
                review.move(w, { id: "m2", move: i % 3 === 0 ? "reject" : "accept", expectedVersion: 2 }),
              ),
            ),
          ),
        );
        const winners = results.filter((r) => r === null);
        expect(winners).toHaveLength(1);
        const row = (await p.db.db
          .selectFrom("t_items" as never)
          .select(["state", "version"] as never)
          .where("id" as never, "=", "m2" as never)
          .executeTakeFirstOrThrow()) as { state: string; version: number };
        expect(row.version).toBe(3);
        for (const r of results.filter((x) => x !== null)) {
          expect(r).toEqual({
            code: "state_conflict",
            error_type: "state_conflict",
            current_state: row.state,
            current_version: 3,
            allowed_moves: row.state === "rejected" ? ["reopen"] : [],
          });
        }
      } finally {
        await other.release();
      }
    });

    it("never-delete vocabulary: void, revive, retire, with audit columns; retired is terminal", async () => {
      const life = lifecycleOf("item", "t_items");
      await add("m3");
      p.clock.set("2026-12-01T11:00:00.000Z");
      expect(await write(p.ctx("bob"), (w) => life.void(w, "m3", 1, "duplicate"))).toMatchObject({
        state: "void",
        version: 2,
      });
      const itemRow = (id: string) =>
        p.db.db
          .selectFrom("t_items" as never)
          .selectAll()
          .where("id" as never, "=", id as never)
          .executeTakeFirstOrThrow();
      const row = await itemRow("m3");
      expect(row).toMatchObject({
        lifecycle: "void",
        voided_by: "bob",
        void_reason: "duplicate",
        voided_at: "2026-12-01T11:00:00.000Z",
      });
      p.clock.set("2026-12-01T12:00:00.000Z");
      expect(await write(p.ctx(), (w) => life.revive(w, "m3", 2))).toMatchObject({ state: "live", version: 3 });
      // A revive stamps its own columns and keeps the void stamps as last-void evidence.
      expect(await itemRow("m3")).toMatchObject({
        lifecycle: "live",
        revived_at: "2026-12-01T12:00:00.000Z",
        voided_by: "bob",
        void_reason: "duplicate",
      });
      expect(await write(p.ctx("carol"), (w) => life.retire(w, "m3", 3, "obsolete"))).toMatchObject({
        state: "retired",
        version: 4,
      });
      expect(await itemRow("m3")).toMatchObject({
        lifecycle: "retired",
        retired_by: "carol",
        retire_reason: "obsolete",
      });
      expect(await conflictOf(write(p.ctx(), (w) => life.revive(w, "m3", 4)))).toMatchObject({
        code: "state_conflict",
        current_state: "retired",
        allowed_moves: [],
      });
    });

    it("adoptLifecycle moves a legacy table onto the vocabulary: values mapped, audit columns renamed or added, indexes follow", async () => {
      const db = p.db.db;
      await sql`CREATE TABLE t_legacy (id text PRIMARY KEY, profile text NOT NULL, status text NOT NULL,
        removed_at text, removed_by text)`.execute(db);
      await sql`CREATE INDEX t_legacy_status ON t_legacy (profile, status)`.execute(db);
      await sql`INSERT INTO t_legacy VALUES ('a', 'p', 'active', NULL, NULL), ('b', 'p', 'removed', 'T1', 'bob'),
        ('c', 'p', 'stale', NULL, NULL)`.execute(db);
      await adoptLifecycle(db as never, dialect, {
        table: "t_legacy",
        state: { column: "status", map: { removed: "void", stale: "retired" } },
        rename: { removed_at: "voided_at", removed_by: "voided_by" },
      });
      const rows = await sql<Record<string, unknown>>`SELECT * FROM t_legacy ORDER BY id`.execute(db);
      expect(rows.rows.map((r) => [r.id, r.lifecycle, r.voided_at, r.voided_by])).toEqual([
        ["a", "live", null, null],
        ["b", "void", "T1", "bob"],
        ["c", "retired", null, null],
      ]);
      expect(Object.keys(rows.rows[0] ?? {}).sort()).toEqual(
        ["id", "profile", "lifecycle", ...LIFECYCLE_AUDIT_COLUMNS].sort(),
      );
      // A workflow status that also marked the lifecycle stays, with lifecycle beside it.
      await sql`CREATE TABLE t_runs (id text PRIMARY KEY, status text NOT NULL, discarded_at text)`.execute(db);
      await sql`INSERT INTO t_runs VALUES ('r1', 'completed', NULL), ('r2', 'discarded', 'T2')`.execute(db);
      await adoptLifecycle(db as never, dialect, {
        table: "t_runs",
        state: { column: "status", map: { discarded: "retired" }, keep: true },
        rename: { discarded_at: "retired_at" },
      });
      const runs = await sql<
        Record<string, unknown>
      >`SELECT id, status, lifecycle, retired_at FROM t_runs ORDER BY id`.execute(db);
      expect(runs.rows).toEqual([
        { id: "r1", status: "completed", lifecycle: "live", retired_at: null },
        { id: "r2", status: "discarded", lifecycle: "retired", retired_at: "T2" },
      ]);
      // The renamed state column kept its index.
      const indexed =
        dialect === "postgres"
          ? await sql<{ name: string }>`SELECT indexdef AS name FROM pg_indexes
              WHERE schemaname = current_schema() AND indexname = 't_legacy_status'`.execute(db)
          : await sql<{ name: string }>`SELECT name FROM pragma_index_info('t_legacy_status')`.execute(db);
      expect(indexed.rows.map((r) => r.name).join(" ")).toContain("lifecycle");
    });

    it("a machine that names an undeclared state is refused at definition", () => {
      expect(() =>
        defineStateMachine({
          name: "x",
          table: "t_items",
          states: ["a"] as const,
          initial: "a",
          moves: { go: { from: ["a"], to: "b" as "a" } },
        }),
      ).toThrow("move go names undeclared state b");
    });
  });
}
