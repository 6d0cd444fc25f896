#!/usr/bin/env node
/**
 * `npm run inspect -- TARGET [inspector options]`: the MCP Inspector CLI (a devDependency) against
 * one of the two products, from any folder:
 *
 *   npm run inspect -- scoreia --method tools/list                 # launches scoreia over stdio
 *   npm run inspect -- shampoo --method tools/call --tool-name find_by_title --tool-arg title_fragment=x
 *   npm run inspect -- http://127.0.0.1:8421/mcp --transport http --header "Authorization: Bearer …" --method tools/list
 *
 * TARGET `scoreia` or `shampoo` launches that product's bin (node, absolute path, `serve`) over
 * stdio; anything else is passed to the Inspector as is (a URL). Why a wrapper: inspector-cli
 * 1.0.3 reads "../package.json" relative to the working directory and crashes anywhere but its
 * own build/ folder, so `npx @modelcontextprotocol/inspector-cli` fails as usually typed.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const pkgJson = require.resolve("@modelcontextprotocol/inspector-cli/package.json");
const pkg = JSON.parse(readFileSync(pkgJson, "utf8"));
const cli = join(dirname(pkgJson), Object.values(pkg.bin)[0]);

const [target, ...rest] = process.argv.slice(2);
if (!target || target === "--help") {
  process.stderr.write("usage: npm run inspect -- scoreia|shampoo|URL [inspector options, e.g. --method tools/list]\n");
  process.exit(target ? 0 : 2);
}
const products = { scoreia: "packages/scoreia/bin/scoreia.mjs", shampoo: "packages/shampoo/bin/shampoo.mjs" };
const server = Object.hasOwn(products, target) ? [process.execPath, join(ROOT, products[target]), "serve"] : [target];
const child = spawn(process.execPath, [cli, "--cli", ...server, ...rest], {
  cwd: dirname(cli),
  stdio: "inherit",
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
