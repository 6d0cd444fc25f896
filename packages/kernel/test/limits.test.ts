import { describe, expect, it } from "vitest";
import { checkLimits, type Limits } from "../src/limits.ts";

const LIMITS: Limits = { maxRequestBytes: 100, maxJsonDepth: 3, maxArrayItems: 4 };
const roomy = (l: Partial<Limits>): Limits => ({ maxRequestBytes: 1e6, maxJsonDepth: 100, maxArrayItems: 1e4, ...l });

/** An object whose JSON serialization is exactly `n` bytes: {"s":"xxx…"} is 8 bytes + the x's. */
function ofBytes(n: number, fill = "x"): { s: string } {
  const v = { s: fill.repeat(Math.max(0, Math.floor((n - 8) / Buffer.byteLength(fill)))) };
  expect(Buffer.byteLength(JSON.stringify(v))).toBe(n);
  return v;
}

/** `levels` nested containers: {a:{a:{…{}}}}. */
function nestedObjects(levels: number): unknown {
  let v: unknown = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

function nestedArrays(levels: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
}

describe("checkLimits: max_request_bytes", () => {
  it("accepts a request of exactly max_request_bytes and refuses one byte more", () => {
    expect(checkLimits(ofBytes(100), LIMITS)).toBeNull();
    const v = checkLimits(ofBytes(101), LIMITS);
    expect(v?.limit).toBe("max_request_bytes");
    expect(v?.message).toContain("max_request_bytes");
    expect(v?.message).toContain("101 bytes");
    expect(v?.message).toContain("100");
  });

  it("counts UTF-8 bytes, not characters", () => {
    // 46 two-byte characters: 54 characters of JSON but 100 bytes.
    expect(checkLimits(ofBytes(100, "é"), LIMITS)).toBeNull();
    expect(checkLimits(ofBytes(102, "é"), LIMITS)?.limit).toBe("max_request_bytes");
  });

  it("uses the byte count the caller measured when given one", () => {
    expect(checkLimits({}, LIMITS, 100)).toBeNull();
    expect(checkLimits({}, LIMITS, 101)?.message).toContain("101 bytes");
  });

  it("is checked before the shape of the value", () => {
    const deepAndLong = { a: nestedObjects(10), b: Array.from({ length: 50 }, () => 1) };
    expect(checkLimits(deepAndLong, { ...LIMITS, maxRequestBytes: 10 })?.limit).toBe("max_request_bytes");
  });
});

describe("checkLimits: max_json_depth", () => {
  const limits = roomy({ maxJsonDepth: 3 });

  it("accepts containers nested exactly max_json_depth deep and refuses one more level", () => {
    expect(checkLimits(nestedObjects(3), limits)).toBeNull();
    const v = checkLimits(nestedObjects(4), limits);
    expect(v?.limit).toBe("max_json_depth");
    expect(v?.message).toContain("max_json_depth 3");
    expect(v?.message).toContain("$.a.a.a");
  });

  it("counts arrays as levels too and names the path with indices", () => {
    expect(checkLimits(nestedArrays(3), limits)).toBeNull();
    const v = checkLimits(nestedArrays(4), limits);
    expect(v?.limit).toBe("max_json_depth");
    expect(v?.message).toContain("$[0][0][0]");
  });

  it("does not count scalars as a level", () => {
    expect(checkLimits({ a: { b: { c: "leaf", d: 1, e: null, f: true } } }, limits)).toBeNull();
  });

  it("names the offending branch, not the first one", () => {
    const v = checkLimits({ ok: { fine: {} }, list: [1, { deep: { deeper: {} } }] }, limits);
    expect(v?.limit).toBe("max_json_depth");
    expect(v?.message).toContain("$.list[1].deep");
  });
});

describe("checkLimits: max_array_items", () => {
  const limits = roomy({ maxArrayItems: 4 });

  it("accepts an array of exactly max_array_items and refuses one more item", () => {
    expect(checkLimits({ items: [1, 2, 3, 4] }, limits)).toBeNull();
    const v = checkLimits({ items: [1, 2, 3, 4, 5] }, limits);
    expect(v?.limit).toBe("max_array_items");
    expect(v?.message).toContain("$.items");
    expect(v?.message).toContain("5 items");
    expect(v?.message).toContain("max_array_items is 4");
  });

  it("applies to every array, nested ones included, and to a top-level array", () => {
    expect(checkLimits({ a: [{ b: [1, 2, 3, 4, 5] }] }, limits)?.message).toContain("$.a[0].b");
    expect(checkLimits([1, 2, 3, 4, 5], limits)?.message).toContain("$ has 5 items");
  });
});

describe("checkLimits: ordinary values", () => {
  it("accepts scalars, null and undefined", () => {
    for (const v of [null, undefined, 0, "text", true]) expect(checkLimits(v, LIMITS)).toBeNull();
  });
});

describe("checkLimits: unicode", () => {
  it("refuses a lone surrogate in a value or a key, naming the path", () => {
    const limits = { maxRequestBytes: 65_536, maxJsonDepth: 8, maxArrayItems: 16 };
    expect(checkLimits({ a: ["ok", "x\uD800"] }, limits)).toMatchObject({
      limit: "unicode",
      message: expect.stringContaining("$.a[1]"),
    });
    expect(checkLimits({ "\uDC00": 1 }, limits)?.limit).toBe("unicode");
    expect(checkLimits({ a: "\u{1F600} well-formed pair" }, limits)).toBeNull();
  });
});
