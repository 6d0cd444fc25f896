/**
 * Hostile arguments the limits check must refuse cheaply and quietly (issue 14 §6,
 * docs/storage.md "Faults"): 30,000 levels of nesting (before: a stack overflow in the recursive
 * walk, `internal_error`, and an 800-byte stack trace logged per request) and U+0000, which one
 * engine stores and the other cannot, refused alike everywhere.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkLimits, type Limits } from "../src/limits.ts";
import { directSession, type FakeCtx, makeFixture } from "./fixtures.ts";

const ROOMY: Limits = { maxRequestBytes: 10_000_000, maxJsonDepth: 16, maxArrayItems: 1000 };
/** 30,000 nested arrays, parsed the way a request body is. */
const deep = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

describe("checkLimits on 30,000 levels of nesting", () => {
  it("refuses as max_json_depth, naming the first level past the limit", () => {
    const v = checkLimits({ a: deep(30_000) }, ROOMY);
    expect(v?.limit).toBe("max_json_depth");
    expect(v?.message).toBe(`$.a${"[0]".repeat(15)} nests deeper than max_json_depth 16`);
  });

  it("refuses even when the caller measured the size (no JSON.stringify)", () => {
    expect(checkLimits(deep(30_000), ROOMY, 60_000)?.limit).toBe("max_json_depth");
  });
});

describe("checkLimits on U+0000", () => {
  it("refuses it in a value and in a key, naming the path; other control characters pass", () => {
    expect(checkLimits({ a: ["ok", "x\u0000y"] }, ROOMY)).toEqual({
      limit: "unicode",
      path: "$.a[1]",
      message: "$.a[1] contains U+0000 (NUL), which is not accepted",
    });
    expect(checkLimits({ o: { "k\u0000": 1 } }, ROOMY)).toEqual({
      limit: "unicode",
      message: "$.o has a key containing U+0000 (NUL), which is not accepted",
    });
    expect(checkLimits({ a: "tab\tand\u0001" }, ROOMY)).toBeNull();
  });
});

describe("the tool pipeline on hostile arguments", () => {
  let written: string[];
  let write: typeof process.stderr.write;
  beforeEach(() => {
    written = [];
    write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.stderr.write = write;
  });

  it("answers a limit refusal, runs nothing and logs nothing, request after request", async () => {
    const f = makeFixture({ limits: ROOMY });
    const ctx: FakeCtx = { session: directSession() };
    for (let i = 0; i < 20; i++) {
      const out = await f.registry.call("echo", { text: "hi", nested: deep(30_000) }, ctx);
      expect(out.isError).toBe(true);
    }
    expect(f.rejections).toHaveLength(20);
    expect(f.rejections.every((r) => r.kind === "limit" && r.violation.limit === "max_json_depth")).toBe(true);
    expect(f.calls.echo ?? 0).toBe(0);
    expect(f.internalErrors).toEqual([]);
    expect(written).toEqual([]);
  });
});
