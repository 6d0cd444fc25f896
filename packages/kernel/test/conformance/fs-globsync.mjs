/**
 * `node --import <this file> …` preload: gives `fs` a `globSync` export on Node < 22.
 *
 * @modelcontextprotocol/conformance's CLI does `import { globSync } from "fs"` (Node 22+). An
 * ESM namespace of a builtin has a fixed set of names, so assigning `fs.globSync` and calling
 * `module.syncBuiltinESMExports()` is not enough: the name must exist at link time. Instead a
 * resolve hook (module.register, off-thread) sends every `fs` / `node:fs` import to
 * ./fs-with-globsync.mjs, which re-exports the whole builtin plus `globSync`.
 * On a Node that already has `fs.globSync` this preload does nothing.
 */
import fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") {
  register("./fs-globsync-hooks.mjs", import.meta.url);
}
