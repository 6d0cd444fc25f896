import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PACKAGE, SOURCE_HASH, suiteSourceHash, suiteSources } from "./generator.ts";

const dir = fileURLToPath(new URL(".", import.meta.url));

describe("the room generator a secret generation names (docs/evidence-0.2.md §14.1)", () => {
  it("SOURCE_HASH is the hash of the suites' source as it is: a changed suite file needs a new constant", () => {
    const files = suiteSources(dir).map((f) => f.path);
    expect(files).toContain("chrono/room.ts");
    expect(files).toContain("atelier/generate.ts");
    expect(files).toContain("secrets.ts");
    expect(files.some((f) => f.endsWith(".test.ts") || f === "generator.ts")).toBe(false);
    // On failure: set SOURCE_HASH in src/suites/generator.ts to the received value. Servers then
    // begin a new secret generation on their next start (the rooms' code changed, §14.1).
    expect(suiteSourceHash(dir)).toBe(SOURCE_HASH);
  });

  it("PACKAGE names this package and its version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(PACKAGE).toBe(`${pkg.name}@${pkg.version}`);
  });
});
