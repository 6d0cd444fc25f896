import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import envPaths from "env-paths";
import { KeyringDir, RemoteSigner } from "../evidence/remote-signer.ts";
import type { Signer } from "../evidence/signer.ts";
import { DuplicateMemberError, parseStrictJson } from "../evidence/strict-json.ts";

/** What every subcommand shares: exit codes, errors, options, the data dir, the signer, progress, fetch. */
export const EXIT = {
  valid: 0,
  invalid: 1,
  usage: 2,
  unknown_key: 3,
  unsigned_historical: 4,
  pending_signature: 5,
  io: 6,
  refused: 7,
} as const;

/** Every option of every command; main refuses those a command does not accept. */
export function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "V" },
      http: { type: "boolean" },
      port: { type: "string" },
      host: { type: "string" },
      db: { type: "string" },
      "data-dir": { type: "string" },
      reason: { type: "string" },
      signer: { type: "string" },
      socket: { type: "string" },
      server: { type: "string" },
      keys: { type: "string" },
      head: { type: "string" },
      all: { type: "boolean" },
      json: { type: "boolean" },
      "public-origin": { type: "string" },
      admission: { type: "string" },
      "trust-proxy": { type: "string" },
    },
  });
}

export type Values = ReturnType<typeof parse>["values"];

/** A usage error: exit 2, one line. */
export class UsageError extends Error {}
/** Network and I/O failures: exit 6. */
export class IoError extends Error {}

export function dataDir(override?: string): string {
  return override ?? process.env.SCOREIA_DATA_DIR ?? envPaths("scoreia", { suffix: "" }).data;
}

export function defaultDb(dir?: string): string {
  return join(dataDir(dir), "chamber.db");
}

/** The data dir, created (mode 0700) for commands that write into it. */
export function ensureDataDir(values: Values): string {
  const dir = dataDir(values["data-dir"]);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Progress for long operations: one updating line on a terminal, plain lines otherwise. */
export function progress(prefix: string): { update(text: string): void; done(text?: string): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return {
    update(text) {
      if (tty) process.stderr.write(`\r\x1b[2K${prefix}: ${text}`);
      else if (Date.now() - last >= 1000) {
        process.stderr.write(`${prefix}: ${text}\n`);
        last = Date.now();
      }
    },
    done(text) {
      if (tty) process.stderr.write(`\r\x1b[2K${text ? `${prefix}: ${text}\n` : ""}`);
      else if (text) process.stderr.write(`${prefix}: ${text}\n`);
    },
  };
}

export function chooseSigner(values: Values): { signer: Signer; describe(): Promise<string> } {
  if (values.signer !== undefined) {
    let remote: RemoteSigner;
    try {
      remote = RemoteSigner.fromSpec(values.signer);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    return {
      signer: remote,
      describe: async () => {
        try {
          const keys = await remote.publicKeys();
          const current = keys.find((k) => k.not_after === null)?.key_id ?? "none";
          return `signer ${remote.spec} (current key ${current})`;
        } catch (e) {
          return `signer ${remote.spec} — not reachable now (${(e as Error).message}); seals stay pending_signature until it is`;
        }
      },
    };
  }
  const keyring = KeyringDir.open(join(ensureDataDir(values), "keys"));
  return { signer: keyring, describe: async () => `signing key: ${keyring.currentKeyId} (in-process, ${keyring.dir})` };
}

export function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

const FETCH_TIMEOUT_MS = 15_000;

/** GETs a JSON document (strict JSON: a duplicated member is reported, not parsed); network failures are IoError. */
export async function fetchJson(
  url: string,
  who = "scoreia verify",
): Promise<{ status: number; body: unknown; duplicate: string | null }> {
  process.stderr.write(`${who}: GET ${url}\n`);
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: "application/json" } });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === "TimeoutError"
        ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    throw new IoError(`GET ${url}: ${why}`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    throw new IoError(`GET ${url}: ${(e as Error).message}`);
  }
  let body: unknown = null;
  let duplicate: string | null = null;
  try {
    body = parseStrictJson(text);
  } catch (e) {
    if (e instanceof DuplicateMemberError) duplicate = e.message;
    else if (res.ok) throw new IoError(`GET ${url}: HTTP ${res.status} but the body is not JSON`);
  }
  return { status: res.status, body, duplicate };
}
