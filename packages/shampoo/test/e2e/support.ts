/**
 * End-to-end support: the real `shampoo` binary in a child process, driven by real MCP clients
 * (the SDK's stdio and Streamable HTTP transports, and the MCP Inspector CLI). The only server
 * modules imported are TOOLS (app.ts) and MODULES, so that every tool registered is called with the
 * examples of its definition — a new tool without examples fails these tests until it gets some.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { TOOLS } from "../../src/app.ts";
import { FIXTURE_KEYS, FIXTURE_STEPS, MODULES } from "../../src/modules.ts";
import type { FixtureValues } from "../../src/platform/module.ts";
import { fillExample } from "../../src/tooling.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
export const BIN = join(ROOT, "packages/shampoo/bin/shampoo.mjs");
export const TOOL_NAMES = TOOLS.map((t) => t.name);

/**
 * The suites call every tool, so the servers they start list every tool (`--tools all`) unless
 * the test names its own `--tools`: without it a session starts with the default toolsets only.
 */
const everyTool = (serveArgs: string[]): string[] =>
  serveArgs.includes("--tools") ? serveArgs : ["--tools", "all", ...serveArgs];

/**
 * What the examples may refer to (each module's domains/<area>/fixtures.ts says what each key
 * is): made in the same session before the tools are called, each step only when its tool is registered.
 */
export type Fixture = FixtureValues & { taskId: string; project: string };

type Sc = Record<string, unknown>;

/**
 * The calls the e2e suite makes: every example of every tool in TOOLS (catalog order), its
 * placeholders filled from the fixture (fillExample throws, naming the key, when one is missing).
 */
export function exampleCalls(fixture: Fixture): Array<{ name: string; title: string; args: Sc }> {
  return TOOLS.flatMap((t) =>
    (t.examples ?? []).map((e) => ({
      name: t.name,
      title: e.title,
      args: fillExample(e.input, fixture, FIXTURE_KEYS),
    })),
  );
}

/**
 * One call per module (module order): the first example of each module's first tool that is not
 * an expected refusal. What the Inspector CLI calls (one process per call); stdio, http and modern
 * call every tool. A new module is sampled without a change here.
 */
export function sampleCalls(fixture: Fixture): Array<{ name: string; title: string; args: Sc }> {
  const sampled = new Set(MODULES.flatMap((m) => m.tools.find((t) => !EXPECTED_REFUSALS[t.name])?.name ?? []));
  const calls = exampleCalls(fixture);
  return calls.filter((c, i) => sampled.has(c.name) && calls.findIndex((d) => d.name === c.name) === i);
}

/**
 * Tools whose success needs a state no tool call can make, called anyway: each must answer
 * exactly this documented refusal (a normal error payload, valid against its outputSchema).
 * reflect_cancel succeeds only on a run left pending or running (by a crashed server); every
 * run a call makes is already terminal when the call returns.
 */
export const EXPECTED_REFUSALS: Record<string, { error: string; error_type: string }> = {
  reflect_cancel: { error: "cannot_cancel_terminal_run", error_type: "invalid_state_transition" },
  // Staging is not a tool (`shampoo inbound stage FILE`): no call can make an item to decide.
  inbound_approve: {
    error: "nothing was applied: 1 item(s) not eligible: t:1 not found",
    error_type: "inbound_ineligible",
  },
  inbound_reject: {
    error: "nothing was applied: 1 item(s) not eligible: r:1 not found",
    error_type: "inbound_ineligible",
  },
};

/** Whether a tools/call answer is what the example should get: success, or its expected refusal. */
export function answeredAsExpected(name: string, isError: unknown, sc: unknown): boolean {
  const refusal = EXPECTED_REFUSALS[name];
  if (!refusal) return !isError;
  const got = sc as Record<string, unknown> | undefined;
  return isError === true && got?.error === refusal.error && got?.error_type === refusal.error_type;
}

/** Makes the fixture through `call` (any transport): the steps whose tools are registered. */
export async function makeFixture(project: string, call: (tool: string, args: Sc) => Promise<Sc>): Promise<Fixture> {
  const f: Fixture = { taskId: "", project };
  for (const step of FIXTURE_STEPS) {
    if (TOOL_NAMES.includes(step.needs)) Object.assign(f, await step.run(f, call));
  }
  return f;
}

/**
 * A working session an agent runs across calls, each building on the one before: create a task,
 * start it, save a session snapshot, update that snapshot, then resume from it (the handoff pack
 * holds the summary, the files and the open task) and find the task in progress. `call` is any
 * client (SDK of either era, the Inspector CLI); returns the ids it made.
 */
export async function handoffSession(
  call: (tool: string, args: Sc) => Promise<Sc>,
  project: string,
): Promise<{ taskId: string; sessionId: string }> {
  const title = `Handoff task of ${project}`;
  const created = await call("create_task_or_note", { title, project, description: "Carried across a session." });
  expect(created).toMatchObject({ title, status: "not_started", type: "task" });
  const taskId = created.task_id as string;
  expect(await call("update_task", { task_id: taskId, status: "in_progress", notes: "half done" })).toMatchObject({
    updated: taskId,
    fields: expect.arrayContaining(["status", "notes"]),
  });
  const saved = await call("session_save", {
    summary: `First pass on ${project}`,
    project,
    active_files: ["src/handoff.ts"],
  });
  expect(saved.action).toBe("created");
  const sessionId = saved.session_id as string;
  const updated = await call("session_save", { session_id: sessionId, summary: `Halfway through ${project}` });
  expect(updated).toEqual({ action: "updated", session_id: sessionId });
  const resumed = await call("resume_context", { session_id: sessionId });
  expect(resumed.session_id).toBe(sessionId);
  const body = (resumed.pack as { body: string }).body;
  // The update kept the project and files it did not supply, and replaced the summary.
  for (const part of [`Halfway through ${project}`, "src/handoff.ts", title]) expect(body).toContain(part);
  expect(body).not.toContain(`First pass on ${project}`);
  const found = await call("query_tasks", { project });
  expect(found.tasks).toEqual([expect.objectContaining({ id: taskId, status: "in_progress", notes: "half done" })]);
  return { taskId, sessionId };
}

/** Tools in TOOLS whose definition has no `examples`: must be empty (a failure names them). */
export function missingExamples(): string[] {
  return TOOLS.filter((t) => !t.examples?.length).map((t) => t.name);
}

export function tempDir(tag: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `shampoo-e2e-${tag}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const newToken = (): string => randomBytes(24).toString("base64url");

/** Writes a --config file (mode 0600) and returns its path. */
export function writeConfig(dir: string, principals: Array<Record<string, unknown>>): string {
  const file = join(dir, `config-${randomBytes(4).toString("hex")}.json`);
  writeFileSync(file, JSON.stringify({ principals }, null, 2));
  chmodSync(file, 0o600);
  return file;
}

/**
 * One MCP client session. Every tools/call result is checked on arrival: it has
 * structuredContent, that object validates against the tool's outputSchema as published in
 * tools/list (Ajv 2020, independently of the SDK client's own check), and the text content is the
 * same JSON.
 */
export class Session {
  private constructor(
    readonly client: Client,
    readonly tools: Tool[],
    private readonly validators: Map<string, ValidateFunction>,
  ) {}

  static async open(client: Client): Promise<Session> {
    const { tools } = await client.listTools();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validators = new Map<string, ValidateFunction>();
    for (const t of tools) if (t.outputSchema) validators.set(t.name, ajv.compile(t.outputSchema as object));
    return new Session(client, tools, validators);
  }

  async call(name: string, args: Sc): Promise<CallToolResult> {
    const r = (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    const sc = r.structuredContent;
    expect(sc, `${name} returns structuredContent`).toBeTypeOf("object");
    const validate = this.validators.get(name);
    if (validate && !validate(sc)) {
      throw new Error(`${name} structuredContent violates its outputSchema: ${JSON.stringify(validate.errors)}`);
    }
    const text = r.content.find((c) => c.type === "text");
    expect(text && JSON.parse((text as { text: string }).text), `${name} text mirrors structuredContent`).toEqual(sc);
    return r;
  }

  async sc(name: string, args: Sc): Promise<Sc> {
    return (await this.call(name, args)).structuredContent as Sc;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Calls every tool in TOOLS (catalog order) with each of its examples, after making the fixture.
 * No call may be a protocol error (the SDK would throw) or an isError result: write tools must
 * succeed, and so must reads with valid arguments. Returns each tool's structuredContent (its last example's).
 */
export async function callEveryTool(s: Session, project: string): Promise<Map<string, Sc>> {
  expect(missingExamples(), "every tool in TOOLS has examples in its definition").toEqual([]);
  expect(s.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
  const fixture = await makeFixture(project, (tool, args) => s.sc(tool, args));
  const results = new Map<string, Sc>();
  for (const { name, title, args } of exampleCalls(fixture)) {
    const r = await s.call(name, args);
    expect(
      answeredAsExpected(name, r.isError, r.structuredContent),
      `${name} (${title}) ${JSON.stringify(args)} → ${JSON.stringify(r.structuredContent)}`,
    ).toBe(true);
    results.set(name, r.structuredContent as Sc);
  }
  return results;
}

// ------------------------------------------------------------------ the binary over stdio

/** The messages of complete pino lines; a line that is not a JSON log object fails the test. */
export function logMessages(stderr: string): string {
  const lines = stderr.split("\n").slice(0, -1);
  return lines.map((l) => (JSON.parse(l) as { msg: string }).msg).join("\n");
}

export interface StdioServer {
  session: Session;
  stderr(): string;
  /** The `msg` of each log line on stderr (one JSON object a line), one a line. */
  log(): string;
  pid: number;
  /** Closes the client (stdin EOF) and returns whether the child is gone. */
  stop(): Promise<boolean>;
}

export async function startStdio(serveArgs: string[], env?: Record<string, string>): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "serve", ...everyTool(serveArgs)],
    cwd: ROOT,
    stderr: "pipe",
    ...(env ? { env: { ...(process.env as Record<string, string>), ...env } } : {}),
  });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const client = new Client({ name: "shampoo-e2e-stdio", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`stdio server did not initialize: ${(e as Error).message}\n${err}`);
  }
  const pid = transport.pid as number;
  const session = await Session.open(client);
  return {
    session,
    pid,
    stderr: () => err,
    log: () => logMessages(err),
    stop: async () => {
      await client.close();
      return !alive(pid);
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------ the binary over HTTP

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL if it lingers; resolves with the exit code (null when killed). */
  stop(): Promise<number | null>;
}

const URL_LINE = /MCP \(Streamable HTTP\): (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\s/;

/** Spawns `shampoo serve --http --port 0 …` and waits for the line that prints its URL. */
export function startHttp(serveArgs: string[]): Promise<HttpServer> {
  const child = spawn(process.execPath, [BIN, "serve", "--http", "--port", "0", ...everyTool(serveArgs)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const exited = new Promise<number | null>((res) => child.once("exit", (code) => res(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`no URL line within 20 s\nstdout: ${out}\nstderr: ${err}`));
    }, 20_000);
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      const m = URL_LINE.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ url: m[1] as string, child, stdout: () => out, stderr: () => err, stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before printing its URL\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

export async function connectHttp(url: string, token?: string, clientName = "shampoo-e2e-http"): Promise<Session> {
  const client = new Client({ name: clientName, version: "1.0.0" });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return Session.open(client);
}

/** Runs the binary to completion (usage errors, refusals); resolves with its exit code and output. */
export function runBin(args: string[], timeoutMs = 20_000): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out, err });
    });
  });
}
