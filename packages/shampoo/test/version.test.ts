import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SHAMPOO_VERSION } from "../src/version.ts";

describe("SHAMPOO_VERSION", () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(SHAMPOO_VERSION).toBe(pkg.version);
  });
});
