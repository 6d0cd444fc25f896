/**
 * Several Chamber processes started at once on a fresh database all come up (issue 14 "Must
 * show": 18 processes on a fresh SQLite file and a fresh PostgreSQL schema), as SHAMPOO's do
 * (packages/shampoo/test/platform/migrate.test.ts): the first start's migrations run once, the
 * others wait for them or find them done, none dies with "table … already exists".
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { openDatabase, sql } from "kernel";
import { DIALECTS, openTestDatabase } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { type ChamberDB, chamberMigrations } from "../src/attempts/schema.ts";

const run = promisify(execFile);
const worker = join(import.meta.dirname, "startup-worker.mjs");

for (const dialect of DIALECTS) {
  describe(`Chamber start (${dialect})`, () => {
    it("18 processes started at once on a fresh database all come up, and the migrations ran once", async () => {
      const db = await openTestDatabase<ChamberDB>(dialect);
      await db.close();
      try {
        const args = dialect === "sqlite" ? [db.target] : [db.target, db.pgSchema as string];
        const results = await Promise.allSettled(
          Array.from({ length: 18 }, () => run(process.execPath, [worker, ...args], { timeout: 500_000 })),
        );
        const failed = results.flatMap((r) =>
          r.status === "rejected" ? [String((r.reason as { stderr?: string }).stderr ?? r.reason)] : [],
        );
        expect(failed).toEqual([]);
        expect(results.every((r) => r.status === "fulfilled" && r.value.stdout === "up\n")).toBe(true);
        const check = await openDatabase<ChamberDB>(db.target, db.pgSchema ? { pgSchema: db.pgSchema } : {});
        try {
          const table = db.pgSchema ? sql.id(db.pgSchema, "scoreia_migrations") : sql.id("scoreia_migrations");
          const { rows } = await sql<{ name: string }>`SELECT name FROM ${table} ORDER BY name`.execute(check.db);
          expect(rows.map((r) => r.name)).toEqual(Object.keys(chamberMigrations).sort());
        } finally {
          await check.close();
        }
      } finally {
        await db.drop();
      }
    }, 600_000);
  });
}
