import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runBin } from "./support.ts";

const VERSION = JSON.parse(readFileSync(join(ROOT, "packages/shampoo/package.json"), "utf8")).version as string;

describe("shampoo --version (the built bin)", () => {
  it("prints the package's version on stdout and exits 0, also after a command and as -V", async () => {
    for (const args of [["--version"], ["-V"], ["serve", "--version"]]) {
      const r = await runBin(args);
      expect(r).toEqual({ code: 0, out: `shampoo ${VERSION}\n`, err: "" });
    }
  });
});
