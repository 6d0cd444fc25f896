import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CanonicalizationError, canonicalJson } from "./jcs.ts";

const DIR = new URL("../../../../../shared/testdata/jcs/", import.meta.url);
const names = readdirSync(new URL("input/", DIR)).filter((f) => f.endsWith(".json"));

describe("RFC 8785 canonical JSON", () => {
  it("has the vectors", () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  it.each(names)("matches the RFC 8785 vector %s byte for byte", (name) => {
    const input = JSON.parse(readFileSync(new URL(`input/${name}`, DIR), "utf8"));
    const expected = readFileSync(new URL(`output/${name}`, DIR));
    const hex = readFileSync(new URL(`outhex/${name.replace(/\.json$/, ".txt")}`, DIR), "utf8").replace(/\s+/g, "");
    const out = Buffer.from(canonicalJson(input), "utf8");
    expect(out.equals(expected)).toBe(true);
    expect(out.toString("hex")).toBe(hex.toLowerCase());
  });

  it.each([
    ["a lone high surrogate", { a: "x\uD800" }],
    ["a lone low surrogate in a key", { "\uDC00": 1 }],
    ["NaN", [Number.NaN]],
    ["Infinity", { n: Number.POSITIVE_INFINITY }],
    ["undefined", { u: undefined }],
    ["a function", { f: () => 1 }],
    ["a bigint", { b: 10n }],
    ["a symbol", [Symbol("s")]],
    ["a Date", { d: new Date(0) }],
    ["a Map", new Map()],
  ])("refuses %s", (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalizationError);
  });

  it("names where the refused value is", () => {
    expect(() => canonicalJson({ a: [1, { b: "x\uD800" }] })).toThrow("$.a[1].b: string has a lone surrogate");
    expect(() => canonicalJson({ a: { "k\uDC00": 1 } })).toThrow("$.a: key has a lone surrogate");
    expect(() => canonicalJson({ a: [0, undefined] })).toThrow("$.a[1]: undefined is not a JSON value");
    expect(() => canonicalJson({ n: [Number.NaN] })).toThrow("$.n[0]: number NaN is not finite");
  });

  it("keeps well-formed surrogate pairs and sorts keys by UTF-16 code units", () => {
    expect(canonicalJson({ "\u{1F600}": 1, "\uFB33": 2, a: 3 })).toBe('{"a":3,"\u{1F600}":1,"\uFB33":2}');
  });
});
