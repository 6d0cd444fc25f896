import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { run } from "./support.ts";

const VERSION = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version as string;

describe("scoreia --version (the built bin)", () => {
  it("prints the package's version on stdout and exits 0, also after a command and as -V", async () => {
    for (const args of [["--version"], ["-V"], ["verify", "--version"]]) {
      expect(await run(args)).toEqual({ code: 0, stdout: `scoreia ${VERSION}\n`, stderr: "" });
    }
  });
});
