import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { sql } from "kernel";
import { DIALECTS, dropPgSchema, openTestDatabase, pgUrlWithSchema } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { MODULES } from "../../src/modules.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import { defineModule, migrationPlan, moduleOrder, toolsOf } from "../../src/platform/module.ts";
import type { ShampooDB } from "../../src/store/schema.ts";

const run = promisify(execFile);
const worker = join(import.meta.dirname, "startup-worker.mjs");
const mod = (name: string, dependsOn: string[] = []) => defineModule({ name, dependsOn, tools: [], migrations: {} });

describe("modules", () => {
  it("orders by dependency, then as listed; refuses unknown dependencies, cycles and duplicates", () => {
    expect(moduleOrder([mod("b", ["a"]), mod("a"), mod("c")]).map((m) => m.name)).toEqual(["a", "b", "c"]);
    expect(() => moduleOrder([mod("b", ["zz"])])).toThrow("module b depends on zz, which is not in the module list");
    expect(() => moduleOrder([mod("a", ["b"]), mod("b", ["a"])])).toThrow("module dependency cycle: a -> b -> a");
    expect(() => moduleOrder([mod("a"), mod("a")])).toThrow("module a is listed twice");
    expect(() =>
      defineModule({ name: "x", dependsOn: [], tools: [], migrations: { "1_bad": async () => {} } }),
    ).toThrow("migration 1_bad must be named NNNN_what");
  });

  it("SHAMPOO's tool list and migration order derive from modules.ts", () => {
    const tools = toolsOf(MODULES);
    // every tool once; the first 50 are the original six categories
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(tools.length).toBeGreaterThanOrEqual(50);
    // tools/list order is module order: platform, tasks, graph, links, sessions, governance, reflection, then the later ones.
    expect(MODULES.map((m) => m.name).slice(0, 7)).toEqual([
      "platform",
      "tasks",
      "graph",
      "links",
      "sessions",
      "governance",
      "reflection",
    ]);
    expect(tools.map((t) => t.name)).toEqual(MODULES.flatMap((m) => m.tools.map((t) => t.name)));
    const ids = migrationPlan(MODULES).map((m) => m.id);
    expect(ids.slice(0, 3)).toEqual(["platform/0001_history", "platform/0002_leases", "tasks/0001_tasks"]);
    expect(ids.indexOf("links/0001_links")).toBeGreaterThan(ids.indexOf("graph/0001_graph"));
  });
});

for (const dialect of DIALECTS) {
  describe(`migration ledger (${dialect})`, () => {
    it("a database of the old single ledger upgrades: old names adopted, only new migrations run", async () => {
      const db = await openTestDatabase<ShampooDB>(dialect);
      try {
        // A database from before modules (main up to 011_task_lookup_scan_index): only the
        // migrations that had an old name ran, recorded in the old ledger under those names.
        const plan = migrationPlan(MODULES);
        await migrateModules(db, MODULES, { only: (m) => m.legacy.length > 0 });
        await sql`DROP TABLE shampoo_module_migrations`.execute(db.db);
        await sql`CREATE TABLE shampoo_migrations (name varchar(255) PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(
          db.db,
        );
        for (const name of new Set(plan.flatMap((m) => m.legacy))) {
          await sql`INSERT INTO shampoo_migrations (name, timestamp) VALUES (${name}, '2026-11-01T00:00:00.000Z')`.execute(
            db.db,
          );
        }
        const added = plan.filter((m) => m.legacy.length === 0).map((m) => m.id);
        expect(added).toEqual(expect.arrayContaining(["platform/0002_leases", "graph/0003_entity_phrases"]));
        expect(await migrateModules(db, MODULES)).toEqual(added);
        expect(await migrateModules(db, MODULES)).toEqual([]);
      } finally {
        await db.drop();
      }
    });

    it("18 processes started at once on a fresh database all come up", async () => {
      const db = await openTestDatabase<ShampooDB>(dialect);
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
        const check = await openTestDatabase<ShampooDB>(dialect);
        await check.close();
      } finally {
        await db.drop();
      }
    }, 600_000);

    if (dialect === "postgres") {
      it("18 processes started at once on a ?schema= that does not exist yet all come up (the documented scale-out)", async () => {
        const schema = `fresh_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
        try {
          const results = await Promise.allSettled(
            Array.from({ length: 18 }, () =>
              run(process.execPath, [worker, pgUrlWithSchema(schema)], { timeout: 500_000 }),
            ),
          );
          const failed = results.flatMap((r) =>
            r.status === "rejected" ? [String((r.reason as { stderr?: string }).stderr ?? r.reason)] : [],
          );
          expect(failed).toEqual([]);
        } finally {
          await dropPgSchema(schema);
        }
      }, 600_000);
    }
  });
}
