import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Rules of the repository's layout (issue 22, "One template"), read from the sources:
 * - no source file under packages/<package>/src is over MAX_LINES lines (tests, JSON and
 *   Markdown aside);
 * - ScoreIA's services and tools never open a transaction nor test the dialect: they write
 *   through attempts/write.ts (the kernel's `transact`, with the engine adapter at hand) and ask
 *   the engine (kernel/src/store/engine.ts). Only its store files, which hold the SQL that differs
 *   per engine, may.
 */

const ROOT = join(import.meta.dirname, "..", "..", "..");
const MAX_LINES = 600;

/** Files allowed over the limit: none. A file that outgrows it is split by responsibility. */
const OVER_LIMIT_FOR_NOW = new Set<string>([]);

/** ScoreIA's files that may test the dialect or open a transaction: its store and write path. */
const SCOREIA_STORE_FILES = new Set([
  "packages/scoreia/src/attempts/schema.ts", // migrations: DDL that differs per engine
  "packages/scoreia/src/attempts/store.ts", // the attempt number: a sequence on PostgreSQL
  "packages/scoreia/src/attempts/write.ts", // the one write path (kernel transact)
]);

/** What a service or a tool must not contain: a dialect test, or a transaction of its own. */
const FORBIDDEN: Array<{ pattern: RegExp; what: string }> = [
  { pattern: /\bdialect\s*[!=]==?/, what: "tests the dialect" },
  { pattern: /[!=]==?\s*[\w.]*\bdialect\b/, what: "tests the dialect" },
  { pattern: /\.transaction\(/, what: "opens a transaction (.transaction)" },
  { pattern: /\btransact\(/, what: "opens a transaction (transact)" },
  { pattern: /\bsnapshot\(/, what: "opens a read transaction (snapshot)" },
  { pattern: /\.read\(\s*(async\s*)?\(/, what: "opens a read transaction (.read)" },
];

/** Every file under `dir`, as paths relative to the repository root ("/" separated). */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) => {
    const path = `${dir}/${d.name}`;
    if (d.isDirectory()) return d.name === "node_modules" ? [] : filesUnder(path);
    return [path];
  });
}

const isTest = (path: string) => /\.test\.[cm]?[jt]s$/.test(path);

function sourcesOf(pkg: string): string[] {
  return filesUnder(`packages/${pkg}/src`).filter((p) => !isTest(p) && !/\.(json|md)$/.test(p));
}

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

const PACKAGES = readdirSync(join(ROOT, "packages"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe("source files", () => {
  it(`every source file under packages/*/src has at most ${MAX_LINES} lines`, () => {
    const sources = PACKAGES.flatMap(sourcesOf);
    expect(sources.length).toBeGreaterThan(100);
    const lines = new Map(sources.map((p) => [p, lineCount(readFileSync(join(ROOT, p), "utf8"))]));
    const over = [...lines]
      .filter(([p, n]) => n > MAX_LINES && !OVER_LIMIT_FOR_NOW.has(p))
      .map(([p, n]) => `${p}: ${n}`);
    expect(over, "split these by responsibility").toEqual([]);
    const stale = [...OVER_LIMIT_FOR_NOW].filter((p) => (lines.get(p) ?? 0) <= MAX_LINES);
    expect(stale, `no longer over ${MAX_LINES} lines (or gone): remove from OVER_LIMIT_FOR_NOW`).toEqual([]);
  });

  it("counts lines as wc -l does", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("a\n\nb\n")).toBe(3);
  });
});

describe("ScoreIA writes through its write path and asks the engine adapter", () => {
  it("no service or tool file tests the dialect or opens a transaction", () => {
    const files = sourcesOf("scoreia").filter((p) => p.endsWith(".ts") && !SCOREIA_STORE_FILES.has(p));
    expect(files.length).toBeGreaterThan(30);
    const found: string[] = [];
    for (const path of files) {
      for (const [i, line] of readFileSync(join(ROOT, path), "utf8").split("\n").entries()) {
        for (const { pattern, what } of FORBIDDEN) {
          if (pattern.test(line)) found.push(`${path}:${i + 1} ${what}: ${line.trim()}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("the patterns catch what they are for, and not the engine adapter's use", () => {
    const caught = (line: string) => FORBIDDEN.some(({ pattern }) => pattern.test(line));
    expect(caught(`const q = this.database.dialect === "postgres" ? a : b;`)).toBe(true);
    expect(caught(`if (dialect !== "sqlite") return;`)).toBe(true);
    expect(caught(`if ("postgres" === db.dialect) return;`)).toBe(true);
    expect(caught("await this.database.transaction(async (trx) => {")).toBe(true);
    expect(caught("return transact(database, (trx, engine) => fn({ trx, engine }));")).toBe(true);
    expect(caught("return database.read(async (db) => count(db));")).toBe(true);
    expect(caught("const row = await core.load(trx, handle, engine);")).toBe(false);
    expect(caught('const q = engine.forUpdate(trx.selectFrom("t"));')).toBe(false);
    expect(caught("await write(core.database, async ({ trx, engine }) => {")).toBe(false);
    // Every source file of the package is read, the store files too (they are only excused).
    for (const p of SCOREIA_STORE_FILES) expect(sourcesOf("scoreia")).toContain(p);
  });
});
