/**
 * `npx shampoo doctor` on the real binary: the doctor tool's report through the same registry,
 * text or --json, the exit code of its aggregate (0 ok, 3 warn, 4 unknown, 1 fail, 2 usage), and
 * nothing created or migrated. SQLite file and PostgreSQL schema.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kernel";
import { DIALECTS, dropPgSchema, pgUrlWithSchema } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openShampoo, type Shampoo } from "../../src/app.ts";
import { runBin, tempDir } from "../e2e/support.ts";
import { OBSERVED, type Report, statuses } from "./support.ts";

const SESSION = { sessionId: "t", transport: "stdio" as const, clientInfo: () => undefined, log: async () => {} };

for (const dialect of DIALECTS) {
  describe(`shampoo doctor (${dialect})`, () => {
    const tmp = tempDir("doctor");
    const schema = `t_doctor_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const db = dialect === "sqlite" ? join(tmp.dir, "shampoo.db") : pgUrlWithSchema(schema);
    let s: Shampoo;
    beforeAll(async () => {
      s = await openShampoo({ db });
      const ctx = s.mcp.context(SESSION);
      await s.registry.call("create_task_or_note", { title: "something to check", project: "ops" }, ctx);
    }, 60_000);
    afterAll(async () => {
      await s?.close();
      if (dialect === "postgres") await dropPgSchema(schema);
      tmp.remove();
    });

    it("prints the tool's report; the exit code is the aggregate (unknown: 4, the observed sections alone: 0)", async () => {
      const all = await runBin(["doctor", "--db", db]);
      expect(all.out).toMatch(/^SHAMPOO doctor: UNKNOWN\n/);
      expect(all.out).toMatch(/\n {2}unknown jobs\.observed \(major\): no module in this build observes jobs/);
      expect(all.code).toBe(4);
      const observed = await runBin(["doctor", "--db", db, "--sections", OBSERVED, "--json"]);
      expect(observed.code).toBe(0);
      const cli = JSON.parse(observed.out) as Report;
      expect(cli.status).toBe("ok");
      const tool = (await s.registry.call("doctor", { sections: OBSERVED }, s.mcp.context(SESSION)))
        .structuredContent as unknown as Report;
      expect(statuses(cli)).toEqual(statuses(tool));
      expect(cli.sections.map((x) => x.name)).toEqual(tool.sections.map((x) => x.name));
    }, 60_000);

    it("a fault makes it exit 1 with the failing check named; fixed, 0 again", async () => {
      await sql`UPDATE shampoo_clocks SET clock = clock - 1`.execute(s.database.db);
      const bad = await runBin(["doctor", "--db", db, "--sections", "ledger", "--detail", "full"]);
      expect(bad.code).toBe(1);
      expect(bad.out).toMatch(/fail {4}ledger\.clock \(critical\): the profile clock \d+ is behind/);
      await sql`UPDATE shampoo_clocks SET clock = clock + 1`.execute(s.database.db);
      expect((await runBin(["doctor", "--db", db, "--sections", "ledger"])).code).toBe(0);
    }, 60_000);

    it("usage errors exit 2", async () => {
      const r = await runBin(["doctor", "--db", db, "--detail", "everything"]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--detail is summary or full/);
      expect((await runBin(["doctor", "--db", db, "--port", "1"])).code).toBe(2);
    });
  });
}

describe("shampoo doctor without a database", () => {
  it("exits 1 and creates nothing", async () => {
    const tmp = tempDir("doctor-none");
    try {
      const missing = join(tmp.dir, "none.db");
      const r = await runBin(["doctor", "--db", missing]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/no database at .*none\.db \(the doctor creates nothing\)/);
      expect(existsSync(missing)).toBe(false);
    } finally {
      tmp.remove();
    }
  });
});
