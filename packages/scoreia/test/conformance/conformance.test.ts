import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type HttpHandle, serveHttp } from "kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chamber, openChamber } from "../../src/app.ts";
import { CURRENT_TOOLSET } from "../../src/contract/index.ts";

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against the real Chamber
 * over Streamable HTTP, one CLI run per scenario that applies to a tools-only server.
 *
 * The CLI imports `globSync` from `fs`, which only Node 22+ has; on older Node the kernel's
 * preload (packages/kernel/test/conformance/fs-globsync.mjs) supplies it.
 */
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");
const SHIM = fileURLToPath(new URL("../../../kernel/test/conformance/fs-globsync.mjs", import.meta.url));

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  description: string;
  errorMessage?: string;
}

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", SHIM, CLI, ...args],
      { timeout: 30_000, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let dir: string;
let chamber: Chamber;
let http: HttpHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "scoreia-conformance-"));
  chamber = await openChamber({ db: join(dir, "chamber.db") });
  http = await serveHttp({
    mcp: chamber.mcp,
    host: "127.0.0.1",
    port: 0,
    maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
  });
});

afterAll(async () => {
  await http?.close();
  await chamber?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("MCP conformance (official scenarios) against the Chamber over Streamable HTTP", () => {
  it("the CLI starts on this Node and knows every scenario we run", async () => {
    const { code, stdout, stderr } = await runCli(["list", "--server"]);
    expect(stderr).not.toContain("SyntaxError");
    expect(code).toBe(0);
    for (const s of SCENARIOS) expect(stdout).toContain(`- ${s} `);
  });

  it.concurrent.each(SCENARIOS)("%s: no failed or warned checks", async (scenario) => {
    const out = join(dir, `out-${scenario}`);
    const run = await runCli(["server", "--url", http.url, "--scenario", scenario, "--output-dir", out]);
    const report = `exit ${run.code}\n${run.stdout}\n${run.stderr}`;

    const [resultDir] = readdirSync(out);
    expect(resultDir, report).toBeDefined();
    const checks = JSON.parse(readFileSync(join(out, resultDir!, "checks.json"), "utf8")) as Check[];
    const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    expect(
      bad.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
      report,
    ).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS").length, report).toBeGreaterThan(0);
    expect(run.code, report).toBe(0);
  });
});
