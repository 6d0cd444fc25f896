#!/usr/bin/env node
/**
 * `npm start`: both products over Streamable HTTP, each in its own process.
 *
 *   ScoreIA Open Chamber   scoreia serve --http --port 8420   (accountless: no token)
 *   SHAMPOO                shampoo serve --http --port 8421 --config <local config>
 *
 * SHAMPOO holds an agent's memory, so its HTTP door is never open without a token, even locally
 * (any local user or process can reach 127.0.0.1). On first start this writes a config with one
 * principal, "local" (conductor, every project and the untagged enclave: what stdio gets), and a
 * random bearer token to <shampoo data dir>/local-http.json (mode 0600), and prints the header
 * to use. SHAMPOO_CONFIG=FILE uses your own config instead.
 *
 * Env: SCOREIA_PORT (8420), SHAMPOO_PORT (8421), SCOREIA_DATA_DIR, SHAMPOO_DATA_DIR, SHAMPOO_CONFIG.
 * Prints both endpoints once both listen; SIGINT/SIGTERM stop both; when either exits, the other
 * is stopped and this exits (non-zero unless it was asked to stop).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import envPaths from "env-paths";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SCOREIA_PORT = process.env.SCOREIA_PORT ?? "8420";
const SHAMPOO_PORT = process.env.SHAMPOO_PORT ?? "8421";
const URL_LINE = /MCP \(Streamable HTTP\): (http:\/\/\S+)/;
/** The last line of both servers' startup banners. */
const BANNER_END = /^or launch over stdio:/;
let announced = false;

/** The generated local config: created once, reused after (so the token stays the same). */
function localConfig() {
  const dir = process.env.SHAMPOO_DATA_DIR ?? envPaths("shampoo", { suffix: "" }).data;
  const file = join(dir, "local-http.json");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const doc = JSON.parse(readFileSync(file, "utf8"));
    const local = doc.principals?.find((p) => p.principal === "local");
    return { file, token: local?.token };
  } catch (e) {
    if (e.code !== "ENOENT") throw new Error(`cannot read ${file}: ${e.message} (fix it or delete it)`);
  }
  const token = randomBytes(32).toString("base64url");
  const doc = { principals: [{ token, principal: "local", role: "conductor", grants: ["*", ""], profile: "default" }] };
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return { file, token, created: true };
}

let config;
try {
  config = process.env.SHAMPOO_CONFIG ? { file: process.env.SHAMPOO_CONFIG } : localConfig();
} catch (e) {
  process.stderr.write(`npm start: ${e.message}\n`);
  process.exit(1);
}

const products = [
  {
    name: "scoreia",
    title: "ScoreIA Open Chamber",
    args: [join(ROOT, "packages/scoreia/bin/scoreia.mjs"), "serve", "--http", "--port", SCOREIA_PORT],
  },
  {
    name: "shampoo",
    title: "SHAMPOO",
    args: [
      join(ROOT, "packages/shampoo/bin/shampoo.mjs"),
      "serve",
      "--http",
      "--port",
      SHAMPOO_PORT,
      "--config",
      config.file,
    ],
  },
];

let stopping = false;
let exitCode = 0;

for (const p of products) {
  // Same process group as this one (a terminal's Ctrl-C reaches them too); stdin ignored.
  p.child = spawn(process.execPath, p.args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  p.exited = new Promise((resolve) => p.child.once("exit", (code, signal) => resolve({ code, signal })));
  const prefix = (stream, out) => {
    let buf = "";
    stream.on("data", (chunk) => {
      buf += chunk.toString("utf8");
      let nl = buf.indexOf("\n");
      while (nl !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        out.write(`[${p.name}] ${line}\n`);
        const m = URL_LINE.exec(line);
        if (m && !p.url) {
          p.url = m[1];
          // The summary goes after each banner's last line; a short wait covers a changed banner.
          setTimeout(() => {
            p.ready = true;
            announce();
          }, 1000).unref();
        }
        if (p.url && BANNER_END.test(line)) {
          p.ready = true;
          announce();
        }
        nl = buf.indexOf("\n");
      }
    });
  };
  prefix(p.child.stdout, process.stdout);
  prefix(p.child.stderr, process.stderr);
  p.exited.then(({ code, signal }) => {
    if (!stopping) {
      process.stderr.write(`npm start: ${p.name} exited (${signal ?? `code ${code}`}); stopping the other server\n`);
      exitCode = code || 1;
      stop();
    }
  });
}

function announce() {
  if (announced || !products.every((p) => p.ready)) return;
  announced = true;
  const [scoreia, shampoo] = products;
  const auth = config.token
    ? `Authorization: Bearer ${config.token}`
    : `Authorization: Bearer <a token from ${config.file}>`;
  process.stdout.write(
    `\nBoth servers are up (Ctrl-C stops both):\n` +
      `  ${scoreia.title.padEnd(22)} ${scoreia.url}   (no account, no token; public registry at ${new URL("/", scoreia.url)})\n` +
      `  ${shampoo.title.padEnd(22)} ${shampoo.url}   (bearer token from ${config.file}${config.created ? ", created now" : ""})\n` +
      `MCP host config:\n` +
      `  { "mcpServers": {\n` +
      `      "scoreia": { "url": "${scoreia.url}" },\n` +
      `      "shampoo": { "url": "${shampoo.url}", "headers": { "${auth.replace(": ", '": "')}" } } } }\n` +
      `SHAMPOO lists its everyday toolsets (tasks, graph, sessions: at most 40 tools, as hosts like Cursor need);\n` +
      `every tool: end its url with ?toolsets=all, or let the agent call enable_toolset during a session.\n`,
  );
}

function stop() {
  stopping = true;
  for (const p of products) {
    // SIGTERM, never a second SIGINT: a terminal's Ctrl-C has already sent them one, and both
    // servers stop gracefully on either signal.
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
  }
  const force = setTimeout(() => {
    for (const p of products) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  }, 5000);
  force.unref();
  Promise.all(products.map((p) => p.exited)).then(() => process.exit(exitCode));
}

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    if (!stopping) stop();
  });
}
