import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import envPaths from "env-paths";
import type { SessionInfo } from "kernel";
import { logger } from "kernel/log.ts";
import type { Caller } from "./access/caller.ts";
import {
  authenticateBearer,
  ConfigError,
  callerFromFlags,
  describeCaller,
  hasCallerFlags,
  loadConfig,
  type ShampooConfig,
} from "./access/config.ts";

/** The server's log (JSON lines on stderr, kernel/src/log.ts); usage errors stay plain lines. */
const serveLog = logger("serve");

/** This package's version (package.json sits next to src/ and dist/ alike). */
const VERSION: string = createRequire(import.meta.url)("../package.json").version;

// The MCP server, the HTTP transport and the database drivers load only when serving
// (import("kernel"), import("./app.ts")): --help and usage errors answer at once.

const DEFAULT_PORT = 8421;

export const HELP_TEXT = `shampoo — SHAMPOO: shared, durable memory and coordination for agents (MCP)

Usage:
  shampoo serve [--db PATH|postgres://…] [--data-dir DIR] [caller]
      Serve SHAMPOO over MCP on stdio (for an MCP host to launch). No configuration needed:
      the caller is the local principal "local" — conductor, every named project and the
      untagged enclave, profile "default". [caller] narrows or renames it:
        --principal NAME   who calls (default local)
        --role R           agent | conductor (default conductor)
        --grants LIST      comma-separated projects; "" (or an empty item, a,,b) is the
                           untagged enclave; * is every named project (default *,"")
        --profile P        the data boundary: nothing crosses profiles (default default)
      or, with --config FILE, --principal NAME picks that entry of the file.
  shampoo serve --http [--port N] [--host ADDR] --config FILE [--trust-proxy LIST] [--db …] [--data-dir DIR]
      Serve Streamable HTTP at http://127.0.0.1:N/mcp (default port ${DEFAULT_PORT}). Every request
      must carry Authorization: Bearer <token> of a principal in FILE, else 401; that principal
      is the caller of the request's tool calls.
      --trust-proxy LIST: comma-separated IP addresses or CIDR blocks of your load balancers;
      a request from one of them counts against the per-address session limit as the rightmost
      X-Forwarded-For address that is not (default: none, the socket peer is the client).
  shampoo serve --http --insecure-local [caller] [--port N] [--db …]
      No authentication: every request is the command-line caller (default: local). Only on a
      loopback --host (127.0.0.1, ::1, localhost); anyone on this machine can connect.
  shampoo import FILE --project P [--db …] [caller]
      Read a reference memory-server file (@modelcontextprotocol/server-memory JSONL: entity
      and relation lines) into project P, in one transaction, with a progress bar on stderr.
      Importing the same file twice changes nothing. The caller needs the grant for P.
  shampoo export --project P [--db …] [caller] > memory.jsonl
      Write project P's live entities (name order) and the relations between them as the
      reference JSONL, to stdout; progress on stderr.
  shampoo doctor [--db …] [--sections LIST] [--detail summary|full] [--json] [caller]
      The doctor tool's report (nine sections: config, database, auth, jobs, pump, wake,
      ledger, readiness, invariants), called through the same tool pipeline; writes nothing
      and migrates nothing. Exit codes: 0 ok, 3 warn, 4 unknown (a section nothing in this
      build can observe), 1 fail or no database, 2 usage.
  shampoo login --url URL --ticket ID [--profile P] [--credentials FILE]
      Enrol with a one-time ticket from a conductor (issue_ticket) by a hybrid handshake
      (ML-KEM-768 + P-256): the secret from $SHAMPOO_TICKET_SECRET or stdin. Writes FILE
      (default <data-dir>/credentials.json, mode 0600) and prints the host entry with a
      one-hour session token. Again with --credentials FILE alone: renews the session.
  shampoo inbound stage FILE [--db …] [caller]
      Stage inbound tasks and knowledge from a JSON document (FILE, or - for stdin) for review:
      inert until a conductor approves them (inbound_list, inbound_approve). Each item is
      validated as its creation tool would; one bad item stages nothing. The caller is the stager.
  shampoo --help | --version

Options:
  --db          SQLite file (default: ${defaultDb()}) or a postgres:// URL;
                postgres://…/db?schema=NAME keeps the tables in schema NAME (created if missing)
  --data-dir    where the default database lives (default: $SHAMPOO_DATA_DIR or ${dataDir()})
  --config      JSON: {"principals":[{"token":"…","principal":"alice","role":"agent",
                "grants":["shared-ops",""],"profile":"default"}]} — token 16..512 characters
                of A-Z a-z 0-9 - . _ ~ + /; profile optional (default "default"); unknown keys
                refuse the file. Keep it mode 0600. Over HTTP, registry session tokens from
                \`shampoo login\` are accepted too; an optional "oauth" section makes SHAMPOO an
                OAuth 2.1 resource server (issuer, audience, jwks|jwks_uri, subjects; see
                docs/shampoo-auth.md).
  --tools       the tools callers may use: comma-separated toolsets (tasks, graph, links,
                sessions, governance, reflection, debate,
                health, auth; all) or tool names; any other is an
                unknown tool. Without it a session starts with the everyday toolsets
                (tasks, graph, sessions: at most 40 tools, as hosts like Cursor need) and may
                turn on more with the list_toolsets / enable_toolset tools; with it, sessions
                see all of LIST (--tools all: every tool). Over HTTP the endpoint URL picks
                a session's toolsets too: /mcp?toolsets=tasks,links. A --config entry may
                carry its own "tools":[…]: that principal gets the tools both allow, never more.
  --port        HTTP port (0 picks a free one)
  --host        HTTP bind address (default 127.0.0.1)

Exit codes: 0 done, 1 failed (e.g. database unreachable), 2 usage or configuration error.
`;

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Options each command accepts (besides --help). */
const ACCEPTS: Record<string, string[]> = {
  serve: [
    "http",
    "port",
    "host",
    "db",
    "data-dir",
    "config",
    "insecure-local",
    "principal",
    "role",
    "grants",
    "profile",
    "tools",
    "trust-proxy",
  ],
  import: ["db", "data-dir", "project", "config", "principal", "role", "grants", "profile"],
  export: ["db", "data-dir", "project", "config", "principal", "role", "grants", "profile"],
  doctor: ["db", "data-dir", "sections", "detail", "json", "config", "principal", "role", "grants", "profile"],
  login: ["url", "ticket", "credentials", "profile", "data-dir"],
  inbound: ["db", "data-dir", "config", "principal", "role", "grants", "profile"],
};

/** Commands that take one positional argument. */
const POSITIONAL: Record<string, string> = { import: "FILE", inbound: "stage FILE" };

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

function dataDir(override?: string): string {
  return override ?? process.env.SHAMPOO_DATA_DIR ?? envPaths("shampoo", { suffix: "" }).data;
}

function defaultDb(dir?: string): string {
  return join(dataDir(dir), "shampoo.db");
}

class UsageError extends Error {}

type Values = ReturnType<typeof parse>["values"];

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    process.stderr.write(`shampoo: ${(e as Error).message}\n\n${HELP_TEXT}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const cmd = positionals[0];
  if (values.version) {
    process.stdout.write(`shampoo ${VERSION}\n`);
    return EXIT.ok;
  }
  if (values.help || !cmd) {
    process.stdout.write(HELP_TEXT);
    return cmd || values.help ? EXIT.ok : EXIT.usage;
  }
  const accepts = ACCEPTS[cmd];
  if (!accepts) {
    process.stderr.write(`shampoo: unknown command ${cmd}\n\n${HELP_TEXT}`);
    return EXIT.usage;
  }
  const wanted = 1 + (POSITIONAL[cmd]?.split(" ").length ?? 0);
  if (positionals.length > wanted) {
    process.stderr.write(`shampoo ${cmd}: unexpected argument ${positionals[wanted]} (see shampoo --help)\n`);
    return EXIT.usage;
  }
  if (positionals.length < wanted) {
    process.stderr.write(`shampoo ${cmd}: needs ${POSITIONAL[cmd]} (see shampoo --help)\n`);
    return EXIT.usage;
  }
  const stray = Object.keys(values).find((k) => k !== "help" && !accepts.includes(k));
  if (stray) {
    process.stderr.write(`shampoo ${cmd}: --${stray} does not apply here (see shampoo --help)\n`);
    return EXIT.usage;
  }
  try {
    if (cmd === "import" || cmd === "export") return await transfer(cmd, values, positionals[1]);
    if (cmd === "doctor") return await doctor(values);
    if (cmd === "login") return await loginCommand(values);
    if (cmd === "inbound") return await inbound(values, positionals[1], positionals[2] as string);
    return await serve(values);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`shampoo ${cmd}: ${e.message}\n`);
      return EXIT.usage;
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
      config: { type: "string" },
      "insecure-local": { type: "boolean" },
      principal: { type: "string" },
      role: { type: "string" },
      grants: { type: "string" },
      profile: { type: "string" },
      project: { type: "string" },
      tools: { type: "string" },
      "trust-proxy": { type: "string" },
      sections: { type: "string" },
      detail: { type: "string" },
      json: { type: "boolean" },
      url: { type: "string" },
      ticket: { type: "string" },
      credentials: { type: "string" },
    },
  });
}

/** `shampoo login` (domains/auth/login.ts): enrol with a ticket, or renew from the credentials file. */
async function loginCommand(values: Values): Promise<number> {
  const { login, loginBanner, LoginError } = await import("./domains/auth/login.ts");
  const credentials = values.credentials ?? join(dataDir(values["data-dir"]), "credentials.json");
  if (values.ticket === undefined && values.credentials === undefined && values.url !== undefined) {
    throw new UsageError("--url needs --ticket ID (enrol) or --credentials FILE (renew)");
  }
  try {
    if (values.credentials === undefined) mkdirSync(dataDir(values["data-dir"]), { recursive: true, mode: 0o700 });
    const c = await login({ url: values.url, ticket: values.ticket, profile: values.profile, credentials });
    process.stdout.write(loginBanner(c, credentials));
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof LoginError)) throw e;
    process.stderr.write(`shampoo login: ${e.message}\n`);
    return EXIT.failed;
  }
}

/** A one-line progress bar on stderr (redrawn in place on a terminal, a line per step otherwise). */
function progress(label: string): (done: number, total: number, phase: string) => void {
  let last = -1;
  const tty = process.stderr.isTTY === true;
  return (done, total, phase) => {
    const pct = total > 0 ? Math.floor((done * 100) / total) : 100;
    if (pct === last && done !== total) return;
    if (!tty && pct % 10 !== 0 && done !== total) return;
    last = pct;
    const width = 30;
    const fill = Math.round((pct / 100) * width);
    const bar = `${"#".repeat(fill)}${".".repeat(width - fill)}`;
    process.stderr.write(
      `${tty ? "\r" : ""}${label} [${bar}] ${String(pct).padStart(3)}% ${phase} ${done}/${total}${tty ? "" : "\n"}`,
    );
  };
}

async function transfer(cmd: "import" | "export", values: Values, file: string | undefined): Promise<number> {
  if (!values.project) throw new UsageError("--project P is required: import and export work on one project");
  const config = values.config === undefined ? undefined : loadConfig(values.config);
  const caller = callerFromFlags(
    { principal: values.principal, role: values.role, grants: values.grants, profile: values.profile },
    config,
  );
  let db = values.db;
  if (db === undefined) {
    const dir = dataDir(values["data-dir"]);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    db = join(dir, "shampoo.db");
  }
  const { openShampoo } = await import("./app.ts");
  const { systemClock, DomainError } = await import("kernel");
  const { importMemoryJsonl, exportMemoryJsonl, JsonlError } = await import("./domains/graph/service/jsonl.ts");
  const shampoo = await openShampoo({ db });
  const ctx = { caller, source: { tool: `cli.${cmd}` }, clock: systemClock, database: shampoo.database };
  try {
    if (cmd === "import") {
      const { createReadStream } = await import("node:fs");
      const { createInterface } = await import("node:readline");
      const bar = progress("import");
      const lines = createInterface({ input: createReadStream(file as string), crlfDelay: Number.POSITIVE_INFINITY });
      const report = await importMemoryJsonl(ctx, lines, {
        project: values.project,
        onProgress: (p) => bar(p.done, p.total, p.phase),
      });
      process.stderr.write("\n");
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      const bar = progress("export");
      const report = await exportMemoryJsonl(ctx, {
        project: values.project,
        write: (line) =>
          process.stdout.write(`${line}\n`)
            ? undefined
            : new Promise<void>((r) => process.stdout.once("drain", () => r())),
        onProgress: (p) => bar(p.done, p.total, p.phase),
      });
      process.stderr.write(`\nexported ${report.entities} entities and ${report.relations} relations\n`);
    }
    return EXIT.ok;
  } catch (e) {
    if (e instanceof JsonlError || e instanceof DomainError || (e as NodeJS.ErrnoException).code === "ENOENT") {
      process.stderr.write(`\nshampoo ${cmd}: ${(e as Error).message}\n`);
      return EXIT.failed;
    }
    throw e;
  } finally {
    await shampoo.close();
  }
}

/** `shampoo doctor` (domains/health/command.ts): the server wired on the database, never migrated. */
async function doctor(values: Values): Promise<number> {
  const config = values.config === undefined ? undefined : loadConfig(values.config);
  const flags = { principal: values.principal, role: values.role, grants: values.grants, profile: values.profile };
  const caller = callerFromFlags(flags, config);
  const db = values.db ?? defaultDb(values["data-dir"]);
  const { doctorCommand } = await import("./domains/health/command.ts");
  return doctorCommand({
    db,
    sections: values.sections,
    detail: values.detail,
    json: values.json === true,
    open: async () => {
      const { openDatabase } = await import("kernel");
      const { shampooOn } = await import("./app.ts");
      return shampooOn(await openDatabase(db), { resolveCaller: () => caller });
    },
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  });
}

/** `shampoo inbound stage FILE` (domains/inbound/cli.ts): the caller from the flags, like import. */
async function inbound(values: Values, sub: string | undefined, file: string): Promise<number> {
  if (sub !== "stage") throw new UsageError(`unknown inbound command ${sub}: inbound stage FILE`);
  const config = values.config === undefined ? undefined : loadConfig(values.config);
  const flags = { principal: values.principal, role: values.role, grants: values.grants, profile: values.profile };
  const caller = callerFromFlags(flags, config);
  const { openShampoo } = await import("./app.ts");
  const { inboundStageCommand } = await import("./domains/inbound/cli.ts");
  const shampoo = await openShampoo({ db: values.db ?? defaultDb(values["data-dir"]) });
  try {
    return await inboundStageCommand(shampoo, caller, file);
  } finally {
    await shampoo.close();
  }
}

/**
 * How callers are resolved, decided before anything opens:
 * - stdio: one caller for the whole process, from the flags or a --config entry (else local);
 * - HTTP with --config: per request, from its bearer token (authenticate → session.auth);
 * - HTTP with --insecure-local: no authentication, everyone is the command-line caller.
 */
type Access =
  | { kind: "stdio"; caller: Caller; config?: ShampooConfig }
  | { kind: "tokens"; config: ShampooConfig }
  | { kind: "insecure-local"; caller: Caller };

function decideAccess(values: Values): Access {
  const flags = { principal: values.principal, role: values.role, grants: values.grants, profile: values.profile };
  const config = values.config === undefined ? undefined : loadConfig(values.config);
  if (!values.http) {
    if (values["insecure-local"]) throw new UsageError("--insecure-local goes with --http (stdio needs no token)");
    if (values.port !== undefined || values.host !== undefined) throw new UsageError("--port and --host need --http");
    return { kind: "stdio", caller: callerFromFlags(flags, config), ...(config ? { config } : {}) };
  }
  if (config) {
    if (values["insecure-local"]) {
      throw new UsageError("--config and --insecure-local contradict each other: tokens, or no authentication");
    }
    if (hasCallerFlags(flags)) {
      throw new UsageError(
        "over HTTP with --config the caller of each request is its bearer token's principal; drop --principal/--role/--grants/--profile",
      );
    }
    return { kind: "tokens", config };
  }
  if (!values["insecure-local"]) {
    throw new UsageError(
      "--http needs --config FILE (bearer tokens per principal), or --insecure-local to let every local " +
        "connection act as the command-line caller without authentication",
    );
  }
  const host = values.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) {
    throw new UsageError(`--insecure-local serves loopback only; --host ${host} would open it to the network`);
  }
  return { kind: "insecure-local", caller: callerFromFlags(flags) };
}

/**
 * The tool profiles (platform/profiles.ts): `--tools` for the server, each --config entry's
 * "tools" for its principal (set on its caller). Over stdio the one caller's profile narrows the
 * server's; over HTTP the registry applies each request's caller's. Unknown words: usage error.
 * `startWith` is what a session sees when neither names its tools (platform/toolsets.ts).
 */
async function toolProfiles(
  values: Values,
  access: Access,
): Promise<{ tools: ReadonlySet<string> | undefined; startWith: ReadonlySet<string>; banner: string }> {
  const { MODULES } = await import("./modules.ts");
  const { intersect, parseProfile, ProfileError } = await import("./platform/profiles.ts");
  const { DEFAULT_TOOLSETS } = await import("./platform/toolsets.ts");
  try {
    const server = values.tools === undefined ? undefined : parseProfile([values.tools], MODULES);
    const config = access.kind === "insecure-local" ? undefined : access.config;
    for (const [i, p] of (config?.principals ?? []).entries()) {
      if (p.tools) p.caller.tools = parseProfile(p.tools, MODULES, `${config?.source}: principals[${i}].tools`);
    }
    const tools = access.kind === "tokens" ? server : intersect(server, access.caller.tools);
    const startWith = parseProfile([...DEFAULT_TOOLSETS], MODULES);
    const every = parseProfile(["all"], MODULES).size;
    const own =
      access.kind === "tokens" && config?.principals.some((p) => p.tools)
        ? `; a config entry's "tools" narrows its principal's`
        : "";
    // The banner says which toolsets are on and how to widen them.
    const banner =
      tools === undefined
        ? `tools: toolsets ${DEFAULT_TOOLSETS.join(", ")} on (${startWith.size} of ${every} tools); a session turns on more ` +
          `with enable_toolset; every tool from the start: --tools all${access.kind === "stdio" ? "" : " or /mcp?toolsets=all"}${own}`
        : `tools: ${values.tools ?? `the config entry's "tools"`} (${tools.size} of ${every} tools)${own}`;
    return { tools, startWith, banner };
  } catch (e) {
    if (e instanceof ProfileError) throw new UsageError(e.message);
    throw e;
  }
}

async function serve(values: Values): Promise<number> {
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (values.http && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  }
  const access = decideAccess(values);
  for (const w of (access.kind === "insecure-local" ? undefined : access.config)?.warnings ?? []) {
    serveLog.warn(w);
  }
  let db = values.db;
  if (db === undefined) {
    const dir = dataDir(values["data-dir"]);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    db = join(dir, "shampoo.db");
  }

  const { openShampoo, LIMITS } = await import("./app.ts");
  const { tools, startWith, banner } = await toolProfiles(values, access);
  const { serveHttp, serveStdio, TrustedProxies } = await import("kernel");
  let trustProxy: readonly string[] | undefined;
  if (values["trust-proxy"] !== undefined) {
    if (!values.http) throw new UsageError("--trust-proxy applies to --http only");
    try {
      trustProxy = TrustedProxies.parse(values["trust-proxy"]).entries;
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const resolveCaller =
    access.kind === "tokens"
      ? (session: SessionInfo): Caller => {
          // authenticate() put the caller there; a request without it never reaches a tool (401).
          const caller = session.auth?.extra?.caller as Caller | undefined;
          if (!caller) throw new Error("no authenticated caller on this request");
          return caller;
        }
      : () => access.caller;
  let shampoo: Awaited<ReturnType<typeof openShampoo>>;
  try {
    shampoo = await openShampoo({ db, resolveCaller, startWith, ...(tools ? { tools } : {}) });
  } catch (e) {
    serveLog.fatal(`cannot open ${db}: ${(e as Error).message}`);
    return EXIT.failed;
  }
  const location = shampoo.database.location;

  if (values.http) {
    const registry: Partial<Awaited<ReturnType<typeof import("./domains/auth/serve.ts").registryAccess>>> =
      access.kind === "tokens"
        ? await (await import("./domains/auth/serve.ts")).registryAccess(shampoo, access.config)
        : {};
    const http = await serveHttp({
      mcp: shampoo.mcp,
      host: values.host ?? "127.0.0.1",
      port,
      maxRequestBytes: LIMITS.maxRequestBytes,
      // Shared by every instance behind one endpoint, so any of them honours a 2025 session id.
      ...(process.env.SHAMPOO_SESSION_SECRET ? { sessionSecret: process.env.SHAMPOO_SESSION_SECRET } : {}),
      // Behind load balancers the per-address session limit counts the forwarded client (docs/deploy.md).
      ...(trustProxy ? { trustProxy } : {}),
      // With --config: the file's bearer tokens, and registry session tokens from `shampoo login`
      // (checked in the database on every request), plus the pre-authentication handshake routes.
      ...registry,
      // and POST /inbound/stage (domains/inbound/http.ts): staging over HTTP, the file's bearer tokens.
      routes: [
        registry.routes ?? [],
        (await import("./domains/inbound/http.ts")).inboundRoutes({
          database: shampoo.database,
          caller: (req) =>
            access.kind === "tokens"
              ? (authenticateBearer(access.config, req.headers.get("authorization") ?? undefined)?.caller ?? null)
              : access.caller,
          maxBytes: LIMITS.maxRequestBytes,
        }),
      ].flat(),
    });
    const who =
      access.kind === "tokens"
        ? `callers: ${access.config.principals.length} principal(s) from ${access.config.source}, by bearer token ` +
          `(${[...new Set(access.config.principals.map((p) => p.caller.principal))].join(", ")})`
        : `callers: NO AUTHENTICATION (--insecure-local): every connection is ${describeCaller(access.caller)}`;
    const entry =
      access.kind === "tokens"
        ? `{ "url": "${http.url}", "headers": { "Authorization": "Bearer <token>" } }`
        : `{ "url": "${http.url}" }`;
    process.stdout.write(
      `SHAMPOO listening\n` +
        `  MCP (Streamable HTTP): ${http.url}\n` +
        `  database: ${location}\n` +
        `  ${who}\n` +
        `  ${banner}\n` +
        `Connect an MCP host, e.g. add to its config (every tool: end the url with ?toolsets=all):\n` +
        `  { "mcpServers": { "shampoo": ${entry} } }\n` +
        `or launch over stdio (from any folder): ${stdioEntry()} (every tool: add "--tools", "all")\n`,
    );
    await waitForSignal();
    await http.close();
  } else {
    const caller = (access as Extract<Access, { kind: "stdio" }>).caller;
    // The message is the banner a person reads; the fields are for a log collector.
    serveLog.info(
      { database: location, principal: caller.principal, role: caller.role, profile: caller.profile },
      `serving MCP over stdio: database ${location}, caller ${describeCaller(caller)}; ${banner}`,
    );
    const s = await serveStdio(shampoo.mcp);
    await new Promise<void>((resolve) => {
      process.stdin.once("end", resolve);
      process.stdin.once("close", resolve);
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await s.close();
  }
  await shampoo.close();
  return EXIT.ok;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

/**
 * The stdio entry a host can paste: node and this installation's bin by absolute path, so it
 * runs from any folder (a bare `npx shampoo` outside this installation would fetch whatever the
 * registry holds under that name).
 */
export function stdioEntry(): string {
  const bin = fileURLToPath(new URL("../bin/shampoo.mjs", import.meta.url));
  return JSON.stringify({ command: process.execPath, args: [bin, "serve"] });
}
