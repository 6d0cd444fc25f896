import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, sql } from "../src/store/db.ts";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "kernel-mp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SQLite shared by several processes", () => {
  it("serialises read-modify-write transactions across processes without 'database is locked' or lost updates", async () => {
    const file = join(dir, "shared.db");
    const db = await openDatabase<Record<string, never>>(file);
    await sql`create table counter (id integer primary key, n integer not null)`.execute(db.db);
    await sql`create table log (who text not null, n integer not null)`.execute(db.db);
    await sql`insert into counter (id, n) values (1, 0)`.execute(db.db);
    await db.close();
    const writer = join(import.meta.dirname, "multiprocess", "writer.ts");
    const tsx = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
    const per = 150;
    await Promise.all(["a", "b", "c"].map((who) => run(tsx, [writer, file, String(per), who], { timeout: 60_000 })));
    const check = await openDatabase<{ counter: { n: number }; log: { n: number } }>(file);
    const { n } = await check.db.selectFrom("counter").select("n").executeTakeFirstOrThrow();
    const distinct = await sql<{ c: number }>`select count(distinct n) as c from log`.execute(check.db);
    await check.close();
    expect(n).toBe(3 * per);
    expect(Number(distinct.rows[0]?.c)).toBe(3 * per);
  });
});
