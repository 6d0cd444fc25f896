/**
 * The store survives its SQLite file (issue 14 §6, docs/storage.md "Faults"): another process's
 * write lock must not block the event loop nor the reads, a write that cannot get the lock in
 * time answers the retryable `database_busy`, and a full database answers `storage_full` and
 * writes again once there is room.
 *
 * The full disk is SQLite's own size limit (PRAGMA max_page_count), which fails a write exactly
 * as a full file system does (SQLITE_FULL), without needing root to mount a small tmpfs; the same
 * path was tried on a 1 MiB tmpfs by hand (docs/storage.md).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "../src/store/db.ts";
import { storeFault } from "../src/store/faults.ts";
import { holdSqliteWriteLock, openTestDatabase, type TestDb } from "../src/store/testing.ts";

interface Db {
  notes: { id: number; body: string };
}

let t: TestDb<Db>;
beforeEach(async () => {
  t = await openTestDatabase<Db>("sqlite");
  await sql`CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL)`.execute(t.db);
  await t.db.insertInto("notes").values({ id: 1, body: "committed" }).execute();
});
afterEach(async () => t.drop());

/** Resolves with the order in which things finished. */
function recorder() {
  const order: string[] = [];
  return { order, mark: (what: string) => order.push(what) };
}

describe("another process holds the SQLite write lock", () => {
  it("a write waits without blocking the event loop, reads answer meanwhile, and after its wait it fails with database_busy", async () => {
    const { exited } = await holdSqliteWriteLock(t.target, 3000);
    const { order, mark } = recorder();
    const write = t
      .transaction(
        async (db) => {
          await db.insertInto("notes").values({ id: 2, body: "mine" }).execute();
        },
        { busyTimeoutMs: 1000 },
      )
      .then(
        () => mark("write ok"),
        (e: unknown) => {
          mark("write failed");
          return e;
        },
      );
    // While the write waits: timers fire and reads of the committed state complete.
    await new Promise((r) => setTimeout(r, 20));
    mark("timer");
    for (let i = 0; i < 5; i++) {
      const rows = await t.read((db) => db.selectFrom("notes").select("id").execute());
      expect(rows).toEqual([{ id: 1 }]);
    }
    mark("reads");
    const failure = await write;
    expect(order).toEqual(["timer", "reads", "write failed"]);
    expect(storeFault(failure)).toMatchObject({ code: "database_busy", extra: { retryable: true } });
    await exited;
    // The lock is free again: the same write succeeds.
    await t.transaction(async (db) => {
      await db.insertInto("notes").values({ id: 2, body: "mine" }).execute();
    });
    expect(await t.db.selectFrom("notes").select("id").orderBy("id").execute()).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("a write that gets the lock within its wait succeeds once the other process commits", async () => {
    const { exited } = await holdSqliteWriteLock(t.target, 400, "INSERT INTO notes (id, body) VALUES (3, 'theirs')");
    await t.transaction(async (db) => {
      await db.insertInto("notes").values({ id: 2, body: "mine" }).execute();
    });
    await exited;
    expect(await t.db.selectFrom("notes").select("id").orderBy("id").execute()).toEqual([
      { id: 1 },
      { id: 2 },
      { id: 3 },
    ]);
  });

  it("Kysely's own transactions (db.transaction()) wait on timers too: the event loop keeps running", async () => {
    const { exited } = await holdSqliteWriteLock(t.target, 600);
    const { order, mark } = recorder();
    const write = t.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("notes").values({ id: 2, body: "mine" }).execute();
      })
      .then(() => mark("write ok"));
    await new Promise((r) => setTimeout(r, 20));
    mark("timer");
    await write;
    await exited;
    expect(order).toEqual(["timer", "write ok"]);
  });
});

describe("a full database (SQLITE_FULL)", () => {
  it("a write fails with storage_full and changes nothing; writes succeed again once there is room", async () => {
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(t.db);
    const pages = Number(rows[0]?.page_count);
    await sql.raw(`PRAGMA max_page_count = ${pages + 2}`).execute(t.db);
    const big = "x".repeat(64 * 1024);
    const failure = await t
      .transaction(async (db) => {
        for (let i = 10; i < 20; i++) await db.insertInto("notes").values({ id: i, body: big }).execute();
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(storeFault(failure)).toMatchObject({ code: "storage_full", extra: { retryable: true } });
    expect(await t.db.selectFrom("notes").select("id").execute()).toEqual([{ id: 1 }]);

    await sql.raw("PRAGMA max_page_count = 1073741823").execute(t.db);
    await t.transaction(async (db) => {
      for (let i = 10; i < 20; i++) await db.insertInto("notes").values({ id: i, body: big }).execute();
    });
    expect((await t.db.selectFrom("notes").select("id").execute()).length).toBe(11);
  });
});
