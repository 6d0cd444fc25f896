import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import envPaths from "env-paths";
import type { Database } from "kernel";
import { logger } from "kernel/log.ts";
import type { ChamberDB } from "./attempts/schema.ts";
import { CURRENT_TOOLSET, TOOLSETS, toolsetHash } from "./contract/index.ts";
import { canonicalJson } from "./evidence/jcs.ts";
import type { CardRegistry } from "./evidence/registry.ts";
import type { RegradeRefusal, RegradeResult } from "./evidence/regrade.ts";
import { KeyringDir, RemoteSigner, serveSigner } from "./evidence/remote-signer.ts";
import type { PublicKeyRecord, Signer } from "./evidence/signer.ts";
import { DuplicateMemberError, parseStrictJson } from "./evidence/strict-json.ts";
import { type ProofBundle, type VerificationResult, verifyHistorical, verifyProof } from "./evidence/verify.ts";
import type { LatestHead } from "./evidence/verify-log.ts";

/** The server's log (JSON lines on stderr, kernel/src/log.ts); usage errors stay plain lines. */
const serveLog = logger("serve");

/** This package's version (package.json sits next to src/ and dist/ alike). */
const VERSION: string = createRequire(import.meta.url)("../package.json").version;

// The MCP server, the HTTP transport and the database drivers load only for the commands that
// use them (import("kernel"), import("./app.ts")): verify, keys and signer start in a fraction
// of the time.

const HELP = `scoreia — ScoreIA Open Chamber (MCP toolset ${CURRENT_TOOLSET.toolset_id})

Usage:
  scoreia serve [--http] [--port N] [--host ADDR] [--public-origin URL] [--trust-proxy LIST] [--db PATH|postgres://…] [--signer unix:PATH]
      Serve the Chamber over MCP. stdio by default (for an MCP host to launch);
      --http serves Streamable HTTP at http://127.0.0.1:N/mcp (default port 8420), and the
      public read side on the same port (/cards, /proofs, /.well-known/scoreia-keys.json, …).
      --signer unix:PATH signs cards through a separate \`scoreia signer\` process; while it is
      unreachable, seals answer signature_unavailable and cards wait (pending_signature) until
      a later seal signs them unchanged. Default: the key in <data-dir>/keys, in this process.
      --public-origin URL: the origin the public reaches this server at (e.g. https://chamber.example):
      the pages' snippets, seal_attempt's links to the card, its proof and its verify page (--http
      default: the listener's own origin), and accepted as Host on /mcp.
      --admission N,G,S: at most N requests per S seconds per client address and G in all over
      HTTP (429 with Retry-After past them); default 600,6000,60; "off" to disable.
      --trust-proxy LIST: comma-separated IP addresses or CIDR blocks of your load balancers; a
      request from one of them counts against the rightmost X-Forwarded-For address that is not
      (default: none, the socket peer is the client and X-Forwarded-For is ignored).
      SCOREIA_SESSION_SECRET (≥ 32 bytes): shared by instances so any honours a 2025 session id.
  scoreia signer --socket PATH [--data-dir DIR]
      Hold the signing keys (<data-dir>/keys) in their own process and sign card statements
      for \`serve --signer unix:PATH\` over a Unix socket (mode 0600). Nothing else is signed.
  scoreia keys rotate [--data-dir DIR]
      Close the current key's window now and open a new key (prints its id). Cards signed
      earlier keep verifying; a running signer or server picks the new key up by itself.
  scoreia keys list [--data-dir DIR]
      Print the public key records with their windows, as {"keys":[…]} (the same document as
      /.well-known/scoreia-keys.json, usable with verify --keys).
  scoreia verify CARD_ID|FILE [--server URL] [--keys FILE] [--json] [--db …]
      Verify a card offline and print one line: valid / invalid / unknown key /
      unsigned historical / pending signature (--json: the whole verification result).
      FILE      a proof bundle (GET /proofs/{id}.json) or a historical card JSON
      CARD_ID   with --server URL: fetches URL/proofs/{id}.json and the server's keys
                (/.well-known/scoreia-keys.json) and verifies here; the server's own
                verdict is never used. Without --server: the card in the local database.
      Trusted keys: --keys FILE ({"keys":[…]}), else the server's key document (--server),
      the local database's published keys (CARD_ID) or the local keyring (FILE).
  scoreia import-historical FILE [--db …]
      Import historical 0.1 / oly-16 cards (a JSON array, or JSON Lines) unsigned; cards
      already present are skipped. Any invalid card refuses the whole file (nothing imported).
  scoreia reveal SUITE GENERATION [--db …] [--data-dir DIR]
      Retire a suite generation and publish its room secret and replay salts
      (GET /suites/SUITE/GENERATION/reveal.json): anyone can then rebuild its rooms and re-grade.
  scoreia regrade REVEAL [PROOF…] [--server URL] [--json]
      Re-grade every card of a revealed generation offline (docs/evidence-0.2.md §14.5):
      REVEAL is a reveal document (a file, or its URL …/suites/S/G/reveal.json); PROOF files
      are proof bundles; without them every card the reveal names is fetched from --server
      (default: the reveal URL's origin). Exit 0 every card agrees, 1 one disagrees,
      7 unusable input (a malformed reveal or proof, a wrong secret, another generation's card).
  scoreia quarantine HANDLE --reason TEXT [--db …]
      Set an attempt aside for review (it still seals, to a quarantined card).
  scoreia --help | --version

Options:
  --db        SQLite file (default: ${defaultDb()}) or a postgres:// URL;
              postgres://…/db?schema=NAME keeps the tables in schema NAME (created if missing)
  --data-dir  where the default database and the signing keys live
              (default: $SCOREIA_DATA_DIR or ${dataDir()})
  --port      HTTP port (0 picks a free one)
  --host      HTTP bind address (default 127.0.0.1)

Exit codes (verify; regrade adds 7 for refused input; the other commands use 0, 1, 2 and 6 alike):
  0  valid                 4  unsigned historical card
  1  invalid               5  pending signature
  2  usage error           6  network or I/O error (unreachable, not found, unreadable)
  3  unknown key (not among the trusted keys)
`;

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

/** Options each command accepts (besides --help). */
const ACCEPTS: Record<string, string[]> = {
  serve: ["http", "port", "host", "db", "data-dir", "signer", "public-origin", "admission", "trust-proxy"],
  signer: ["socket", "data-dir"],
  keys: ["data-dir"],
  verify: ["server", "keys", "json", "db", "data-dir"],
  "import-historical": ["db", "data-dir"],
  quarantine: ["reason", "db", "data-dir", "signer"],
  reveal: ["db", "data-dir"],
  regrade: ["server", "json"],
};

function dataDir(override?: string): string {
  return override ?? process.env.SCOREIA_DATA_DIR ?? envPaths("scoreia", { suffix: "" }).data;
}

function defaultDb(dir?: string): string {
  return join(dataDir(dir), "chamber.db");
}

class UsageError extends Error {}
/** Network and I/O failures: exit 6. */
class IoError extends Error {}

type Values = ReturnType<typeof parse>["values"];

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    process.stderr.write(`scoreia: ${(e as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const cmd = positionals[0];
  if (values.version) {
    process.stdout.write(`scoreia ${VERSION}\n`);
    return 0;
  }
  if (values.help || !cmd) {
    process.stdout.write(HELP);
    return cmd || values.help ? 0 : EXIT.usage;
  }
  const accepts = ACCEPTS[cmd];
  if (!accepts) {
    process.stderr.write(`scoreia: unknown command ${cmd}\n\n${HELP}`);
    return EXIT.usage;
  }
  const stray = Object.keys(values).find((k) => k !== "help" && !accepts.includes(k));
  if (stray) {
    process.stderr.write(`scoreia ${cmd}: --${stray} does not apply here (see scoreia --help)\n`);
    return EXIT.usage;
  }
  try {
    switch (cmd) {
      case "serve":
        return await serve(values);
      case "signer":
        return await signer(values);
      case "keys":
        return await keys(values, positionals.slice(1));
      case "verify":
        return await verify(values, positionals.slice(1));
      case "import-historical":
        return await importHistorical(values, positionals.slice(1));
      case "reveal":
        return await reveal(values, positionals.slice(1));
      case "regrade":
        return await regrade(values, positionals.slice(1));
      default:
        return await quarantine(values, positionals.slice(1));
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`scoreia ${cmd}: ${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof IoError) {
      process.stderr.write(`scoreia ${cmd}: ${e.message}\n`);
      return EXIT.io;
    }
    throw e;
  }
}

function parse(argv: string[]) {
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
      json: { type: "boolean" },
      "public-origin": { type: "string" },
      admission: { type: "string" },
      "trust-proxy": { type: "string" },
    },
  });
}

/** The data dir, created (mode 0700) for commands that write into it. */
function ensureDataDir(values: Values): string {
  const dir = dataDir(values["data-dir"]);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Progress for long operations: one updating line on a terminal, plain lines otherwise. */
function progress(prefix: string): { update(text: string): void; done(text?: string): void } {
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

// ------------------------------------------------------------------ serve / quarantine

function chooseSigner(values: Values): { signer: Signer; describe(): Promise<string> } {
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

/** `--admission PER_ADDRESS,GLOBAL,WINDOW_SECONDS` or `off`; default 600,6000,60 (HTTP only). */
function parseAdmission(
  spec: string | undefined,
): { perAddress: number; global: number; windowSeconds: number } | null {
  if (spec === "off") return null;
  const [perAddress, global, windowSeconds] = (spec ?? "600,6000,60").split(",").map(Number);
  const ok = [perAddress, global, windowSeconds].every((n) => Number.isInteger(n) && (n as number) > 0);
  if (!ok || (spec ?? "").split(",").length > 3) {
    throw new UsageError(
      `--admission must be PER_ADDRESS,GLOBAL,WINDOW_SECONDS (positive integers) or off, got ${spec}`,
    );
  }
  return { perAddress: perAddress as number, global: global as number, windowSeconds: windowSeconds as number };
}

/** `--trust-proxy LIST` (HTTP only): the load balancers whose X-Forwarded-For names the client. */
function parseTrustProxy(values: Values, proxies: { parse(list: string): { entries: readonly string[] } }) {
  const list = values["trust-proxy"];
  if (list === undefined) return undefined;
  if (!values.http) throw new UsageError("--trust-proxy applies to --http only");
  try {
    return proxies.parse(list).entries;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function serve(values: Values): Promise<number> {
  const port = values.port === undefined ? 8420 : Number(values.port);
  if (values.http && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  }
  const { signer, describe } = chooseSigner(values);
  const db = values.db ?? defaultDb(ensureDataDir(values));
  const { openChamber } = await import("./app.ts");
  const { serveHttp, serveStdio, TrustedProxies } = await import("kernel");
  const admission = parseAdmission(values.admission);
  const trustProxy = parseTrustProxy(values, TrustedProxies);
  const publicOrigin = values["public-origin"];
  if (publicOrigin !== undefined && !/^https?:\/\/[^/?#\s]+$/.test(publicOrigin)) {
    throw new UsageError(`--public-origin must be an origin like https://chamber.example, got ${publicOrigin}`);
  }
  const { SuiteSecrets } = await import("./suites/secrets.ts");
  // Room secrets live beside the signing keys, never in the repository (docs/evidence-0.2.md §14).
  const secrets = SuiteSecrets.open(join(ensureDataDir(values), "suite-secrets"));
  let chamber: Awaited<ReturnType<typeof openChamber>>;
  try {
    chamber = await openChamber({ db, signer, secrets, ...(publicOrigin ? { publicOrigin } : {}) });
  } catch (e) {
    // One line (e.g. a postgres:// URL without a user), not a stack.
    serveLog.fatal(`cannot open ${db}: ${(e as Error).message}`);
    return EXIT.io;
  }
  // Publishes the signer's public keys now (they would be on the first seal anyway).
  await chamber.service.publishKeys().catch(() => undefined);
  const signing = await describe();
  if (values.http) {
    const http = await serveHttp({
      mcp: chamber.mcp,
      host: values.host ?? "127.0.0.1",
      port,
      maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
      // The public read side (cards, proofs, keys, pages) on the same listener as /mcp.
      routes: chamber.routes,
      // The public door: admission limits per client address and in all (docs/deploy.md).
      ...(admission ? { admission } : {}),
      // Behind load balancers the per-address limits count the forwarded client (docs/deploy.md).
      ...(trustProxy ? { trustProxy } : {}),
      ...(publicOrigin ? { allowedHosts: [new URL(publicOrigin).host] } : {}),
      // Shared by every instance behind one endpoint, so any of them honours a 2025 session id.
      ...(process.env.SCOREIA_SESSION_SECRET ? { sessionSecret: process.env.SCOREIA_SESSION_SECRET } : {}),
    });
    // seal_attempt links cards under the origin the public reaches; this listener's by default.
    chamber.service.config.publicOrigin ??= new URL(http.url).origin;
    process.stdout.write(
      `ScoreIA Open Chamber (${CURRENT_TOOLSET.toolset_id}) listening\n` +
        `  MCP (Streamable HTTP): ${http.url}\n` +
        `  database: ${chamber.database.location}\n` +
        `  ${signing}\n` +
        `Connect an MCP host, e.g. add to its config:\n` +
        `  { "mcpServers": { "scoreia": { "url": "${http.url}" } } }\n` +
        `or launch over stdio: { "command": "npx", "args": ["scoreia", "serve"] }\n`,
    );
    await waitForSignal();
    await http.close();
  } else {
    // the message reads alone (a person tailing stderr); the fields are for log tooling
    serveLog.info(
      { database: chamber.database.location, signing },
      `serving MCP over stdio, database ${chamber.database.location}`,
    );
    const s = await serveStdio(chamber.mcp);
    await new Promise<void>((resolve) => {
      process.stdin.once("end", resolve);
      process.stdin.once("close", resolve);
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await s.close();
  }
  await chamber.close();
  return 0;
}

/**
 * Retires a suite generation and publishes its room secret (commit-reveal, docs/evidence-0.2.md
 * §14.3): new attempts enter a fresh generation, and GET /suites/{suite}/{generation}/reveal.json
 * serves the secret and every card's replay salt, so anyone can rebuild the rooms and re-grade.
 */
async function reveal(values: Values, args: string[]): Promise<number> {
  const [suite, generation, ...rest] = args;
  if (!suite || !generation || rest.length > 0)
    throw new UsageError("needs SUITE GENERATION, e.g. chambre-chrono-v0 001.3fa2c9d1");
  const { openChamber } = await import("./app.ts");
  const { SuiteSecrets } = await import("./suites/secrets.ts");
  const secrets = SuiteSecrets.open(join(ensureDataDir(values), "suite-secrets"));
  const chamber = await openChamber({ db: values.db ?? defaultDb(ensureDataDir(values)), secrets });
  try {
    const r = await chamber.service.reveal(suite, generation);
    process.stderr.write(`scoreia reveal: ${suite} ${generation} retired at ${r.revealed_at}; its secret is public\n`);
    process.stdout.write(`${r.secret}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`scoreia reveal: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await chamber.close();
  }
}

async function quarantine(values: Values, args: string[]): Promise<number> {
  const handle = args[0];
  if (!handle || !values.reason || args.length > 1) throw new UsageError("needs HANDLE and --reason TEXT");
  const { signer } = chooseSigner(values);
  const { openChamber } = await import("./app.ts");
  const chamber = await openChamber({ db: values.db ?? defaultDb(ensureDataDir(values)), signer });
  try {
    await chamber.service.quarantine(handle, values.reason);
    process.stdout.write(`${handle} quarantined\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`scoreia quarantine: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await chamber.close();
  }
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

// ------------------------------------------------------------------ signer / keys

async function signer(values: Values): Promise<number> {
  if (!values.socket) throw new UsageError("needs --socket PATH");
  const keyring = KeyringDir.open(join(ensureDataDir(values), "keys"));
  let server: Awaited<ReturnType<typeof serveSigner>>;
  try {
    server = await serveSigner(keyring, values.socket, {
      log: (line) => logger("signer").info(line),
    });
  } catch (e) {
    throw new IoError((e as Error).message);
  }
  process.stdout.write(
    `scoreia signer listening on ${server.path} (current key ${keyring.currentKeyId}, keyring ${keyring.dir})\n` +
      `  use: scoreia serve --signer unix:${server.path}\n`,
  );
  await waitForSignal();
  await server.close();
  return 0;
}

async function keys(values: Values, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if ((sub !== "rotate" && sub !== "list") || rest.length > 0) throw new UsageError("keys rotate | keys list");
  const dir = join(dataDir(values["data-dir"]), "keys");
  if (sub === "list") {
    const records = KeyringDir.readPublic(dir);
    if (!records) throw new IoError(`no keyring in ${dir} (scoreia serve or scoreia signer creates one)`);
    process.stdout.write(`${JSON.stringify({ keys: records }, null, 2)}\n`);
    return 0;
  }
  ensureDataDir(values);
  const { closed, opened } = await KeyringDir.open(dir).rotate();
  process.stderr.write(
    `scoreia keys: ${closed.key_id} now covers ${closed.not_before} – ${closed.not_after}; ` +
      `${opened.key_id} signs from ${opened.not_before}\n`,
  );
  process.stdout.write(`${opened.key_id}\n`);
  return 0;
}

// ------------------------------------------------------------------ verify

const CARD_ID = /^(sia|oly)-([0-9a-f]{16}|[0-9a-f]{32})$/;
const VERDICT_EXIT: Record<VerificationResult["verdict"], number> = {
  valid: EXIT.valid,
  invalid: EXIT.invalid,
  unknown_key: EXIT.unknown_key,
  unsigned_historical: EXIT.unsigned_historical,
  pending_signature: EXIT.pending_signature,
};

interface Trusted {
  keys: PublicKeyRecord[];
  /** Where they came from, for the unknown-key line. */
  source: string;
}

async function verify(values: Values, args: string[]): Promise<number> {
  const target = args[0];
  if (!target || args.length > 1) throw new UsageError("needs one CARD_ID or FILE");
  const pinned = values.keys === undefined ? null : readKeysFile(values.keys);
  let outcome: Outcome;
  if (existsSync(target) || !CARD_ID.test(target)) {
    if (values.server !== undefined) throw new UsageError("--server goes with a CARD_ID, not a file");
    outcome = verifyFile(target, pinned ?? localKeyring(values));
  } else if (values.server !== undefined) {
    outcome = await verifyRemote(target, values.server, pinned);
  } else {
    outcome = await verifyLocal(target, values, pinned);
  }
  const { result, signature } = outcome;
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else process.stdout.write(`${verdictLine(result, signature, outcome)}\n`);
  return VERDICT_EXIT[result.verdict];
}

function verdictLine(
  r: VerificationResult,
  signature: { key_id: string; signed_at: string } | undefined,
  outcome: { trusted?: Trusted },
): string {
  const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ");
  switch (r.verdict) {
    case "valid":
      return `valid ${r.card_id} (signed by ${signature?.key_id} at ${signature?.signed_at})`;
    case "invalid": {
      const failed = r.steps.find((s) => !s.ok);
      const step = failed?.step ?? r.code ?? "card";
      return oneLine(`invalid: ${step}: ${failed?.detail ?? r.message.replace(/^invalid: /, "")}`);
    }
    case "unknown_key":
      return oneLine(`${r.message}${outcome.trusted ? ` (trusted keys: ${outcome.trusted.source})` : ""}`);
    default:
      return oneLine(r.message);
  }
}

function readKeysFile(file: string): Trusted {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new IoError(`cannot read --keys ${file}: ${(e as Error).message}`);
  }
  let keys: unknown;
  try {
    keys = keyDocument(JSON.parse(text));
  } catch {
    keys = null;
  }
  if (!keys) throw new UsageError(`--keys ${file} is not a key document ({"keys":[…]})`);
  const list = keys as PublicKeyRecord[];
  return { keys: list, source: `${list.length} from ${file}` };
}

/** {keys:[…]} (the /.well-known document) or a bare array of records; null otherwise. */
function keyDocument(doc: unknown): PublicKeyRecord[] | null {
  const list = Array.isArray(doc)
    ? doc
    : typeof doc === "object" && doc !== null
      ? (doc as { keys?: unknown }).keys
      : undefined;
  if (!Array.isArray(list) || !list.every((k) => typeof k === "object" && k !== null && "key_id" in k)) return null;
  return list as PublicKeyRecord[];
}

function localKeyring(values: Values): Trusted {
  const dir = join(dataDir(values["data-dir"]), "keys");
  let keys: PublicKeyRecord[] | null;
  try {
    keys = KeyringDir.readPublic(dir);
  } catch (e) {
    throw new IoError(`cannot read the keyring in ${dir}: ${(e as Error).message}`);
  }
  return keys
    ? { keys, source: `${keys.length} from the keyring in ${dir}` }
    : { keys: [], source: `none (no --keys, no keyring in ${dir})` };
}

type Outcome = {
  result: VerificationResult;
  signature?: { key_id: string; signed_at: string };
  trusted?: Trusted;
};

function invalidInput(code: string, message: string): VerificationResult {
  return {
    verdict: "invalid",
    card_id: null,
    code,
    message: `invalid: ${message}`,
    steps: [{ step: "shape", ok: false, detail: message }],
  };
}

/** Toolset id → hash for every contract this build knows (as CardRegistry.knownToolsets). */
function knownToolsets(): Record<string, string> {
  return Object.fromEntries(Object.values(TOOLSETS).map((t) => [t.toolset_id, toolsetHash(t)]));
}

/** Verifies a parsed document: a proof bundle, or a historical card (bare or wrapped as {card}). */
function verifyDocument(doc: unknown, trusted: Trusted, what: string, latestHead?: LatestHead): Outcome {
  const obj = typeof doc === "object" && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  // A proof bundle, or something meant to be one (then verifyProof names what is wrong with it).
  const isProof =
    obj !== null && ("proof_version" in obj || "card_hash" in obj || ("manifest" in obj && "replay" in obj));
  if (obj && !isProof) {
    const inner =
      typeof obj.card === "object" && obj.card !== null && !("card_id" in obj)
        ? (obj.card as Record<string, unknown>)
        : obj;
    if (typeof inner.card_id === "string") {
      if (inner.card_version !== "0.2") return { result: verifyHistorical(inner) };
      throw new UsageError(
        `${what} is a native 0.2 card, not its proof bundle: verify GET /proofs/${inner.card_id}.json, ` +
          `or pass ${inner.card_id} with --server URL`,
      );
    }
  }
  const result = verifyProof(doc, trusted.keys, knownToolsets(), latestHead ? { latestHead } : {});
  const signature = isProof ? (obj?.signature as { key_id: string; signed_at: string } | undefined) : undefined;
  return { result, trusted, ...(signature ? { signature } : {}) };
}

function verifyFile(file: string, trusted: Trusted): Outcome {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new IoError(
      code === "ENOENT"
        ? `${file}: no such file (and not a card id: sia-/oly- + 16 or 32 hex)`
        : `${file}: ${(e as Error).message}`,
    );
  }
  let doc: unknown;
  try {
    doc = parseStrictJson(text);
  } catch (e) {
    if (e instanceof DuplicateMemberError) return { result: invalidInput("duplicate_member", `${file}: ${e.message}`) };
    return { result: invalidInput("not_json", `${file} is not JSON (${(e as Error).message})`) };
  }
  return verifyDocument(doc, trusted, file);
}

async function verifyLocal(cardId: string, values: Values, pinned: Trusted | null): Promise<Outcome> {
  const database = await openExisting(values);
  try {
    const { CardRegistry } = await import("./evidence/registry.ts");
    const registry = new CardRegistry(database);
    let stored: Awaited<ReturnType<CardRegistry["get"]>>;
    try {
      stored = await registry.get(cardId);
    } catch (e) {
      throw new IoError(`cannot read cards from ${database.location}: ${(e as Error).message}`);
    }
    if (!stored) throw new IoError(`${cardId} is not in ${database.location}`);
    if (stored.card_version !== "0.2") return { result: verifyHistorical(stored.card) };
    if (!stored.signature) return { result: pending(cardId) };
    const proof = (await registry.proof(cardId)) as ProofBundle;
    const published = await registry.keys();
    const trusted = pinned ?? { keys: published, source: `${published.length} published in ${database.location}` };
    const head = await registry.log.head();
    const latestHead =
      head && proof.log
        ? {
            tree_head: head,
            consistency: await registry.log.consistency(proof.log.tree_head.tree_size, head.tree_size),
          }
        : undefined;
    return verifyDocument(proof, trusted, cardId, latestHead);
  } finally {
    await database.close();
  }
}

function pending(cardId: string): VerificationResult {
  return {
    verdict: "pending_signature",
    card_id: cardId,
    message: `pending signature: ${cardId} is written and waits for its signature`,
    steps: [],
  };
}

/** Opens the database read-side, without creating a SQLite file or migrating anything. */
async function openExisting(values: Values): Promise<Database<ChamberDB>> {
  const target = values.db ?? defaultDb(values["data-dir"]);
  const postgres = /^postgres(ql)?:\/\//.test(target);
  if (!postgres && !existsSync(target)) throw new IoError(`no database at ${target} (use --db, or --server URL)`);
  try {
    const { openDatabase } = await import("kernel");
    return await openDatabase<ChamberDB>(target);
  } catch (e) {
    throw new IoError(`cannot open ${target}: ${(e as Error).message}`);
  }
}

const FETCH_TIMEOUT_MS = 15_000;

async function fetchJson(
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

/**
 * The server's current tree head and the consistency proof from the bundle's head to it, so that
 * the bundle's log is checked to be a prefix of the live log (§15.5). Undefined when the bundle
 * has no usable head (the log step then reports it).
 */
async function remoteLatestHead(root: string, bundle: unknown): Promise<LatestHead | undefined> {
  const size = (bundle as { log?: { tree_head?: { tree_size?: unknown } } }).log?.tree_head?.tree_size;
  if (!Number.isSafeInteger(size) || (size as number) < 1) return undefined;
  const head = await fetchJson(`${root}/log/tree-head.json`);
  if (head.status !== 200 || head.duplicate) throw new IoError(`GET ${root}/log/tree-head.json: HTTP ${head.status}`);
  const second = (head.body as { tree_size?: unknown }).tree_size;
  if (!Number.isSafeInteger(second)) throw new IoError(`GET ${root}/log/tree-head.json: no tree_size`);
  const url = `${root}/log/consistency.json?first=${size}&second=${second}`;
  const proof =
    (second as number) < (size as number) ? { status: 200, body: { consistency: [] } } : await fetchJson(url);
  if (proof.status !== 200) throw new IoError(`GET ${url}: HTTP ${proof.status}`);
  return { tree_head: head.body, consistency: (proof.body as { consistency?: unknown }).consistency };
}

async function verifyRemote(cardId: string, server: string, pinned: Trusted | null): Promise<Outcome> {
  let base: URL;
  try {
    base = new URL(server);
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new UsageError(`--server needs an http(s) URL, got ${server}`);
  }
  const root = base.href.replace(/\/+$/, "");
  const id = encodeURIComponent(cardId);
  const proof = await fetchJson(`${root}/proofs/${id}.json`);
  if (proof.duplicate) return { result: invalidInput("duplicate_member", `the proof: ${proof.duplicate}`) };
  const isBundle = typeof proof.body === "object" && proof.body !== null && "proof_version" in proof.body;
  if (proof.status === 200 && isBundle) {
    let trusted = pinned;
    if (!trusted) {
      const url = `${root}/.well-known/scoreia-keys.json`;
      const doc = await fetchJson(url);
      const keys = doc.status === 200 ? keyDocument(doc.body) : null;
      if (!keys) throw new IoError(`GET ${url}: HTTP ${doc.status}, no key document`);
      trusted = { keys, source: `${keys.length} from ${url}` };
    }
    const latestHead = await remoteLatestHead(root, proof.body);
    const out = verifyDocument(proof.body, trusted, `${root}/proofs/${id}.json`, latestHead);
    if (out.result.verdict !== "invalid" && out.result.card_id !== cardId) {
      // A perfectly valid proof of some other card proves nothing about this one.
      return {
        result: invalidInput("card_id_mismatch", `the server sent the proof of ${out.result.card_id}, not ${cardId}`),
      };
    }
    return out;
  }
  if (proof.status >= 500) throw new IoError(`GET ${root}/proofs/${id}.json: HTTP ${proof.status}`);
  const said = (proof.body ?? {}) as { error?: unknown; message?: unknown };
  if (proof.status === 404 && said.error === "card_not_found") {
    throw new IoError(`${cardId}: not found on ${root} (${String(said.message ?? "HTTP 404")})`);
  }
  // No native proof: a historical card (never signed), or a native card still waiting for its
  // signature. Fetch the card itself and judge it here.
  // Historical Labyrinth oly-16 cards live under /open-labyrinth; every other card under /cards.
  const labyrinth = /^oly-[0-9a-f]{16}$/.test(cardId);
  const places = [`${root}/cards/${id}.json`, `${root}/cards/${id}`];
  if (labyrinth) places.unshift(`${root}/open-labyrinth/cards/${id}.json`);
  for (const url of places) {
    const got = await fetchJson(url);
    if (got.status === 404 || got.status === 410) continue;
    if (got.status !== 200) throw new IoError(`GET ${url}: HTTP ${got.status}`);
    const doc = got.body as Record<string, unknown> | null;
    const card =
      typeof doc?.card === "object" && doc.card !== null ? (doc.card as Record<string, unknown>) : (doc ?? {});
    if (card.card_id !== cardId) throw new IoError(`GET ${url}: the server sent another card`);
    if (card.card_version === "0.2") return { result: pending(cardId) };
    return { result: verifyHistorical(card) };
  }
  throw new IoError(`${cardId}: not found on ${root} (HTTP ${proof.status} for its proof)`);
}

// ------------------------------------------------------------------ import-historical

interface Parsed {
  cards: unknown[];
  /** Where each card was in the file, for error messages ("line 3", "item 2"). */
  where: string[];
}

function readCards(file: string): Parsed {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new IoError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const trimmed = text.trim();
  if (trimmed === "") return { cards: [], where: [] };
  // Strict JSON (docs/evidence-0.2.md §1.1): a duplicated member name refuses the file, since
  // another reader could take the other value of the card it imports.
  try {
    const doc = parseStrictJson(trimmed);
    if (Array.isArray(doc)) return { cards: doc, where: doc.map((_, i) => `item ${i + 1}`) };
    return { cards: [doc], where: ["the file"] };
  } catch (e) {
    if (e instanceof DuplicateMemberError) throw new RefusedFile([`the file: ${e.message}`]);
    // not one JSON document: JSON Lines
  }
  const cards: unknown[] = [];
  const where: string[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === "") continue;
    try {
      cards.push(parseStrictJson(raw));
    } catch (e) {
      if (e instanceof DuplicateMemberError) throw new RefusedFile([`line ${i + 1}: ${e.message}`]);
      throw new RefusedFile([`line ${i + 1}: not JSON (${(e as Error).message})`]);
    }
    where.push(`line ${i + 1}`);
  }
  return { cards, where };
}

class RefusedFile extends Error {
  constructor(readonly problems: string[]) {
    super(problems[0]);
  }
}

async function importHistorical(values: Values, args: string[]): Promise<number> {
  const file = args[0];
  if (!file || args.length > 1) throw new UsageError("needs one FILE (a JSON array or JSON Lines of cards)");
  const bar = progress("scoreia import-historical");
  let parsed: Parsed;
  try {
    parsed = readCards(file);
  } catch (e) {
    if (!(e instanceof RefusedFile)) throw e;
    return refuse(file, e.problems);
  }
  const { cards, where } = parsed;
  bar.update(`read ${cards.length} cards from ${file}; checking`);

  // Every card is checked before anything is written: one bad card refuses the whole file.
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [i, c] of cards.entries()) {
    const at = where[i] as string;
    const check = verifyHistorical(c);
    if (check.verdict !== "unsigned_historical") {
      problems.push(`${at}: ${check.card_id ?? "not a card"}: ${check.message.replace(/^invalid: /, "")}`);
      continue;
    }
    const card = c as Record<string, unknown>;
    if (card.card_version === "0.2") {
      problems.push(`${at}: ${card.card_id}: says card_version 0.2, but native cards are never imported`);
      continue;
    }
    const text = canonicalJson(card);
    const before = seen.get(card.card_id as string);
    if (before !== undefined && before !== text) {
      problems.push(`${at}: ${card.card_id} appears earlier in the file with other content`);
    }
    seen.set(card.card_id as string, text);
  }
  if (problems.length > 0) {
    bar.done();
    return refuse(file, problems);
  }

  const target = values.db ?? defaultDb(ensureDataDir(values));
  let database: Database<ChamberDB>;
  const { openDatabase } = await import("kernel");
  const { migrateChamber } = await import("./app.ts");
  const { CardRegistry } = await import("./evidence/registry.ts");
  try {
    database = await openDatabase<ChamberDB>(target);
    await migrateChamber(database);
  } catch (e) {
    throw new IoError(`cannot open ${target}: ${(e as Error).message}`);
  }
  try {
    const registry = new CardRegistry(database);
    // A card already present with other content is a conflict, not a skip.
    let checked = 0;
    for (const [id, text] of seen) {
      const existing = await registry.get(id);
      if (existing && canonicalJson(existing.card) !== text) {
        problems.push(`${id} is already in ${database.location} with other content`);
      }
      if (++checked % 500 === 0) bar.update(`checked ${checked}/${seen.size} against ${database.location}`);
    }
    if (problems.length > 0) {
      bar.done();
      return refuse(file, problems);
    }
    const importedAt = new Date().toISOString();
    const BATCH = 500;
    let imported = 0;
    let skipped = 0;
    for (let i = 0; i < cards.length; i += BATCH) {
      const r = await registry.importHistorical(cards.slice(i, i + BATCH), importedAt);
      imported += r.imported;
      skipped += r.skipped;
      bar.update(
        `${Math.min(i + BATCH, cards.length)}/${cards.length} cards (${imported} imported, ${skipped} skipped)`,
      );
    }
    bar.done(`${cards.length}/${cards.length} cards done`);
    process.stdout.write(
      `imported ${imported}, skipped ${skipped} (already present), ${cards.length} in ${file} → ${database.location}\n`,
    );
    return 0;
  } catch (e) {
    bar.done();
    throw new IoError(`import into ${database.location} failed: ${(e as Error).message}`);
  } finally {
    await database.close();
  }
}

function refuse(file: string, problems: string[]): number {
  const shown = problems.slice(0, 20).map((p) => `  ${p}\n`);
  const more = problems.length > 20 ? `  … and ${problems.length - 20} more\n` : "";
  process.stderr.write(
    `scoreia import-historical: refused ${resolve(file)}, nothing imported (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${shown.join("")}${more}`,
  );
  return EXIT.invalid;
}

/** A strict-JSON document from a file or an http(s) URL; a duplicated member refuses it (exit 7). */
async function readDocument(where: string, what: string, Refusal: typeof RegradeRefusal): Promise<unknown> {
  if (/^https?:\/\//.test(where)) {
    const got = await fetchJson(where, "scoreia regrade");
    if (got.duplicate)
      throw new Refusal(what === "reveal" ? "reveal_malformed" : "proof_malformed", `${where}: ${got.duplicate}`);
    if (got.status !== 200)
      throw new IoError(`GET ${where}: HTTP ${got.status} ${JSON.stringify(got.body).slice(0, 120)}`);
    return got.body;
  }
  let text: string;
  try {
    text = readFileSync(where, "utf8");
  } catch (e) {
    throw new IoError(`cannot read ${where}: ${(e as Error).message}`);
  }
  try {
    return parseStrictJson(text);
  } catch (e) {
    throw new Refusal(what === "reveal" ? "reveal_malformed" : "proof_malformed", `${where}: ${(e as Error).message}`);
  }
}

/**
 * Re-grades a revealed generation's cards offline (commit-reveal, docs/evidence-0.2.md §14.5):
 * rebuilds each room from the revealed secret, opens the replay's commitments and replays them.
 */
async function regrade(values: Values, args: string[]): Promise<number> {
  // Loaded here: only this command needs the suites' code, so every other command starts without it.
  const { checkReveal, RegradeRefusal, regradeCard } = await import("./evidence/regrade.ts");
  const [revealAt, ...proofFiles] = args;
  if (!revealAt) throw new UsageError("needs a REVEAL document (a file or a URL), then PROOF files or --server URL");
  const server = values.server ?? (/^https?:\/\//.test(revealAt) ? new URL(revealAt).origin : undefined);
  if (proofFiles.length === 0 && !server) {
    throw new UsageError("without PROOF files, --server URL (or a reveal URL) says where to fetch the proofs");
  }
  const results: RegradeResult[] = [];
  let refusal: RegradeRefusal | null = null;
  try {
    const checked = checkReveal(await readDocument(revealAt, "reveal", RegradeRefusal));
    const sources =
      proofFiles.length > 0
        ? proofFiles
        : Object.keys(checked.reveal.replay_salts).map(
            (id) => `${(server as string).replace(/\/+$/, "")}/proofs/${id}.json`,
          );
    for (const source of sources) {
      try {
        results.push(regradeCard(checked, await readDocument(source, "proof", RegradeRefusal)));
      } catch (e) {
        if (!(e instanceof RegradeRefusal)) throw e;
        results.push({ card_id: source, status: "refused", code: e.code, message: e.message });
      }
    }
  } catch (e) {
    if (!(e instanceof RegradeRefusal)) throw e;
    refusal = e;
  }
  const tally = {
    agrees: results.filter((r) => r.status === "agrees").length,
    disagrees: results.filter((r) => r.status === "disagrees").length,
    refused: results.filter((r) => r.status === "refused").length,
  };
  const code = refusal
    ? EXIT.refused
    : tally.disagrees > 0
      ? EXIT.invalid
      : tally.refused > 0
        ? EXIT.refused
        : EXIT.valid;
  if (values.json) {
    const doc = refusal
      ? { refused: { code: refusal.code, message: refusal.message }, cards: [] }
      : { cards: results, ...tally };
    process.stdout.write(`${JSON.stringify(doc)}\n`);
    return code;
  }
  if (refusal) {
    process.stdout.write(`refused (${refusal.code}): ${refusal.message}\n`);
    return code;
  }
  for (const r of results) {
    process.stdout.write(
      r.status === "agrees"
        ? `agrees ${r.card_id}: ${r.verdict}, ${r.actions} actions, ${r.opened} commitments opened\n`
        : `${r.status === "disagrees" ? "DISAGREES" : "refused"} ${r.card_id} (${r.code}): ${r.message}\n`,
    );
  }
  process.stdout.write(`${tally.agrees} agree, ${tally.disagrees} disagree, ${tally.refused} refused\n`);
  return code;
}
