import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect } from "vitest";
import { crashSuite } from "./crash.ts";

describe("crash test on SQLite (the file is what crashes)", () => {
  crashSuite("SQLite", 20261130, async () => {
    const dir = mkdtempSync(join(tmpdir(), "shampoo-crash-sqlite-"));
    const file = join(dir, "shampoo.db");
    return {
      target: file,
      async engineChecks() {
        const db = new BetterSqlite3(file);
        try {
          expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
          // FTS5 external content: the index must agree with shampoo_tasks row for row.
          db.prepare("INSERT INTO shampoo_tasks_fts(shampoo_tasks_fts, rank) VALUES ('integrity-check', 1)").run();
        } finally {
          db.close();
        }
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });
});
