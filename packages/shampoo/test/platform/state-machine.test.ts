import { DomainError } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lifecycleOf } from "../../src/platform/lifecycle.ts";
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
      const row = await p.db.db
        .selectFrom("t_items" as never)
        .selectAll()
        .where("id" as never, "=", "m3" as never)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        lifecycle: "void",
        lifecycle_by: "bob",
        lifecycle_reason: "duplicate",
        lifecycle_at: "2026-12-01T11:00:00.000Z",
      });
      expect(await write(p.ctx(), (w) => life.revive(w, "m3", 2))).toMatchObject({ state: "live", version: 3 });
      expect(await write(p.ctx(), (w) => life.retire(w, "m3", 3, "obsolete"))).toMatchObject({
        state: "retired",
        version: 4,
      });
      expect(await conflictOf(write(p.ctx(), (w) => life.revive(w, "m3", 4)))).toMatchObject({
        code: "state_conflict",
        current_state: "retired",
        allowed_moves: [],
      });
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
