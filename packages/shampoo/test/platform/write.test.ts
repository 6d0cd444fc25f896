import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, write } from "../../src/platform/write.ts";
import { platformDb } from "./support.ts";

for (const dialect of DIALECTS) {
  describe(`platform write/read (${dialect})`, () => {
    let p: Awaited<ReturnType<typeof platformDb>>;
    beforeAll(async () => {
      p = await platformDb(dialect);
    });
    afterAll(() => p.db.drop());

    const clockOf = async () =>
      Number(
        (await p.db.db.selectFrom("shampoo_clocks").select("clock").where("profile", "=", "p").executeTakeFirst())
          ?.clock ?? 0,
      );
    const events = () =>
      p.db.db
        .selectFrom("shampoo_history")
        .select(["clock", "action", "entity_id"])
        .where("profile", "=", "p")
        .orderBy("seq")
        .execute();

    it("one transaction: the change, its events with consecutive clock values, hooks after the commit", async () => {
      const seen: string[] = [];
      const before = await clockOf();
      const ids = await write(p.ctx(), async (w) => {
        await w.trx
          .insertInto("t_items" as never)
          .values({ id: "a", profile: "p", state: "draft", version: 1 } as never)
          .execute();
        const e1 = await w.event({ entityKind: "item", entityId: "a", action: "create", old: null, new: { id: "a" } });
        const e2 = await w.event({
          entityKind: "item",
          entityId: "a",
          action: "touch",
          old: null,
          new: null,
          parentEventId: e1,
        });
        // The clock is bumped once, at the end: not yet inside the work.
        const mid = await w.trx
          .selectFrom("shampoo_clocks")
          .select("clock")
          .where("profile", "=", "p")
          .executeTakeFirst();
        seen.push(`mid:${mid ? Number(mid.clock) : "none"}`);
        w.afterCommit(() => {
          seen.push("hook");
        });
        return [e1, e2];
      });
      expect(ids).toHaveLength(2);
      expect(seen).toEqual([`mid:${before === 0 ? "none" : before}`, "hook"]);
      expect(await clockOf()).toBe(before + 2);
      expect((await events()).slice(-2)).toEqual(
        [
          { clock: before + 1, action: "create", entity_id: "a" },
          { clock: before + 2, action: "touch", entity_id: "a" },
        ].map((e) => ({ ...e, clock: dialect === "postgres" ? String(e.clock) : e.clock })),
      );
    });

    it("a throwing write keeps nothing: no row, no event, no clock bump, no hook", async () => {
      const before = await clockOf();
      const n = (await events()).length;
      let hooked = false;
      await expect(
        write(p.ctx(), async (w) => {
          await w.trx
            .insertInto("t_items" as never)
            .values({ id: "b", profile: "p", state: "draft", version: 1 } as never)
            .execute();
          await w.event({ entityKind: "item", entityId: "b", action: "create", old: null, new: null });
          w.afterCommit(() => {
            hooked = true;
          });
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(hooked).toBe(false);
      expect(await clockOf()).toBe(before);
      expect((await events()).length).toBe(n);
      expect(
        await p.db.db
          .selectFrom("t_items" as never)
          .selectAll()
          .where("id" as never, "=", "b" as never)
          .execute(),
      ).toEqual([]);
    });

    it("a failing hook does not undo the committed write", async () => {
      await write(p.ctx(), async (w) => {
        await w.trx
          .insertInto("t_items" as never)
          .values({ id: "c", profile: "p", state: "draft", version: 1 } as never)
          .execute();
        w.afterCommit(() => {
          throw new Error("hook failed");
        });
      });
      const rows = await read(p.ctx(), (db) =>
        db
          .selectFrom("t_items" as never)
          .select("id" as never)
          .where("id" as never, "=", "c" as never)
          .execute(),
      );
      expect(rows).toEqual([{ id: "c" }]);
    });

    it("an event may carry a pre-chosen id (a row already points at it)", async () => {
      const id = "0f0e0d0c-0b0a-4908-8706-050403020100";
      const got = await write(p.ctx(), (w) =>
        w.event({ eventId: id, entityKind: "item", entityId: "pre", action: "create", old: null, new: null }),
      );
      expect(got).toBe(id);
      const row = await p.db.db
        .selectFrom("shampoo_history")
        .select(["entity_id", "action"])
        .where("event_id", "=", id)
        .executeTakeFirst();
      expect(row).toEqual({ entity_id: "pre", action: "create" });
    });

    it("flushEvents writes the waiting events mid-write (one clock bump); the rest go at the end", async () => {
      const before = await clockOf();
      const inside: Array<{ pending: number; flushed?: number; clock: number; rows: number }> = [];
      const probe = async (w: Parameters<Parameters<typeof write>[1]>[0], flushed?: number) => {
        const c = await w.trx
          .selectFrom("shampoo_clocks")
          .select("clock")
          .where("profile", "=", "p")
          .executeTakeFirst();
        const rows = await w.trx
          .selectFrom("shampoo_history")
          .select("event_id")
          .where("entity_id", "=", "flushed")
          .execute();
        inside.push({
          pending: w.pendingEvents(),
          ...(flushed === undefined ? {} : { flushed }),
          clock: Number(c?.clock ?? 0),
          rows: rows.length,
        });
      };
      await write(p.ctx(), async (w) => {
        await w.event({ entityKind: "item", entityId: "flushed", action: "a", old: null, new: null });
        await w.event({ entityKind: "item", entityId: "flushed", action: "b", old: null, new: null });
        await probe(w);
        await probe(w, await w.flushEvents());
        await w.event({ entityKind: "item", entityId: "flushed", action: "c", old: null, new: null });
        await probe(w);
      });
      expect(inside).toEqual([
        { pending: 2, clock: before, rows: 0 },
        { pending: 0, flushed: 2, clock: before + 2, rows: 2 },
        { pending: 1, clock: before + 2, rows: 2 },
      ]);
      expect(await clockOf()).toBe(before + 3);
      expect((await events()).filter((e) => e.entity_id === "flushed").map((e) => [Number(e.clock), e.action])).toEqual(
        [
          [before + 1, "a"],
          [before + 2, "b"],
          [before + 3, "c"],
        ],
      );
    });

    it("events flushed before a failure roll back with the write", async () => {
      const before = await clockOf();
      const n = (await events()).length;
      await expect(
        write(p.ctx(), async (w) => {
          await w.event({ entityKind: "item", entityId: "gone", action: "a", old: null, new: null });
          await w.flushEvents();
          throw new Error("late failure");
        }),
      ).rejects.toThrow("late failure");
      expect(await clockOf()).toBe(before);
      expect((await events()).length).toBe(n);
    });

    it("concurrent writes of one profile get distinct, gap-free clock values", async () => {
      const other = await p.second();
      try {
        const before = await clockOf();
        await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            write(p.ctx("alice", i % 2 ? other : p.db), async (w) => {
              await w.event({ entityKind: "item", entityId: `n${i}`, action: "note", old: null, new: null });
              await w.event({ entityKind: "item", entityId: `n${i}`, action: "note2", old: null, new: null });
            }),
          ),
        );
        const clocks = (await events())
          .map((e) => Number(e.clock))
          .filter((c) => c > before)
          .sort((a, b) => a - b);
        expect(clocks).toEqual(Array.from({ length: 24 }, (_, i) => before + 1 + i));
      } finally {
        await other.release();
      }
    });
  });
}
