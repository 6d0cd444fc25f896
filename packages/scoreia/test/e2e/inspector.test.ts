/**
 * The official MCP Inspector CLI (@modelcontextprotocol/inspector-cli, installed as a
 * devDependency) against the real binary: over stdio, where the Inspector launches
 * `scoreia serve` itself, and over Streamable HTTP, against a running `scoreia serve --http`.
 * Over HTTP a whole attempt (enter, observe, act, seal) is played through the Inspector alone and
 * the sealed card then verifies with `scoreia verify --server`; over stdio, where every run is
 * also a server process, an attempt is entered and observed across two runs. Whole attempts over
 * stdio are played by the SDK client (stdio.test.ts).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, CANONICAL_TOOLS, fullAttempt, HANDLE, type HttpServer, IDENTITY, startHttp, tempDir } from "./support.ts";

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
 * every value is passed as JSON: strings stay strings ("2026" would otherwise become a number),
 * numbers and objects arrive as themselves.
 */
function toolArgs(args: Record<string, unknown>): string[] {
  const pairs = Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return pairs.length ? ["--tool-arg", ...pairs] : [];
}

type Sc = Record<string, unknown>;

/**
 * The Inspector CLI as the client of a whole attempt: one Inspector process per tools/call (each a
 * fresh MCP client and, over stdio, a fresh server process on the same database), each result
 * checked against the outputSchema the server published in tools/list, as Session does.
 */
async function inspectorClient(
  target: string[],
): Promise<{ sc(name: string, args: Sc): Promise<Sc>; calls(): number }> {
  const { tools } = json(await inspector([...target, "--method", "tools/list"])) as {
    tools: Array<{ name: string; outputSchema: object }>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validators = new Map(tools.map((t) => [t.name, ajv.compile(t.outputSchema)]));
  let calls = 0;
  return {
    calls: () => calls,
    async sc(name, args) {
      calls++;
      const out = json(await inspector([...target, "--method", "tools/call", "--tool-name", name, ...toolArgs(args)]));
      const sc = out.structuredContent as Sc;
      const validate = validators.get(name);
      if (!validate) throw new Error(`tools/list has no ${name}`);
      if (!validate(sc)) throw new Error(`${name} violates its outputSchema: ${JSON.stringify(validate.errors)}`);
      expect(out.isError === true, `${name}: isError agrees with ok`).toBe(sc.ok === false);
      return sc;
    },
  };
}

/** `scoreia verify …`: exit code and its one-line verdict. */
function verifyCli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, "verify", ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
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

  // One Inspector process and one server process per call, on the same database: the attempt
  // entered by the first is observed by the second. The whole attempt is played over HTTP below.
  it("enters an attempt and observes it in the next run; the server records the Inspector", async () => {
    const client = await inspectorClient(STDIO_TARGET);
    const seed = "e2e-inspector-stdio";
    const entry = await client.sc("enter_open_challenge", { ...IDENTITY, suite: "chambre-chrono-v0", seed });
    expect(entry).toMatchObject({
      ok: true,
      attempt_state: "created",
      declared: { host: "cursor", product: "gpt-5.6-sol" },
      seed,
    });
    const handle = entry.attempt_handle as string;
    expect(handle).toMatch(HANDLE);
    const object = (entry.objects as string[])[0] as string;
    const seen = await client.sc("observe_chamber", { challenge_handle: handle, object });
    expect(seen).toMatchObject({ ok: true, attempt_handle: handle, action_index: 0, object });
    // Observed as the Inspector, in the database the Inspector's server was told to use.
    expect(observedClientOf(stdioDb, handle)).toEqual({ name: "inspector-cli", version: PKG.version });
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

  it("plays a whole chambre-atelier-v0 attempt, one Inspector run per call; the card verifies", {
    timeout: 300_000,
  }, async () => {
    const client = await inspectorClient([http.url, "--transport", "http"]);
    const out = await fullAttempt(client, "chambre-atelier-v0", "e2e-inspector-http");
    expect(client.calls()).toBe(out.actions + 4);
    expect(observedClientOf(httpDb, out.handle)).toEqual({ name: "inspector-cli", version: PKG.version });
    // Verified here from the server's published proof and keys, not by the server's own verdict.
    const verified = await verifyCli([out.cardId, "--server", new URL(http.url).origin]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^valid\b/);
  });

  it("tools/call of an unknown tool over Streamable HTTP fails with JSON-RPC -32602", async () => {
    const run = await inspector([http.url, "--method", "tools/call", "--tool-name", "no_such_tool"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("-32602");
  });
});
