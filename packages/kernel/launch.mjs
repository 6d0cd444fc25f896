/**
 * What both bins do (packages/{scoreia,shampoo}/bin): run the product's bundled CLI,
 * dist/bundle/cli.js next to the bin's folder, built from src/ by `npm install` or `npm run build`
 * (scripts/build.mjs: esbuild, the product's code, the kernel's and its npm dependencies in a few
 * chunks; no TypeScript loader and no module-by-module resolution at start). Plain JavaScript,
 * not built itself, so that a missing build is a one-line message rather than a stack.
 */
export async function launch(binUrl) {
  const entry = new URL("../dist/bundle/cli.js", binUrl);
  let cli;
  try {
    cli = await import(entry.href);
  } catch (e) {
    if (e?.code !== "ERR_MODULE_NOT_FOUND" || !String(e.message).includes(entry.pathname)) throw e;
    process.stderr.write("not built: run `npm install` (or `npm run build`) in the repository first\n");
    process.exit(1);
  }
  process.exitCode = await cli.main(process.argv.slice(2));
}
