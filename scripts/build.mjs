#!/usr/bin/env node
/**
 * `npm run build` (also run by `npm install` through `prepare`, and by vitest's global setup):
 * compiles each workspace package's `src/` to `dist/` file by file (what the packages' exports
 * name outside the source condition), then bundles each bin's CLI into `dist/bundle/` (below),
 * the JavaScript the bins run, so a start loads no TypeScript loader (issue 14 §2: `initialize`
 * took 1.6 s through tsx) and resolves no module graph of several hundred files.
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
 * deleted (dist/bundle/ aside). Non-TypeScript files under src/ (JSON, CSS, browser scripts) are
 * copied. Test files (`*.test.ts`) are not built.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
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
  const bundle = join(dist, "bundle") + sep;
  for (const file of walk(dist)) if (!wanted.has(file) && !file.startsWith(bundle)) orphans.push(file);
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

/**
 * What the bins run: each product's CLI bundled with esbuild into dist/bundle/ (cli.js plus the
 * chunks its dynamic imports load, ESM code splitting), its own sources, the kernel's and the
 * npm dependencies in a few files instead of several hundred modules to resolve and load at
 * every start. Bundled from the TypeScript sources (the "scoreia-shampoo-source" condition), not
 * from the per-file dist/ above, which stays for the packages' exports.
 *
 * Kept out of the bundle: native addons (better-sqlite3, loaded by path) and the optional
 * modules some dependencies try to require (pg-native).
 *
 * Files read at run time next to a source (`new URL("x.json", import.meta.url)`: the contract's
 * JSON, the public pages' CSS and scripts, package.json for --version) stay where they are: the
 * plugin below rewrites `import.meta.url` in our sources to the URL of the source file itself,
 * computed from the bundle chunk's own URL (every chunk sits in dist/bundle/, so the relative path
 * is fixed), and those reads resolve as they do from src/.
 *
 * Skipped when dist/bundle/meta.json (esbuild's list of inputs) is newer than every input, than
 * this script and than the lockfiles.
 */
const BINS = ["scoreia", "shampoo"];
const SOURCE_ROOT = join(ROOT, "packages");

/** `import.meta.url` in our own sources → the source file's URL, relative to the chunk. */
function sourceUrlPlugin(outdir) {
  return {
    name: "source-import-meta-url",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(SOURCE_ROOT + sep) || args.path.includes(`${sep}node_modules${sep}`))
          return undefined;
        const text = readFileSync(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const rel = relative(outdir, args.path).split(sep).join("/");
        return {
          contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`),
          loader: "ts",
        };
      });
    },
  };
}

function upToDate(outdir) {
  const meta = join(outdir, "meta.json");
  const built = mtime(meta);
  // npm unpacks dependencies with their tarballs' fixed mtimes (1985): an install or upgrade shows
  // only in the lockfiles npm rewrites.
  const also = [
    fileURLToPath(import.meta.url),
    join(ROOT, "package-lock.json"),
    join(ROOT, "node_modules/.package-lock.json"),
  ];
  if (built < 0 || also.some((file) => built < mtime(file))) return false;
  try {
    const { inputs } = JSON.parse(readFileSync(meta, "utf8"));
    return Object.keys(inputs).every((input) => {
      const m = mtime(join(ROOT, input));
      return m >= 0 && m < built;
    });
  } catch {
    return false;
  }
}

const stale = BINS.filter((pkg) => !upToDate(join(ROOT, "packages", pkg, "dist", "bundle")));
if (stale.length > 0) {
  const esbuild = await import("esbuild");
  for (const pkg of stale) {
    const outdir = join(ROOT, "packages", pkg, "dist", "bundle");
    rmSync(outdir, { recursive: true, force: true });
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { cli: join(ROOT, "packages", pkg, "src", "cli.ts") },
      outdir,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      conditions: ["scoreia-shampoo-source"],
      external: ["better-sqlite3", "pg-native"],
      // Bundled CommonJS dependencies call require() for Node's built-ins; ESM has none.
      banner: {
        js: 'import { createRequire as __bundleRequire } from "node:module";\nconst require = __bundleRequire(import.meta.url);',
      },
      plugins: [sourceUrlPlugin(outdir)],
      // Less source for V8 to scan at every start (importing the serve path: about a quarter less
      // CPU, measured); names are kept, so stack traces stay readable, and the linked source maps
      // map them back to src/ under `node --enable-source-maps`.
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: "linked",
      metafile: true,
      logLevel: "warning",
    });
    writeFileSync(join(outdir, "meta.json"), JSON.stringify(result.metafile));
  }
}
