import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fail, given, payloadType, SHAMPOO_ERRORS, shampooErrorSpec } from "../../src/platform/errors.ts";
import { formatRejection, type ShampooTool } from "../../src/tooling.ts";

/**
 * One error table (src/platform/errors.ts): every code a SHAMPOO source fails with is in it.
 * The typed `fail(code, …)` makes an unlisted code a compile error; this test also catches what
 * the compiler cannot: a DomainError built by hand elsewhere, or a code passed as a plain string.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? sources(join(dir, d.name))
      : d.name.endsWith(".ts") && !d.name.endsWith(".test.ts")
        ? [join(dir, d.name)]
        : [],
  );
}

describe("the error table", () => {
  it("no source builds a DomainError but platform/errors.ts", () => {
    const offenders = sources(SRC)
      .filter((f) => !f.endsWith("platform/errors.ts"))
      .filter((f) => /new DomainError\(/.test(readFileSync(f, "utf8")))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });

  it("every code literal given to fail() or invalid() is in the table", () => {
    const unlisted: string[] = [];
    for (const f of sources(SRC)) {
      const text = readFileSync(f, "utf8");
      for (const m of text.matchAll(/\bfail\(\s*"([^"]+)"/g)) {
        if (!Object.hasOwn(SHAMPOO_ERRORS, m[1] as string)) unlisted.push(`${relative(SRC, f)}: ${m[1]}`);
      }
      for (const m of text.matchAll(/\binvalid\([^;]*?,\s*"([a-z_-]+)"\)/g)) {
        if (!Object.hasOwn(SHAMPOO_ERRORS, m[1] as string)) unlisted.push(`${relative(SRC, f)}: ${m[1]}`);
      }
    }
    expect(unlisted).toEqual([]);
  });

  it("gives each code its spec and the catalog's error_type", () => {
    expect(shampooErrorSpec("invalid_state")).toEqual({ mcp: "result", http: 409, retryable: false });
    expect(shampooErrorSpec("database_busy").retryable).toBe(true);
    expect(payloadType("forbidden")).toBe("requires-conductor");
    expect(payloadType("scope_denied")).toBe("scope");
    expect(payloadType("invalid_sort")).toBe("invalid_sort");
    const e = fail("invalid_mode", "Invalid mode", { valid_modes: ["ready"] });
    expect([e.code, e.message, e.extra]).toEqual([
      "invalid_mode",
      "Invalid mode",
      { error_type: "validation", valid_modes: ["ready"] },
    ]);
  });

  it("one blank-means-absent rule: empty, whitespace, null and undefined are absent", () => {
    expect([given(""), given("  \t"), given(null), given(undefined), given(3)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(given(" x ")).toBe(" x ");
  });
});

describe("error payloads (tooling.ts formatRejection)", () => {
  const format = (e: ReturnType<typeof fail>) =>
    formatRejection({} as ShampooTool, { kind: "error", error: e }).structuredContent as Record<string, unknown>;

  it("never repeat their type as a prefix of the message, and keep their fields", () => {
    expect(format(fail("invalid_argument", "invalid_argument: limit must be at least 1"))).toEqual({
      error: "limit must be at least 1",
      error_type: "invalid_argument",
    });
    expect(format(fail("invalid_argument", "unknown_decision_filter: use accept, reject or defer"))).toEqual({
      error: "unknown_decision_filter: use accept, reject or defer",
      error_type: "invalid_argument",
    });
    expect(format(fail("invalid_mode", "Invalid mode", { valid_modes: ["ready"] }))).toEqual({
      error: "Invalid mode",
      error_type: "validation",
      valid_modes: ["ready"],
    });
  });
});
