import { readdirSync, readFileSync } from "node:fs";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import { CanonicalizationError, canonicalJson } from "./jcs.ts";

const DIR = new URL("../../../../testdata/jcs/", import.meta.url);
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

  it("writes the same bytes as the reference implementation on 3000 random values, awkward keys included", () => {
    // Keys JavaScript enumerates out of insertion order (array indices), one an assignment would
    // not create ("__proto__"), surrogate pairs, and keys whose UTF-16 order differs from code points.
    const KEYS = [
      "a",
      "b",
      "10",
      "9",
      "0",
      "01",
      "4294967295",
      "__proto__",
      "constructor",
      "",
      "é",
      "\u{1F600}",
      "\uFB33",
      "-1",
      "1.5",
    ];
    const STRINGS = ["", "x", "line\nbreak", 'quo"te', "\u0000\u001f", "\u2028", "\u{1F600}", "é", "\\"];
    const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 2 ** 53, 123456789.123, -1.5e-10];
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T>(xs: T[]): T => xs[rnd(xs.length)] as T;
    const gen = (depth: number): unknown => {
      switch (rnd(depth > 3 ? 4 : 7)) {
        case 0:
          return pick(STRINGS);
        case 1:
          return rnd(2) ? pick(NUMBERS) : (rnd(2000000) - 1000000) / (1 + rnd(1000));
        case 2:
          return rnd(3) === 0 ? null : rnd(2) === 0;
        case 3:
          return `s${rnd(1000)}`;
        case 4:
        case 5: {
          const o = {};
          for (let i = rnd(6); i > 0; i--) {
            // defineProperty: "__proto__" becomes an own member, as JSON.parse would make it.
            Object.defineProperty(o, pick(KEYS), {
              value: gen(depth + 1),
              enumerable: true,
              writable: true,
              configurable: true,
            });
          }
          return o;
        }
        default:
          return Array.from({ length: rnd(5) }, () => gen(depth + 1));
      }
    };
    let awkward = 0;
    for (let i = 0; i < 3000; i++) {
      const v = gen(0);
      const text = JSON.stringify(v) ?? "";
      if (/"(?:\d+|__proto__)":/.test(text)) awkward++;
      expect(canonicalJson(v), text).toBe(canonicalize(v));
    }
    expect(awkward).toBeGreaterThan(300);
  });
});
