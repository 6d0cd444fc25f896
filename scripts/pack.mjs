#!/usr/bin/env node
/**
 * `npm run pack`: each product as an installable npm tarball, in dist-pack/ at the repository
 * root (or the folder given as the first argument):
 *
 *   npm install /path/to/shampoo-0.1.0.tgz      # in any folder, even an empty one
 *   npx shampoo serve
 *
 * A tarball holds what the bin runs and nothing else: bin/<product>.mjs (self-contained: it
 * needs no `kernel` package, which would otherwise be fetched by name from the registry — and
 * "kernel" there is someone else's code), the esbuild bundle dist/bundle/ (the product's code,
 * the kernel's and the pure-JavaScript dependencies, built by scripts/build.mjs), and the files
 * the bundle reads next to its sources at run time (src/ paths, see build.mjs: scoreia's
 * contract JSON and page assets), plus package.json. Its one dependency is the native driver,
 * better-sqlite3, at the version the repository pins; npm installs it as usual.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** The run-time files of each product besides its bundle: what its sources read from src/. */
const PRODUCTS = {
  shampoo: { description: "SHAMPOO: shared, durable memory and coordination for agents, over MCP", files: [] },
  scoreia: {
    description: "ScoreIA Open Chamber: a public MCP trial room for AI agents, with signed public cards",
    files: ["src/contract", "src/http/assets"],
  },
};

/** The bin of a packed product: the launcher of packages/kernel/launch.mjs, inlined. */
function binSource(product) {
  const launch = readFileSync(join(ROOT, "packages/kernel/launch.mjs"), "utf8").replace(
    /^export async function launch/m,
    "async function launch",
  );
  return `#!/usr/bin/env node\n// ${product}'s bin in its npm tarball (scripts/pack.mjs): the repository's launcher, inlined.\n${launch}\nawait launch(import.meta.url);\n`;
}

export function pack(outDir) {
  execFileSync(process.execPath, [join(ROOT, "scripts/build.mjs")], { stdio: "inherit" });
  mkdirSync(outDir, { recursive: true });
  const made = [];
  for (const [product, spec] of Object.entries(PRODUCTS)) {
    const pkgDir = join(ROOT, "packages", product);
    const own = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    const stage = mkdtempSync(join(tmpdir(), `pack-${product}-`));
    try {
      mkdirSync(join(stage, "bin"));
      writeFileSync(join(stage, "bin", `${product}.mjs`), binSource(product), { mode: 0o755 });
      cpSync(join(pkgDir, "dist/bundle"), join(stage, "dist/bundle"), {
        recursive: true,
        filter: (src) => !src.endsWith("meta.json"),
      });
      for (const f of spec.files) cpSync(join(pkgDir, f), join(stage, f), { recursive: true });
      const manifest = {
        name: product,
        version: own.version,
        description: spec.description,
        type: "module",
        license: "UNLICENSED",
        bin: { [product]: `./bin/${product}.mjs` },
        engines: root.engines,
        dependencies: { "better-sqlite3": root.dependencies["better-sqlite3"] },
      };
      writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
      const out = execFileSync("npm", ["pack", "--json", "--pack-destination", outDir], {
        cwd: stage,
        encoding: "utf8",
      });
      const [{ filename }] = JSON.parse(out);
      made.push(join(outDir, filename));
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  return made;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? join(ROOT, "dist-pack"));
  for (const f of pack(outDir)) console.log(f);
  console.log(
    `install with: npm install ${readdirSync(outDir)
      .map((f) => join(outDir, f))
      .join(" ")}`,
  );
}
