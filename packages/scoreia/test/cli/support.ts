/**
 * CLI test support: the real `scoreia` binary in child processes (node packages/scoreia/bin/scoreia.mjs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { BIN, ROOT } from "../e2e/support.ts";

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let scratch: string | undefined;
// One scratch data dir per test file, removed after the file's tests.
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});
function scratchDataDir(): string {
  if (!scratch) {
    const dir = mkdtempSync(join(tmpdir(), "scoreia-cli-default-"));
    scratch = dir;
  }
  return scratch;
}

/** Runs one `scoreia …` command to completion. SCOREIA_DATA_DIR is set so no test touches ~/. */
export function run(args: string[], opts: { dataDir?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SCOREIA_DATA_DIR: opts.dataDir ?? scratchDataDir() },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`scoreia ${args.join(" ")} took over ${opts.timeoutMs ?? 20_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 20_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface SignerProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Spawns `scoreia signer --socket … --data-dir …` and waits for its listening line. */
export function startSigner(socket: string, dataDir: string): Promise<SignerProcess> {
  const child = spawn(process.execPath, [BIN, "signer", "--socket", socket, "--data-dir", dataDir], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  const proc: SignerProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`signer did not listen within 20 s\n${out}\n${err}`));
    }, 20_000);
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes("listening on")) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`signer exited (${code}) before listening\n${out}\n${err}`));
    });
  });
}

/** Sends raw lines to a signer socket and collects the reply lines (test of the wire protocol). */
export function talk(socket: string, lines: string[], expect = lines.length): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buf = "";
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no ${expect} replies within 5 s: ${buf}`));
    }, 5000);
    s.once("connect", () => s.write(lines.map((l) => `${l}\n`).join("")));
    s.on("error", reject);
    s.on("data", (c: Buffer) => {
      buf += c.toString("utf8");
      const got = buf.split("\n").filter((l) => l !== "");
      if (got.length >= expect && buf.endsWith("\n")) {
        clearTimeout(timer);
        s.destroy();
        resolve(got.map((l) => JSON.parse(l)));
      }
    });
  });
}

/** The single stdout line of a verify run (asserting there is exactly one). */
export function oneLine(r: RunResult): string {
  const lines = r.stdout.split("\n").filter((l) => l !== "");
  if (lines.length !== 1) throw new Error(`expected one line, got ${JSON.stringify(r.stdout)}; stderr ${r.stderr}`);
  return lines[0] as string;
}
