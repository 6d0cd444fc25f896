import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support.ts";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "pg-url-user-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Both servers, started on a postgres:// URL without a user, with USER and PGUSER unset. */
describe("serve --db postgres://HOST/DB with no user name and $USER unset", () => {
  const env = { ...process.env };
  delete env.USER;
  delete env.PGUSER;
  for (const [bin, extra] of [
    ["packages/shampoo/bin/shampoo.mjs", []],
    ["packages/scoreia/bin/scoreia.mjs", ["--data-dir", dir]],
  ] as const) {
    it(`${bin.split("/").pop()} prints one line saying what to write, and fails`, async () => {
      const out = await run(
        process.execPath,
        [join(ROOT, bin), "serve", "--db", "postgres://127.0.0.1:5432/test", ...extra],
        {
          env,
          timeout: 30_000,
        },
      ).then(
        () => null,
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(out?.code).toBeGreaterThan(0);
      expect(out?.stdout).toBe("");
      const lines = String(out?.stderr).trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        level: "fatal",
        msg: "cannot open postgres://127.0.0.1:5432/test: the postgres:// URL names no user and neither PGUSER nor USER is set: write postgres://USER@HOST/DB",
      });
    });
  }
});
