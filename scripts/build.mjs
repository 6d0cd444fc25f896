#!/usr/bin/env node
/**
 * `npm run build` (also run by `npm install` through `prepare`, and by vitest's global setup):
 * compiles each workspace package's `src/` to `dist/`, the JavaScript the bins run, so a start
 * loads no TypeScript loader (issue 14 §2: `initialize` took 1.6 s through tsx).
 *
 * Emission only, file by file, with TypeScript's own emitter (`ts.transpileModule`: the output of
 * `tsc` under `isolatedModules`, which tsconfig.json enforces) and the repository's compiler
 * options; `rewriteRelativeImportExtensions` turns `./x.ts` imports into `./x.js`, and package
 * imports (`kernel/clock.ts`) reach dist/ through the packages' conditional exports. Types are
 * checked by `npm run typecheck` (tsc --noEmit on the sources), not here: one `tsc` program per
 * package spent 40–50 s parsing declaration files on this (loaded) machine; this takes a few
 * seconds, most of it loading TypeScript, which is skipped when nothing changed.
 *
 * A file whose output is newer than its source is skipped; outputs whose source is gone are
 * deleted. Non-TypeScript files under src/ (JSON, CSS, browser scripts) are copied. Test files
 * (`*.test.ts`) are not built.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = ["kernel", "scoreia", "shampoo"];

function* walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if (e.code === "ENOENT") return;
    throw e;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** Sources newer than their outputs, and outputs no source produces any more. */
const compile = [];
const orphans = [];
for (const pkg of PACKAGES) {
  const src = join(ROOT, "packages", pkg, "src");
  const dist = join(ROOT, "packages", pkg, "dist");
  const wanted = new Set();
  for (const file of walk(src)) {
    const rel = relative(src, file);
    if (rel.endsWith(".test.ts")) continue;
    const isTs = rel.endsWith(".ts") && !rel.endsWith(".d.ts");
    const out = join(dist, isTs ? rel.replace(/\.ts$/, ".js") : rel);
    wanted.add(out);
    if (mtime(out) < mtime(file)) compile.push({ file, out, isTs });
  }
  for (const file of walk(dist)) if (!wanted.has(file)) orphans.push(file);
}
for (const file of orphans) rmSync(file);

let failed = 0;
if (compile.length > 0) {
  const { default: ts } = await import("typescript");
  const { options } = ts.parseJsonConfigFileContent(
    ts.readConfigFile(join(ROOT, "tsconfig.json"), ts.sys.readFile).config,
    ts.sys,
    ROOT,
  );
  // Every package is "type": "module"; transpileModule reads no package.json, so under NodeNext
  // it would guess CommonJS. ESNext keeps import/export as written.
  const compilerOptions = {
    ...options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: false,
    rewriteRelativeImportExtensions: true,
  };
  for (const { file, out, isTs } of compile) {
    mkdirSync(dirname(out), { recursive: true });
    if (!isTs) {
      copyFileSync(file, out);
      continue;
    }
    const result = ts.transpileModule(readFileSync(file, "utf8"), {
      compilerOptions,
      fileName: file,
      reportDiagnostics: true,
    });
    for (const d of result.diagnostics ?? []) {
      failed++;
      process.stderr.write(`build: ${relative(ROOT, file)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}\n`);
    }
    writeFileSync(out, result.outputText);
  }
}
if (failed > 0) {
  process.stderr.write(`build: ${failed} error(s)\n`);
  process.exit(1);
}
