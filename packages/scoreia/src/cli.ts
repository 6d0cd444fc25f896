import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import envPaths from "env-paths";
import { serveHttp, serveStdio } from "kernel";
import { openChamber } from "./app.ts";
import { CURRENT_TOOLSET } from "./contract/index.ts";
import { LocalKeyring } from "./evidence/signer.ts";

const HELP = `scoreia — ScoreIA Open Chamber (MCP toolset ${CURRENT_TOOLSET.toolset_id})

Usage:
  scoreia serve [--http] [--port N] [--host ADDR] [--db PATH|postgres://…]
      Serve the Chamber over MCP. stdio by default (for an MCP host to launch);
      --http serves Streamable HTTP at http://127.0.0.1:N/mcp (default port 8420).
  scoreia quarantine HANDLE --reason TEXT [--db …]
      Set an attempt aside for review (it still seals, to a quarantined card).
  scoreia --help

Options:
  --db        SQLite file (default: ${defaultDb()}) or a postgres:// URL;
              postgres://…/db?schema=NAME keeps the tables in schema NAME (created if missing)
  --data-dir  where the default database and the signing key live
  --port      HTTP port (0 picks a free one)
  --host      HTTP bind address (default 127.0.0.1)
`;

function dataDir(override?: string): string {
  return override ?? process.env.SCOREIA_DATA_DIR ?? envPaths("scoreia", { suffix: "" }).data;
}

function defaultDb(dir?: string): string {
  return join(dataDir(dir), "chamber.db");
}

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    process.stderr.write(`scoreia: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const cmd = positionals[0];
  if (values.help || !cmd) {
    process.stdout.write(HELP);
    return cmd || values.help ? 0 : 2;
  }
  const dir = dataDir(values["data-dir"]);
  mkdirSync(dir, { recursive: true });
  const db = values.db ?? defaultDb(dir);
  const signer = LocalKeyring.open(join(dir, "keys"));

  if (cmd === "serve") {
    const chamber = await openChamber({ db, signer });
    if (values.http) {
      const port = values.port === undefined ? 8420 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write(`scoreia: --port must be 0..65535, got ${values.port}\n`);
        return 2;
      }
      const http = await serveHttp({
        mcp: chamber.mcp,
        host: values.host ?? "127.0.0.1",
        port,
        maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
      });
      process.stdout.write(
        `ScoreIA Open Chamber (${CURRENT_TOOLSET.toolset_id}) listening\n` +
          `  MCP (Streamable HTTP): ${http.url}\n` +
          `  database: ${chamber.database.location}\n` +
          `  signing key: ${signer.currentKeyId}\n` +
          `Connect an MCP host, e.g. add to its config:\n` +
          `  { "mcpServers": { "scoreia": { "url": "${http.url}" } } }\n` +
          `or launch over stdio: { "command": "npx", "args": ["scoreia", "serve"] }\n`,
      );
      await waitForSignal();
      await http.close();
    } else {
      process.stderr.write(`scoreia: serving MCP over stdio; database ${chamber.database.location}\n`);
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
  if (cmd === "quarantine") {
    const handle = positionals[1];
    if (!handle || !values.reason) {
      process.stderr.write("scoreia quarantine: needs HANDLE and --reason TEXT\n");
      return 2;
    }
    const chamber = await openChamber({ db, signer });
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
  process.stderr.write(`scoreia: unknown command ${cmd}\n\n${HELP}`);
  return 2;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: "boolean", short: "h" },
      http: { type: "boolean" },
      port: { type: "string" },
      host: { type: "string" },
      db: { type: "string" },
      "data-dir": { type: "string" },
      reason: { type: "string" },
    },
  });
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}
