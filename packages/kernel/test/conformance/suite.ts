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
 * alias `conformance-2026`) at `--spec-version 2026-07-28` (and at 2025-11-25 for the session
 * lifecycle, which only it has), one CLI run per scenario that applies to a tools-only server
 * (the resource scenarios too when the server publishes resources); every other scenario is in
 * NOT_APPLICABLE_SCENARIOS with its reason. Checks the suite itself reports "Not testable" (it needs diagnostic
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
/** 2025-era scenarios only the 2026-capable release has, run by it at `--spec-version 2025-11-25`. */
const SESSION_SCENARIOS = ["server-session-lifecycle"];
const MODERN_SCENARIOS = [
  "server-stateless",
  "tools-list",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "http-header-validation",
  "http-custom-header-server-validation",
  "caching",
  "input-required-result-unsupported-methods",
];
/** Scenarios of a server that publishes resources (the Chamber's suite manifests). */
const RESOURCE_SCENARIOS = { legacy: ["resources-list"], modern: ["resources-list", "sep-2164-resource-not-found"] };

/**
 * Every other server scenario either CLI lists, and why it does not apply to these servers: each
 * needs a fixture the suite names (a tool, prompt or resource called `test_…`/`test://…`) or a
 * feature a tools-only server does not offer. The first test checks that this list and the runs
 * above cover every scenario the CLIs list, so a new scenario in a later release cannot be missed.
 */
export const NOT_APPLICABLE_SCENARIOS: Record<string, string> = {
  "completion-complete": "needs the fixture prompt test_complete; no completions capability",
  "tools-call-simple-text": "needs the fixture tool test_simple_text",
  "tools-call-image": "needs the fixture tool test_image_content",
  "tools-call-audio": "needs the fixture tool test_audio_content",
  "tools-call-embedded-resource": "needs the fixture tool test_embedded_resource",
  "tools-call-mixed-content": "needs the fixture tool test_multiple_content_types",
  "tools-call-with-logging": "needs the fixture tool test_tool_with_logging",
  "tools-call-error": "needs the fixture tool test_error_handling",
  "tools-call-with-progress": "needs the fixture tool test_tool_with_progress",
  "tools-call-sampling": "needs the fixture tool test_sampling (our tools never ask the client to sample)",
  "tools-call-elicitation": "needs the fixture tool test_elicitation (our tools never elicit)",
  "json-schema-2020-12": "needs the fixture tool json_schema_2020_12_tool",
  "elicitation-sep1034-defaults": "needs the fixture tool test_elicitation_sep1034_defaults (our tools never elicit)",
  "elicitation-sep1330-enums": "needs the fixture tool test_elicitation_sep1330_enums (our tools never elicit)",
  "server-sse-polling":
    "needs the fixture tool test_reconnection, and SSE resumption (an event store): a stateless server resumes nothing",
  "resources-read-text": "needs the fixture resource test://static-text",
  "resources-read-binary": "needs the fixture resource test://static-binary",
  "resources-templates-read": "needs the fixture resource template test://template/{id}/data",
  "resources-subscribe": "no resource subscriptions (resources are fixed)",
  "resources-unsubscribe": "no resource subscriptions (resources are fixed)",
  "prompts-list": "no prompts",
  "prompts-get-simple": "no prompts",
  "prompts-get-with-args": "no prompts",
  "prompts-get-embedded-resource": "no prompts",
  "prompts-get-with-image": "no prompts",
  "input-required-result-basic-elicitation": "needs the fixture tool test_input_required_result_elicitation",
  "input-required-result-basic-sampling": "needs the fixture tool test_input_required_result_sampling",
  "input-required-result-basic-list-roots": "needs the fixture tool test_input_required_result_list_roots",
  "input-required-result-request-state": "needs the fixture tool test_input_required_result_request_state",
  "input-required-result-multiple-input-requests": "needs the fixture tool test_input_required_result_multiple_inputs",
  "input-required-result-multi-round": "needs the fixture tool test_input_required_result_multi_round",
  "input-required-result-missing-input-response":
    "needs an input-requiring fixture tool (our tools never ask for input)",
  "input-required-result-non-tool-request": "needs the fixture prompt test_input_required_result_prompt",
  "input-required-result-result-type": "needs an input-requiring fixture tool (our tools never ask for input)",
  "input-required-result-tampered-state": "needs the fixture tool test_input_required_result_tampered_state",
  "input-required-result-capability-check": "needs the fixture tool test_input_required_result_capabilities",
  "input-required-result-ignore-extra-params": "needs an input-requiring fixture tool (our tools never ask for input)",
  "input-required-result-validate-input":
    "needs an input-requiring fixture tool (without it the checks pass vacuously on Unknown tool)",
};

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

/** Scenario names of a CLI's `list --server` that apply to `version` (extensions excluded). */
function listed(stdout: string, version: string): string[] {
  return [...stdout.matchAll(/^\s*- (\S+) \[([^\]]*)\]/gm)]
    .filter((m) => (m[2] as string).split(",").includes(version))
    .map((m) => m[1] as string);
}

export function conformanceSuite(
  product: string,
  start: () => Promise<{ url: string; close(): Promise<void> }>,
  opts: { resources: boolean },
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

  const legacy = [...LEGACY_SCENARIOS, ...(opts.resources ? RESOURCE_SCENARIOS.legacy : [])];
  const modern = [...MODERN_SCENARIOS, ...(opts.resources ? RESOURCE_SCENARIOS.modern : [])];
  const runs = [
    ...legacy.map((s) => ({ era: "legacy" as const, cli: CLI.legacy, scenario: s, extra: [] as string[] })),
    ...SESSION_SCENARIOS.map((s) => ({
      era: "legacy" as const,
      cli: CLI.modern,
      scenario: s,
      extra: ["--spec-version", "2025-11-25"],
    })),
    ...modern.map((s) => ({
      era: "modern" as const,
      cli: CLI.modern,
      scenario: s,
      extra: ["--spec-version", "2026-07-28"],
    })),
  ];

  describe(`MCP conformance (official scenarios, both eras) against ${product} over Streamable HTTP`, () => {
    it("both CLIs start on this Node; every scenario they list for our versions is run or listed as not applicable", async () => {
      const ran = new Set(runs.map((r) => r.scenario));
      const unaccounted: string[] = [];
      for (const [cli, versions] of [
        [CLI.legacy, ["2025-11-25"]],
        [CLI.modern, ["2025-11-25", "2026-07-28"]],
      ] as const) {
        const { code, stdout, stderr } = await runCli(cli, ["list", "--server"]);
        expect(stderr).not.toContain("SyntaxError");
        expect(code).toBe(0);
        for (const r of runs.filter((x) => x.cli === cli)) expect(stdout).toContain(`- ${r.scenario} `);
        for (const v of versions) {
          const scenarios = listed(stdout, v);
          expect(scenarios, `${v} scenarios listed`).toContain("tools-list");
          for (const s of scenarios) {
            const noResources = !opts.resources && RESOURCE_SCENARIOS.modern.includes(s);
            if (!ran.has(s) && !NOT_APPLICABLE_SCENARIOS[s] && !noResources) unaccounted.push(`${v} ${s}`);
          }
        }
      }
      expect(unaccounted).toEqual([]);
    });

    it.each(runs)("$era $scenario $extra: no failed or warned checks", async ({ era, cli, scenario, extra }) => {
      const out = join(dir, `out-${era}-${scenario}`);
      const run = await runCli(cli, [
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
