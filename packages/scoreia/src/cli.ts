import { createRequire } from "node:module";
import { dataDir, defaultDb, EXIT, IoError, parse, UsageError, type Values } from "./cli/common.ts";
import { CURRENT_TOOLSET } from "./contract/index.ts";

export { EXIT } from "./cli/common.ts";

/** This package's version (package.json sits next to src/ and dist/ alike). */
const VERSION: string = createRequire(import.meta.url)("../package.json").version;

// The dispatcher: each command is a file of cli/, loaded when it runs. The MCP server, the HTTP
// transport and the database drivers load only in the commands that use them (import("kernel"),
// import("../app.ts")): verify, keys and signer start in a fraction of the time.

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
  scoreia verify CARD_ID|FILE [--server URL] [--head FILE] [--keys FILE] [--json] [--db …]
      Verify a card here and print one line: valid / invalid / unknown key /
      unsigned historical / pending signature (--json: the whole verification result).
      FILE      a proof bundle (GET /proofs/{id}.json) or a historical card JSON
      CARD_ID   with --server URL: fetches URL/proofs/{id}.json and the server's keys
                (/.well-known/scoreia-keys.json) and verifies here; the server's own
                verdict is never used. Without --server: the card in the local database.
      Step 10 (consistency): the proof's log must be a prefix of the server's current log
      (--server URL, also for a FILE) or of a pinned head (--head FILE: a saved
      /log/tree-head.json, or {"tree_head":…,"consistency":[…]}). Offline, without either,
      a valid line says "log consistency NOT checked": a backdated card with a forged
      one-leaf log passes every other step.
      Trusted keys: --keys FILE ({"keys":[…]}), else the server's key document (--server),
      the local database's published keys (CARD_ID) or the local keyring (FILE).
  scoreia verify --all --server URL [--json]
      Verify every card of a registry: one line per card, then on stderr the counts and the
      per-card cost against a raw Ed25519 verify timed in the same run. Keys and the current
      tree head are fetched once. Exit 1 if any card is invalid, else 3 if a key is unknown, else 0.
  scoreia import-historical FILE [--db …]
      Import historical 0.1 / oly-16 cards (a JSON array, or JSON Lines) unsigned; cards
      already present are skipped. Any invalid card refuses the whole file (nothing imported).
  scoreia reveal SUITE GENERATION [--db …] [--data-dir DIR]
      Retire a suite generation and publish its room secret and the openings re-grading reads
      (GET /suites/SUITE/GENERATION/reveal.json): anyone can then rebuild its rooms and re-grade.
  scoreia regrade REVEAL [PROOF…] [--server URL] [--json]
      Re-grade every card of a revealed generation offline (docs/evidence-0.2.md §14.5):
      REVEAL is a reveal document (a file, or its URL …/suites/S/G/reveal.json); PROOF files
      are proof bundles; without them every card the reveal names is fetched from --server
      (default: the reveal URL's origin). Exit 0 every card agrees, 1 one disagrees,
      7 unusable input (a malformed reveal or proof, a wrong secret, another generation's card,
      suite code other than the one the generation names: re-grade with that code, §14.6).
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

type Command = (values: Values, args: string[]) => Promise<number>;

/**
 * Each command: the options it accepts (besides --help), and its file under cli/, loaded only
 * when it runs (the bundle splits them into chunks: `serve` never loads the verifier).
 */
const COMMANDS: Record<string, { accepts: string[]; load: () => Promise<Command> }> = {
  serve: {
    accepts: ["http", "port", "host", "db", "data-dir", "signer", "public-origin", "admission", "trust-proxy"],
    load: async () => (await import("./cli/serve.ts")).serve,
  },
  signer: { accepts: ["socket", "data-dir"], load: async () => (await import("./cli/signer.ts")).signer },
  keys: { accepts: ["data-dir"], load: async () => (await import("./cli/keys.ts")).keys },
  verify: {
    accepts: ["server", "keys", "head", "all", "json", "db", "data-dir"],
    load: async () => (await import("./cli/verify.ts")).verify,
  },
  "import-historical": {
    accepts: ["db", "data-dir"],
    load: async () => (await import("./cli/import-historical.ts")).importHistorical,
  },
  quarantine: {
    accepts: ["reason", "db", "data-dir", "signer"],
    load: async () => (await import("./cli/quarantine.ts")).quarantine,
  },
  reveal: { accepts: ["db", "data-dir"], load: async () => (await import("./cli/reveal.ts")).reveal },
  regrade: { accepts: ["server", "json"], load: async () => (await import("./cli/regrade.ts")).regrade },
};

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
  const command = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!command) {
    process.stderr.write(`scoreia: unknown command ${cmd}\n\n${HELP}`);
    return EXIT.usage;
  }
  const stray = Object.keys(values).find((k) => k !== "help" && !command.accepts.includes(k));
  if (stray) {
    process.stderr.write(`scoreia ${cmd}: --${stray} does not apply here (see scoreia --help)\n`);
    return EXIT.usage;
  }
  try {
    const run = await command.load();
    return await run(values, positionals.slice(1));
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
