import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { canonicalJson, sha256Tagged } from "../contract/index.ts";

/**
 * The room generator a secret generation names in its manifest (docs/evidence-0.2.md §14.1): the
 * package and version, and a hash of the suites' source, so that whoever re-grades a revealed
 * generation (§14.5) knows whether the code at hand is the code that built its rooms.
 *
 * source_hash = Hc([{path, sha256}, …]) over every `.ts` file under packages/scoreia/src/suites/
 * except tests (`*.test.ts`) and this file, `path` relative to that folder with `/`, `sha256` the
 * lowercase hex SHA-256 of the file's bytes, the list sorted by path (UTF-16 code units).
 *
 * SOURCE_HASH is a constant, so the built bundle (which has no source files) carries it; the test
 * beside this file recomputes it and fails when a suite file changed without it. Changing it
 * starts a new generation on the next start of a server (secrets.ts).
 */
export const PACKAGE = "scoreia@0.1.0";
export const SOURCE_HASH = "sha256:26be0655814f17611e235229d1670684d8cef791083a4ceeacf42a1202a6e3dd";

export interface Generator {
  package: string;
  source_hash: string;
}

export const GENERATOR: Generator = { package: PACKAGE, source_hash: SOURCE_HASH };

/** The files that count, as {path, sha256}, sorted. */
export function suiteSources(dir: string): Array<{ path: string; sha256: string }> {
  const out: Array<{ path: string; sha256: string }> = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && full !== join(dir, "generator.ts")) {
        const path = relative(dir, full).split(sep).join("/");
        out.push({ path, sha256: createHash("sha256").update(readFileSync(full)).digest("hex") });
      }
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** SOURCE_HASH recomputed from the files in `dir` (packages/scoreia/src/suites). */
export function suiteSourceHash(dir: string): string {
  return sha256Tagged(canonicalJson(suiteSources(dir)));
}
