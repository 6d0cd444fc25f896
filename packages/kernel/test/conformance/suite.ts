import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The official MCP conformance suite against a real server over Streamable HTTP, both eras:
 * `@modelcontextprotocol/conformance` 0.1.16 for the 2025 scenarios and 0.2.0-alpha.12 (npm
 * alias `conformance-2026`) at `--spec-version 2026-07-28`, one CLI run per scenario that applies
 * to a tools-only server. Checks the suite itself reports "Not testable" (it needs diagnostic
 * tools a product does not have) and the caching checks of methods a tools-only server does not
 * serve are listed below by id; any other failure or warning fails the test.
 *
 * The CLIs import `globSync` from `fs`, which only Node 22+ has; on Node 20 the preload
 * (fs-globsync.mjs beside this file) supplies it.
 */
const LEGACY_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];
const MODERN_SCENARIOS = [
  "server-stateless",
  "tools-list",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "http-header-validation",
  "http-custom-header-server-validation",
  "caching",
];

/** Not testable here, as the suite itself reports (its diagnostic tools are not ours to add). */
export const NOT_TESTABLE: Record<string, string> = {
  "sep-2575-server-rejects-undeclared-capability": "needs the diagnostic tool test_missing_capability",
  "sep-2575-missing-capability-http-400": "needs the diagnostic tool test_missing_capability",
  "sep-2575-http-server-no-independent-requests-on-stream": "needs the diagnostic tool test_streaming_elicitation",
  "sep-2575-server-no-log-without-loglevel": "needs the diagnostic tool test_logging_tool",
  "sep-2243-server-no-xmcp-tool": "needs a tool with x-mcp-header annotations",
  "sep-2243-server-decode-base64": "needs a tool with x-mcp-header annotations",
  "sep-2243-server-validate-param-match": "needs a tool with x-mcp-header annotations",
  "sep-2243-server-reject-invalid-param-chars": "needs a tool with x-mcp-header annotations",
  "sep-2243-server-reject-param-mismatch": "needs a tool with x-mcp-header annotations",
};
/** Caching hints of methods a tools-only server does not implement (-32601 is the right answer). */
export const NOT_APPLICABLE: Record<string, string> = {
  "sep-2549-prompts-list-caching-hints": "no prompts",
  "sep-2549-resources-list-caching-hints": "no resources",
  "sep-2549-resources-templates-list-caching-hints": "no resource templates",
};

const require = createRequire(import.meta.url);
const cliOf = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
const CLI = { legacy: cliOf("@modelcontextprotocol/conformance"), modern: cliOf("conformance-2026") };
const SHIM = fileURLToPath(new URL("./fs-globsync.mjs", import.meta.url));

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  description: string;
  errorMessage?: string;
}

function runCli(cli: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", SHIM, cli, ...args],
      { timeout: 50_000, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The scenarios issue 15 names, for a second product whose HTTP layer is the same kernel code. */
export const CORE_SCENARIOS = [
  "server-initialize",
  "tools-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
  "server-stateless",
];

export function conformanceSuite(
  product: string,
  start: () => Promise<{ url: string; close(): Promise<void> }>,
  only?: string[],
) {
  let dir: string;
  let server: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runs = [
    ...LEGACY_SCENARIOS.map((s) => ({ era: "legacy" as const, scenario: s, extra: [] as string[] })),
    ...MODERN_SCENARIOS.map((s) => ({ era: "modern" as const, scenario: s, extra: ["--spec-version", "2026-07-28"] })),
  ].filter((r) => !only || only.includes(r.scenario));

  describe(`MCP conformance (official scenarios, both eras) against ${product} over Streamable HTTP`, () => {
    it("both CLIs start on this Node and know every scenario we run", async () => {
      for (const era of ["legacy", "modern"] as const) {
        const { code, stdout, stderr } = await runCli(CLI[era], ["list", "--server"]);
        expect(stderr).not.toContain("SyntaxError");
        expect(code).toBe(0);
        for (const r of runs.filter((x) => x.era === era)) expect(stdout).toContain(`- ${r.scenario} `);
      }
    });

    it.each(runs)("$era $scenario: no failed or warned checks", async ({ era, scenario, extra }) => {
      const out = join(dir, `out-${era}-${scenario}`);
      const run = await runCli(CLI[era], [
        "server",
        "--url",
        server.url,
        "--scenario",
        scenario,
        ...extra,
        "--output-dir",
        out,
      ]);
      const report = `exit ${run.code}\n${run.stdout}\n${run.stderr}`;
      const [resultDir] = readdirSync(out);
      expect(resultDir, report).toBeDefined();
      const checks = JSON.parse(readFileSync(join(out, resultDir as string, "checks.json"), "utf8")) as Check[];
      const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      const unexpected = bad.filter((c) => {
        if (NOT_APPLICABLE[c.id]) return !/Method not found/.test(c.errorMessage ?? "");
        if (NOT_TESTABLE[c.id]) return !/^Not testable/i.test(c.errorMessage ?? "");
        return true;
      });
      expect(
        unexpected.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
        report,
      ).toEqual([]);
      expect(checks.filter((c) => c.status === "SUCCESS").length, report).toBeGreaterThan(0);
      if (bad.length === 0) expect(run.code, report).toBe(0);
    });
  });
}
