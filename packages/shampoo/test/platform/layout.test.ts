import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MODULES } from "../../src/modules.ts";

/**
 * Every domain follows the one layout (src/platform/README.md §0): a newcomer finds any tool's
 * definition, rules, queries and tests in the same places, whichever domain they open.
 */
const DOMAINS = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/domains");

/** The names a domain's folder may hold: a layer is a file or a folder of the same name. */
const LAYERS = new Set([
  "README.md",
  "index.ts",
  "schema",
  "tools.ts",
  "tools",
  "inputs.gen.ts",
  "schemas",
  "service",
  "store",
  "rules",
  "model",
  "hooks",
  "fixtures",
  // a module's own surfaces beyond its tools, wired by src/cli.ts: a command, HTTP routes, a client
  "cli",
  "command",
  "http",
  "serve",
  "client",
  "login",
  "oauth",
  "crypto",
]);
const REQUIRED = ["README.md", "index.ts", "tools.ts", "tools", "inputs.gen.ts", "service", "model"];

const base = (name: string) => name.replace(/\.test\.ts$|\.ts$/, "");
const has = (dir: string, layer: string) => readdirSync(dir).some((n) => base(n) === layer || n === layer);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith(".ts") ? [p] : [];
  });
}

describe("the domain layout", () => {
  const domains = MODULES.filter((m) => m.tools.length > 0).map((m) => m.name);

  it("every module with tools is a folder under domains/ with the template's required layers", () => {
    const missing = domains.flatMap((d) =>
      existsSync(join(DOMAINS, d))
        ? REQUIRED.filter((l) => !has(join(DOMAINS, d), l)).map((l) => `${d}: ${l}`)
        : [`${d}: folder`],
    );
    expect(missing).toEqual([]);
  });

  it("a domain folder holds only the template's layers", () => {
    const strange = domains.flatMap((d) =>
      readdirSync(join(DOMAINS, d))
        .filter((n) => !LAYERS.has(n) && !LAYERS.has(base(n)))
        .map((n) => `${d}/${n}`),
    );
    expect(strange).toEqual([]);
  });

  it("no service or tool file tests the SQL dialect or opens a transaction (write()/read() and the engine adapter do)", () => {
    const offenders = domains.flatMap((d) =>
      ["service", "service.ts", "tools"]
        .map((l) => join(DOMAINS, d, l))
        .filter(existsSync)
        .flatMap((p) => (statSync(p).isDirectory() ? files(p) : [p]))
        .filter((f) => /dialect\s*[!=]==|\.transaction\(/.test(readFileSync(f, "utf8")))
        .map((f) => f.slice(DOMAINS.length + 1)),
    );
    expect(offenders).toEqual([]);
  });
});
