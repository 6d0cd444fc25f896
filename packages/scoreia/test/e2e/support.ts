/**
 * End-to-end support: the real `scoreia` binary in a child process, driven by real MCP clients
 * (the SDK's stdio and Streamable HTTP transports). Nothing here reaches into the server's
 * modules except the reference solvers and the `mcpPort` adapter, which see only what any MCP
 * client sees.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { createPrivateKey, createPublicKey, verify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import BetterSqlite3 from "better-sqlite3";
import { expect } from "vitest";
import { sha256Tagged } from "../../src/evidence/jcs.ts";
import { statementBytes } from "../../src/evidence/signer.ts";
import { solveAtelier } from "../../src/suites/atelier/solver.ts";
import { solveChrono } from "../../src/suites/chrono/solver.ts";
import { mcpPort } from "../support/chamber.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
export const BIN = join(ROOT, "packages/scoreia/bin/scoreia.mjs");

export const CANONICAL_TOOLS = [
  "enter_open_challenge",
  "observe_chamber",
  "chamber_action",
  "call_for_help",
  "seal_attempt",
] as const;
export const SUITE_IDS = ["chambre-chrono-v0", "chambre-atelier-v0"] as const;
export type SuiteId = (typeof SUITE_IDS)[number];

/** What the participant declares. `host` is the MCP host it claims to run in. */
export const IDENTITY = {
  provider_claim: "openai",
  model_claim: "gpt-5.6-sol",
  product: "gpt-5.6-sol",
  host: "cursor",
};

const SOLVERS: Record<SuiteId, typeof solveChrono> = {
  "chambre-chrono-v0": solveChrono,
  "chambre-atelier-v0": solveAtelier,
};

export const CARD_ID = /^sia-[0-9a-f]{32}$/;
export const HANDLE = /^chl-[0-9a-f]{16}$/;

export function tempDir(tag: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `scoreia-e2e-${tag}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

type Sc = Record<string, unknown>;

/**
 * One MCP client session. Every tools/call result is checked on arrival: it has
 * structuredContent, that object validates against the tool's outputSchema as published in
 * tools/list (Ajv 2020, independently of the SDK client's own check), and the text content
 * is the same JSON.
 */
export class Session {
  readonly validated: Array<{ tool: string; ok: unknown }> = [];

  private constructor(
    readonly client: Client,
    readonly tools: Tool[],
    private readonly validators: Map<string, ValidateFunction>,
  ) {}

  static async open(client: Client): Promise<Session> {
    const { tools } = await client.listTools();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validators = new Map<string, ValidateFunction>();
    for (const t of tools) {
      expect(t.outputSchema, `${t.name} publishes an outputSchema`).toBeDefined();
      const validate = ajv.compile(t.outputSchema as object);
      // Not vacuous: the envelope's `ok` is required, and an ok:false needs code and error.
      expect(validate({}), `${t.name} outputSchema rejects {}`).toBe(false);
      expect(validate({ ok: false }), `${t.name} outputSchema rejects a bare ok:false`).toBe(false);
      validators.set(t.name, validate);
    }
    return new Session(client, tools, validators);
  }

  /** Calls a tool; `schemaOf` names the canonical tool whose outputSchema applies (for aliases). */
  async call(name: string, args: Sc, schemaOf = name): Promise<CallToolResult> {
    const r = (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    const sc = r.structuredContent;
    expect(sc, `${name} returns structuredContent`).toBeTypeOf("object");
    const validate = this.validators.get(schemaOf);
    if (!validate) throw new Error(`tools/list has no ${schemaOf}`);
    if (!validate(sc)) {
      throw new Error(`${name} structuredContent violates its outputSchema: ${JSON.stringify(validate.errors)}`);
    }
    const text = r.content.find((c) => c.type === "text");
    expect(
      text && JSON.parse((text as { text: string }).text),
      `${name} text content mirrors structuredContent`,
    ).toEqual(sc);
    expect(r.isError === true, `${name}: isError agrees with ok`).toBe(sc?.ok === false);
    this.validated.push({ tool: schemaOf, ok: sc?.ok });
    return r;
  }

  async sc(name: string, args: Sc, schemaOf = name): Promise<Sc> {
    return (await this.call(name, args, schemaOf)).structuredContent as Sc;
  }
}

export interface AttemptOutcome {
  handle: string;
  cardId: string;
  actions: number;
  entry: Sc;
  sealed: Sc;
}

/**
 * A whole attempt as an agent would run it: enter (fixed seed), observe, the reference solver
 * through chamber_action (every call carries expected_action_index), seal, and seal again.
 * `s` is any client that returns a checked structuredContent (Session, or the Inspector CLI).
 */
export async function fullAttempt(s: Pick<Session, "sc">, suite: SuiteId, seed: string): Promise<AttemptOutcome> {
  const entry = await s.sc("enter_open_challenge", { ...IDENTITY, suite, seed });
  expect(entry).toMatchObject({ ok: true, attempt_state: "created", suite_id: suite, seed, action_index: 0 });
  const handle = entry.attempt_handle as string;
  expect(handle).toMatch(HANDLE);
  const objects = entry.objects as string[];
  expect(objects.length).toBeGreaterThan(0);

  const seen = await s.sc("observe_chamber", { challenge_handle: handle, object: objects[0] as string });
  expect(seen).toMatchObject({ ok: true, attempt_handle: handle, action_index: 0, object: objects[0] });
  expect(seen.observation).toHaveProperty("text");

  const port = mcpPort((name, args) => s.sc(name, args), entry);
  await SOLVERS[suite](port);
  const actions = port.index();
  expect(actions).toBeGreaterThan(0);
  expect(actions).toBeLessThanOrEqual(64);

  const sealed = await s.sc("seal_attempt", { challenge_handle: handle, expected_action_index: actions });
  expect(sealed).toMatchObject({
    ok: true,
    attempt_handle: handle,
    attempt_state: "sealed",
    verdict: "solved",
    evidence_status: "signed",
    already_sealed: false,
    action_index: actions,
    terminal: true,
    allowed_next_tools: ["enter_open_challenge"],
  });
  const cardId = sealed.card_id as string;
  expect(cardId).toMatch(CARD_ID);

  const again = await s.sc("seal_attempt", { challenge_handle: handle });
  expect(again).toMatchObject({
    ok: true,
    attempt_state: "sealed",
    already_sealed: true,
    card_id: cardId,
    verdict: "solved",
    evidence_status: "signed",
  });
  return { handle, cardId, actions, entry, sealed };
}

/** Every call of the session validated, and every canonical tool but call_for_help exercised. */
export function expectAllValidated(s: Session, minCalls: number): void {
  expect(s.validated.length).toBeGreaterThanOrEqual(minCalls);
  const tools = new Set(s.validated.map((v) => v.tool));
  for (const t of ["enter_open_challenge", "observe_chamber", "chamber_action", "seal_attempt"]) {
    expect(tools.has(t), `${t} was called and validated`).toBe(true);
  }
}

// ------------------------------------------------------------------ the binary over stdio

export interface StdioServer {
  session: Session;
  stderr(): string;
  pid: number;
  /** Closes the client (stdin EOF), waits for the child to go, and returns whether it is gone. */
  stop(): Promise<boolean>;
}

export async function startStdio(serveArgs: string[], clientName = "scoreia-e2e-stdio"): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "serve", ...serveArgs],
    cwd: ROOT,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const client = new Client({ name: clientName, version: "1.0.0" });
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

/**
 * Spawns `scoreia serve --http --port 0 …` and waits for the line that prints its URL. `nodeArgs`
 * go to node itself (e.g. a heap limit).
 */
export function startHttp(serveArgs: string[], nodeArgs: string[] = []): Promise<HttpServer> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, "serve", "--http", "--port", "0", ...serveArgs], {
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

export async function connectHttp(url: string, clientName: string, clientVersion = "1.0.0"): Promise<Session> {
  const client = new Client({ name: clientName, version: clientVersion });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Session.open(client);
}

// ------------------------------------------------------------------ cards at rest

export interface CardRowAtRest {
  card_id: string;
  handle: string;
  body_json: string;
  signature_json: string | null;
  evidence_status: string;
}

/** Reads one card straight from the SQLite file, read-only, while the server keeps it open. */
export function readSqliteCard(file: string, cardId: string): CardRowAtRest {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        "SELECT card_id, handle, body_json, signature_json, evidence_status FROM chamber_cards WHERE card_id = ?",
      )
      .get(cardId) as CardRowAtRest | undefined;
    if (!row) throw new Error(`card ${cardId} is not in ${file}`);
    return row;
  } finally {
    db.close();
  }
}

/**
 * Checks a stored card against the attempt it came from and verifies its Ed25519 signature with
 * the key the binary created in its data dir. Returns the parsed body.
 */
export function checkCardAtRest(
  row: CardRowAtRest,
  dataDir: string,
  expected: { handle: string; suite: SuiteId; seed: string; actions: number },
): Record<string, unknown> {
  expect(row.evidence_status).toBe("signed");
  expect(row.handle).toBe(expected.handle);
  const body = JSON.parse(row.body_json) as Record<string, unknown>;
  expect(body).toMatchObject({
    card_id: row.card_id,
    verdict: "solved",
    seed: expected.seed,
    seed_source: "participant",
    channel: "mcp_session",
    suite: { id: expected.suite },
    attempt: { actions_used: expected.actions, stages_cleared: expect.any(Number) },
  });
  const attempt = body.attempt as { stages_cleared: number; stages_total: number };
  expect(attempt.stages_cleared).toBe(attempt.stages_total);

  const signature = JSON.parse(row.signature_json ?? "null") as {
    alg: string;
    key_id: string;
    sig: string;
    signed_at: string;
  };
  expect(signature.alg).toBe("Ed25519");
  const pem = readFileSync(join(dataDir, "keys", `${signature.key_id}.pem`));
  const publicKey = createPublicKey(createPrivateKey(pem));
  const statement = statementBytes(sha256Tagged(row.body_json), signature.key_id, signature.signed_at);
  const ok = verify(null, statement, publicKey, Buffer.from(signature.sig, "base64url"));
  expect(ok, "card signature verifies with the data dir's key").toBe(true);
  return body;
}
