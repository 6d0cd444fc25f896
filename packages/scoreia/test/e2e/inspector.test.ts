/**
 * The official MCP Inspector CLI (@modelcontextprotocol/inspector-cli, installed as a
 * devDependency) against the real binary: over stdio, where the Inspector launches
 * `scoreia serve` itself, and over Streamable HTTP, against a running `scoreia serve --http`.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, CANONICAL_TOOLS, HANDLE, type HttpServer, IDENTITY, startHttp, tempDir } from "./support.ts";

const require = createRequire(import.meta.url);
const PKG_JSON = require.resolve("@modelcontextprotocol/inspector-cli/package.json");
const PKG = JSON.parse(readFileSync(PKG_JSON, "utf8")) as { version: string; bin: Record<string, string> };
/** The package's one bin (`mcp-inspector-cli` in 1.0.3), resolved the way npx would. */
const INSPECTOR = join(dirname(PKG_JSON), Object.values(PKG.bin)[0] as string);
/**
 * inspector-cli 1.0.3 checks `existsSync("../package.json")` against the *working directory*,
 * then imports that path relative to its own build/ folder to name itself in clientInfo; from
 * anywhere else it crashes ("Cannot find module …/@modelcontextprotocol/package.json"). Running
 * it from its build/ folder (where the bin lives) makes both resolve to its own package.json.
 */
const INSPECTOR_CWD = dirname(INSPECTOR);

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
      { cwd: INSPECTOR_CWD, timeout: 30_000, maxBuffer: 4 << 20 },
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

/** `--tool-arg` pairs; values the Inspector would read as JSON numbers are avoided on purpose. */
function toolArgs(extra: Record<string, string>): string[] {
  return ["--tool-arg", ...Object.entries({ ...IDENTITY, ...extra }).map(([k, v]) => `${k}=${v}`)];
}

function observedClientOf(dbFile: string, handle: string): unknown {
  const db = new BetterSqlite3(dbFile, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT observed_client_json FROM chamber_attempts WHERE handle = ?").get(handle) as
      | { observed_client_json: string | null }
      | undefined;
    return row?.observed_client_json ? JSON.parse(row.observed_client_json) : undefined;
  } finally {
    db.close();
  }
}

const tmp = tempDir("inspector");
const stdioDb = join(tmp.dir, "stdio.db");
const httpDb = join(tmp.dir, "http.db");
/** The server command line the Inspector launches for stdio. */
const STDIO_TARGET = [process.execPath, BIN, "serve", "--db", stdioDb, "--data-dir", tmp.dir];
let http: HttpServer;

beforeAll(async () => {
  http = await startHttp(["--db", httpDb, "--data-dir", join(tmp.dir, "http")]);
});

afterAll(async () => {
  await http?.stop();
  tmp.remove();
});

describe(`MCP Inspector CLI ${PKG.version} against scoreia serve (stdio)`, () => {
  it("tools/list lists exactly the five canonical tools", async () => {
    const out = json(await inspector([...STDIO_TARGET, "--method", "tools/list"]));
    const tools = out.tools as Array<{ name: string; outputSchema?: unknown }>;
    expect(tools.map((t) => t.name)).toEqual([...CANONICAL_TOOLS]);
    for (const t of tools) expect(t.outputSchema).toBeDefined();
  });

  it("tools/call enter_open_challenge with --tool-arg returns ok:true", async () => {
    const out = json(
      await inspector([
        ...STDIO_TARGET,
        "--method",
        "tools/call",
        "--tool-name",
        "enter_open_challenge",
        ...toolArgs({ suite: "chambre-atelier-v0", seed: "e2e-inspector" }),
      ]),
    );
    expect(out.isError).toBeUndefined();
    const sc = out.structuredContent as Record<string, unknown>;
    expect(sc).toMatchObject({
      ok: true,
      attempt_state: "created",
      suite_id: "chambre-atelier-v0",
      seed: "e2e-inspector",
      declared: { host: "cursor", product: "gpt-5.6-sol" },
    });
    expect(sc.attempt_handle).toMatch(HANDLE);
    // It reached the database the Inspector's server was told to use, observed as the Inspector.
    expect(observedClientOf(stdioDb, sc.attempt_handle as string)).toEqual({
      name: "inspector-cli",
      version: PKG.version,
    });
  });

  it("a known tool that refuses its arguments is an isError result, not a protocol error", async () => {
    const out = json(
      await inspector([
        ...STDIO_TARGET,
        "--method",
        "tools/call",
        "--tool-name",
        "enter_open_challenge",
        "--tool-arg",
        "provider_claim=openai",
        "model_claim=gpt-5.6-sol",
        "product=gpt-5.6-sol",
      ]),
    );
    expect(out.isError).toBe(true);
    expect(out.structuredContent).toMatchObject({ ok: false, code: "host_required" });
  });

  it("tools/call of an unknown tool fails with JSON-RPC -32602", async () => {
    const run = await inspector([...STDIO_TARGET, "--method", "tools/call", "--tool-name", "no_such_tool"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("-32602");
    expect(run.stderr).toContain("Unknown tool: no_such_tool");
  });
});

describe(`MCP Inspector CLI ${PKG.version} against scoreia serve --http`, () => {
  it("tools/list over Streamable HTTP lists exactly the five canonical tools", async () => {
    const out = json(await inspector([http.url, "--transport", "http", "--method", "tools/list"]));
    expect((out.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([...CANONICAL_TOOLS]);
  });

  it("tools/call enter_open_challenge over Streamable HTTP returns ok:true", async () => {
    const out = json(
      await inspector([
        http.url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "enter_open_challenge",
        ...toolArgs({ suite: "chambre-chrono-v0", seed: "e2e-inspector-http" }),
      ]),
    );
    const sc = out.structuredContent as Record<string, unknown>;
    expect(sc).toMatchObject({ ok: true, attempt_state: "created", suite_id: "chambre-chrono-v0" });
    expect(observedClientOf(httpDb, sc.attempt_handle as string)).toEqual({
      name: "inspector-cli",
      version: PKG.version,
    });
  });

  it("tools/call of an unknown tool over Streamable HTTP fails with JSON-RPC -32602", async () => {
    const run = await inspector([http.url, "--method", "tools/call", "--tool-name", "no_such_tool"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("-32602");
  });
});
