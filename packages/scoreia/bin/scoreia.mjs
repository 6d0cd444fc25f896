#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (built from src/ by `npm install` or `npm run build`):
// no TypeScript loader at start.
let cli;
try {
  cli = await import("../dist/cli.js");
} catch (e) {
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || !String(e.message).includes("dist/cli.js")) throw e;
  process.stderr.write("not built: run `npm install` (or `npm run build`) in the repository first\n");
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
