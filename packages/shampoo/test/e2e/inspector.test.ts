/**
 * The official MCP Inspector CLI (@modelcontextprotocol/inspector-cli, a devDependency) against
 * the real binary: over stdio, where the Inspector launches `shampoo serve` itself, and over
 * Streamable HTTP with a bearer token (--header), where it calls every registered tool. On both,
 * a working session whose calls build on each other (handoffSession), one Inspector run per call.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answeredAsExpected,
  BIN,
  exampleCalls,
  type HttpServer,
  handoffSession,
  makeFixture,
  missingExamples,
  newToken,
  startHttp,
  TOOL_NAMES,
  tempDir,
  writeConfig,
} from "./support.ts";

const require = createRequire(import.meta.url);
const PKG_JSON = require.resolve("@modelcontextprotocol/inspector-cli/package.json");
const PKG = JSON.parse(readFileSync(PKG_JSON, "utf8")) as { version: string; bin: Record<string, string> };
const INSPECTOR = join(dirname(PKG_JSON), Object.values(PKG.bin)[0] as string);
/**
 * inspector-cli 1.0.3 looks for "../package.json" from the working directory and imports it
 * relative to its build/ folder; run from anywhere else it crashes. Its build/ folder makes both
 * resolve to its own package.json (see packages/scoreia/test/e2e/inspector.test.ts).
 */
const INSPECTOR_CWD = dirname(INSPECTOR);

type Sc = Record<string, unknown>;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function inspector(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR, "--cli", ...args],
      { cwd: INSPECTOR_CWD, timeout: 60_000, maxBuffer: 4 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function json(run: Run): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/**
 * `--tool-arg k=v` pairs. The Inspector JSON-parses each value and falls back to the raw text, so
 * every value is passed as JSON: strings stay strings ("2026" would otherwise become a number)
 * and an empty string survives (a bare `k=` is refused).
 */
function toolArgs(args: Record<string, unknown>): string[] {
  const pairs = Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return pairs.length ? ["--tool-arg", ...pairs] : [];
}

/** tools/call through one Inspector run; a success is expected (no isError). */
const callVia =
  (target: string[]) =>
  async (tool: string, args: Sc): Promise<Sc> => {
    const out = json(await inspector([...target, "--method", "tools/call", "--tool-name", tool, ...toolArgs(args)]));
    expect(out.isError, `${tool} → ${JSON.stringify(out.structuredContent)}`).toBeUndefined();
    return out.structuredContent as Sc;
  };

const tmp = tempDir("inspector");
const TOKEN = newToken();
/** The server command line the Inspector launches for stdio. */
const STDIO_TARGET = [process.execPath, BIN, "serve", "--tools", "all", "--db", join(tmp.dir, "stdio.db")];
let http: HttpServer;
let auth: string[];

beforeAll(async () => {
  const config = writeConfig(tmp.dir, [
    // conductor: every tool is called, the auth registry's conductor-only ones included
    { token: TOKEN, principal: "inspector", role: "conductor", grants: ["insp", "insp-handoff", ""] },
  ]);
  http = await startHttp(["--db", join(tmp.dir, "http.db"), "--config", config]);
  auth = [http.url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`];
});

afterAll(async () => {
  await http?.stop();
  tmp.remove();
});

describe(`MCP Inspector CLI ${PKG.version} against shampoo serve (stdio)`, () => {
  it("tools/list lists every registered tool, each with input and output schemas", async () => {
    const out = json(await inspector([...STDIO_TARGET, "--method", "tools/list"]));
    const tools = out.tools as Array<{ name: string; inputSchema?: unknown; outputSchema?: unknown }>;
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.inputSchema, t.name).toBeDefined();
      expect(t.outputSchema, t.name).toBeDefined();
    }
  });

  it("tools/call create_task_or_note succeeds as the local principal", async () => {
    const out = json(
      await inspector([
        ...STDIO_TARGET,
        "--method",
        "tools/call",
        "--tool-name",
        "create_task_or_note",
        ...toolArgs({ title: "from the Inspector", project: "insp", due_date: "2026-12-24" }),
      ]),
    );
    expect(out.isError).toBeUndefined();
    expect(out.structuredContent).toMatchObject({ title: "from the Inspector", status: "not_started" });
  });

  // Seven calls, each an Inspector process launching its own server on the same database.
  it("a session across calls: task, progress, session_save twice, resume_context, query_tasks", {
    timeout: 300_000,
  }, async () => {
    await handoffSession(callVia(STDIO_TARGET), "handoff");
  });

  it("tools/call of an unknown tool fails with JSON-RPC -32602", async () => {
    const run = await inspector([...STDIO_TARGET, "--method", "tools/call", "--tool-name", "no_such_tool"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("-32602");
  });
});

describe(`MCP Inspector CLI ${PKG.version} against shampoo serve --http --config`, () => {
  it("is refused without the bearer token (401)", async () => {
    const run = await inspector([http.url, "--transport", "http", "--method", "tools/list"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/401|Unauthorized/);
  });

  it("tools/list with --header Authorization lists every registered tool", async () => {
    const out = json(await inspector([...auth, "--method", "tools/list"]));
    expect((out.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(TOOL_NAMES);
  });

  it("a session across calls as the token's principal: task, progress, saves, resume, query", {
    timeout: 300_000,
  }, async () => {
    await handoffSession(callVia(auth), "insp-handoff");
  });

  // One Inspector process per tool (29 of them): minutes, not seconds, on a loaded 2-core machine.
  it("tools/call succeeds for every registered tool", { timeout: 300_000 }, async () => {
    expect(missingExamples(), "every tool in TOOLS has an example").toEqual([]);
    const call = async (name: string, args: Record<string, unknown>) =>
      json(await inspector([...auth, "--method", "tools/call", "--tool-name", name, ...toolArgs(args)]));
    const fixture = await makeFixture("insp", async (tool, args) => (await call(tool, args)).structuredContent as Sc);
    // One Inspector process per call, a few at a time (each is a fresh client and session).
    const calls = exampleCalls(fixture);
    const failures: string[] = [];
    const worker = async () => {
      for (let c = calls.shift(); c !== undefined; c = calls.shift()) {
        const { name, args } = c;
        const out = await call(name, args);
        if (
          !answeredAsExpected(name, out.isError, out.structuredContent) ||
          typeof out.structuredContent !== "object"
        ) {
          failures.push(`${name} ${JSON.stringify(args)} → ${JSON.stringify(out)}`);
        }
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(failures).toEqual([]);
  });
});
