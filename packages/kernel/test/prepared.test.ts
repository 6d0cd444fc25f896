import { statSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "../src/store/db.ts";
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

  it("refuses a run with a missing value instead of binding undefined", async () => {
    await expect(byId.first(t.db, {} as { id: string })).rejects.toThrow("prepared query: no value for id");
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
