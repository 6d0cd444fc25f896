import { statSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { directStatements, sql } from "../src/store/db.ts";
import { prepared } from "../src/store/prepared.ts";
import { DIALECTS, openTestDatabase, type TestDb } from "../src/store/testing.ts";

interface ItemsDB {
  items: { id: string; n: number; label: string | null; kind: string };
}

const insertItem = prepared<ItemsDB, ItemsDB["items"]>((db, p) =>
  db.insertInto("items").values({ id: p.id, n: p.n, label: p.label, kind: p.kind }),
);
const byId = prepared<ItemsDB, { id: string }, ItemsDB["items"]>((db, p) =>
  db.selectFrom("items").selectAll().where("id", "=", p.id),
);
/** A literal of the query ("fixed") sits between two bound values: order and literal must survive. */
const bump = prepared<ItemsDB, { id: string; by: number }>((db, p) =>
  db
    .updateTable("items")
    .set((eb) => ({ n: eb("n", "+", p.by), kind: "fixed" }))
    .where("id", "=", p.id),
);
const page = prepared<ItemsDB, { min: number; limit: number }, ItemsDB["items"]>((db, p) =>
  db.selectFrom("items").selectAll().where("n", ">=", p.min).orderBy("id").limit(p.limit),
);

async function createItems(t: TestDb<ItemsDB>): Promise<void> {
  await t.db.schema
    .createTable("items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("n", "integer", (c) => c.notNull())
    .addColumn("label", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .execute();
}

describe.each(DIALECTS)("prepared queries on %s", (dialect) => {
  let t: TestDb<ItemsDB>;
  beforeEach(async () => {
    t = await openTestDatabase<ItemsDB>(dialect);
    await createItems(t);
  });
  afterEach(async () => {
    await t.drop();
  });

  it("binds named values in the compiled order, keeps literals, and gives the builder's results", async () => {
    for (let i = 0; i < 5; i++) {
      await insertItem.run(t.db, { id: `i${i}`, n: i, label: i % 2 ? null : `L${i}`, kind: "plain" });
    }
    expect(await byId.first(t.db, { id: "i2" })).toEqual({ id: "i2", n: 2, label: "L2", kind: "plain" });
    expect(await byId.first(t.db, { id: "i1" })).toEqual({ id: "i1", n: 1, label: null, kind: "plain" });
    expect(await byId.first(t.db, { id: "missing" })).toBeUndefined();

    const res = await bump.run(t.db, { id: "i3", by: 10 });
    expect(Number(res.numAffectedRows)).toBe(1);
    expect(await byId.first(t.db, { id: "i3" })).toMatchObject({ n: 13, kind: "fixed" });

    // Same answer as the builder run directly.
    const built = await t.db.selectFrom("items").selectAll().where("n", ">=", 2).orderBy("id").limit(2).execute();
    expect(await page.rows(t.db, { min: 2, limit: 2 })).toEqual(built);
    expect((await page.rows(t.db, { min: 0, limit: 10 })).map((r) => r.id)).toEqual(["i0", "i1", "i2", "i3", "i4"]);
  });

  it("runs inside a transaction and rolls back with it", async () => {
    await expect(
      t.db.transaction().execute(async (trx) => {
        await insertItem.run(trx, { id: "x", n: 1, label: null, kind: "k" });
        expect(await byId.first(trx, { id: "x" })).toMatchObject({ id: "x" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await byId.first(t.db, { id: "x" })).toBeUndefined();
  });

  it("Database.transaction commits what prepared statements and the builder wrote together", async () => {
    const out = await t.transaction(async (trx) => {
      await insertItem.run(trx, { id: "a", n: 1, label: null, kind: "k" });
      await trx.insertInto("items").values({ id: "b", n: 2, label: "built", kind: "k" }).execute();
      const res = await bump.run(trx, { id: "a", by: 5 });
      expect(Number(res.numAffectedRows)).toBe(1);
      // Inside, each sees the other's uncommitted rows: one connection, one transaction.
      expect(await byId.first(trx, { id: "b" })).toMatchObject({ label: "built" });
      expect(await trx.selectFrom("items").select("n").where("id", "=", "a").executeTakeFirst()).toEqual({ n: 6 });
      return "done";
    });
    expect(out).toBe("done");
    expect((await page.rows(t.db, { min: 0, limit: 10 })).map((r) => [r.id, r.n])).toEqual([
      ["a", 6],
      ["b", 2],
    ]);
  });

  it("Database.transaction rolls back everything on a throw, and on a failed statement", async () => {
    await insertItem.run(t.db, { id: "kept", n: 0, label: null, kind: "k" });
    await expect(
      t.transaction(async (trx) => {
        await insertItem.run(trx, { id: "x", n: 1, label: null, kind: "k" });
        await bump.run(trx, { id: "kept", by: 1 });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await expect(
      t.transaction(async (trx) => {
        await insertItem.run(trx, { id: "y", n: 1, label: null, kind: "k" });
        await insertItem.run(trx, { id: "kept", n: 9, label: null, kind: "k" }); // duplicate key
      }),
    ).rejects.toThrow(/unique|duplicate/i);
    expect((await page.rows(t.db, { min: 0, limit: 10 })).map((r) => [r.id, r.n])).toEqual([["kept", 0]]);
    // The connection is usable afterwards, in and out of transactions.
    await t.transaction((trx) => insertItem.run(trx, { id: "z", n: 3, label: null, kind: "k" }));
    expect(await byId.first(t.db, { id: "z" })).toMatchObject({ n: 3 });
  });

  it("Database.transaction serialises concurrent transactions: none sees or loses another's write", async () => {
    await insertItem.run(t.db, { id: "counter", n: 0, label: null, kind: "k" });
    // Read-modify-write with a pause between: lost updates if two ran interleaved.
    const incr = () =>
      t.transaction(async (trx) => {
        const lock = dialect === "postgres" ? sql`select n from items where id = 'counter' for update` : sql`select 1`;
        await lock.execute(trx);
        const row = await byId.first(trx, { id: "counter" });
        await new Promise((r) => setTimeout(r, 2));
        await trx
          .updateTable("items")
          .set({ n: (row?.n ?? 0) + 1 })
          .where("id", "=", "counter")
          .execute();
      });
    // Plain reads outside the transactions run meanwhile and never see a half-done one.
    const reads = Array.from({ length: 10 }, () => byId.first(t.db, { id: "counter" }));
    await Promise.all([...Array.from({ length: 20 }, incr), ...reads]);
    expect(await byId.first(t.db, { id: "counter" })).toMatchObject({ n: 20 });
  });

  it("refuses a run with a missing value instead of binding undefined", async () => {
    await expect(byId.first(t.db, {} as { id: string })).rejects.toThrow("prepared query: no value for id");
  });
});

describe("Database.transaction on SQLite", () => {
  let t: TestDb<ItemsDB>;
  beforeEach(async () => {
    t = await openTestDatabase<ItemsDB>("sqlite");
    await createItems(t);
  });
  afterEach(async () => {
    await t.drop();
  });

  it("runs prepared statements directly only on the connection of a transaction in progress", async () => {
    expect(directStatements(t.db as never)).toBeUndefined();
    let inside: unknown;
    await t.transaction(async (trx) => {
      expect(directStatements(trx as never)).toBeDefined();
      inside = trx;
    });
    expect(directStatements(inside as never)).toBeUndefined();
    await expect(
      t.transaction(async (trx) => {
        inside = trx;
        throw new Error("x");
      }),
    ).rejects.toThrow("x");
    expect(directStatements(inside as never)).toBeUndefined();
  });

  it("takes the write lock at BEGIN: a second process waits for it instead of failing", async () => {
    const other = new BetterSqlite3(t.target);
    other.pragma("busy_timeout = 0");
    try {
      await t.transaction(async () => {
        // IMMEDIATE: the lock is already held, before any write of ours.
        expect(() => other.prepare("insert into items values ('o', 1, null, 'k')").run()).toThrow(/locked|busy/i);
      });
      other.prepare("insert into items values ('o', 1, null, 'k')").run();
    } finally {
      other.close();
    }
    expect(await byId.first(t.db, { id: "o" })).toMatchObject({ n: 1 });
  });
});

describe("WAL checkpoints on a worker thread (SQLite)", () => {
  let t: TestDb<ItemsDB>;
  beforeEach(async () => {
    t = await openTestDatabase<ItemsDB>("sqlite");
    await createItems(t);
  });
  afterEach(async () => {
    await t.drop();
  });

  it("the writer does not checkpoint; the worker copies the log into the database file", async () => {
    const writer = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(t.db);
    expect(writer.rows[0]?.wal_autocheckpoint).toBe(0);
    const label = "x".repeat(3000);
    for (let i = 0; i < 300; i++) await insertItem.run(t.db, { id: `i${i}`, n: i, label, kind: "k" });
    // A second connection sees every row whatever the checkpoint state (WAL readers read the log).
    const reader = new BetterSqlite3(t.target, { readonly: true });
    try {
      expect(reader.pragma("wal_autocheckpoint", { simple: true })).toBe(1000); // a fresh connection's default
      expect((reader.prepare("select count(*) as c from items").get() as { c: number }).c).toBe(300);
    } finally {
      reader.close();
    }
    // 300 rows of 3 KB are far more than the 4 KB pages the empty file had: once the worker has
    // run, the database file itself holds them.
    const deadline = Date.now() + 10_000;
    while (statSync(t.target).size < 300 * 3000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(statSync(t.target).size).toBeGreaterThan(300 * 3000);
  });
});
