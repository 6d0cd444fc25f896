/**
 * Shared helpers for the benchmarks under bench/: a timed loop with warmup, latency samples and
 * percentiles, machine info, tables, and the result writer (bench/results/<name>-<date>.json and
 * <name>-latest.md). A benchmark is a module exporting a `Benchmark`; bench/run.ts dispatches.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type Kysely, sql } from "kernel";

export interface Benchmark {
  name: string;
  description: string;
  /** argv: the options after the benchmark names (e.g. ["--duration", "3"]). */
  run(argv: string[]): Promise<void>;
}

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const RESULTS_DIR = join(BENCH_DIR, "results");

// ---------------------------------------------------------------- time

export const now = (): number => performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Growable buffer of latencies in milliseconds. */
export class Samples {
  private buf = new Float64Array(1024);
  private n = 0;

  add(ms: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = ms;
  }

  get count(): number {
    return this.n;
  }

  merge(other: Samples): void {
    for (const v of other.values()) this.add(v);
  }

  values(): Float64Array {
    return this.buf.subarray(0, this.n);
  }

  summary(): LatencySummary {
    return summarize(this.values());
  }
}

export interface LatencySummary {
  count: number;
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** Nearest-rank percentile (p in 0..100) of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean_ms: sorted.length ? sum / sorted.length : Number.NaN,
    p50_ms: percentile(sorted, 50),
    p95_ms: percentile(sorted, 95),
    p99_ms: percentile(sorted, 99),
    max_ms: sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN,
  };
}

export interface LoopOptions {
  warmupMs: number;
  measureMs: number;
  /** Independent workers running the iteration back to back. */
  concurrency: number;
}

export interface LoopResult {
  /** Iterations completed inside the measured window. */
  iterations: number;
  elapsedMs: number;
  perSecond: number;
  /**
   * Process CPU time (user + system, all threads) spent in the measured window. On a shared
   * machine wall time includes waiting for a core; CPU time per iteration does not, so
   * 1000 / (cpuMs / iterations) is what one core would sustain with this process alone.
   */
  cpuMs: number;
}

/**
 * Runs `iterate` back to back on `concurrency` workers: a warmup, then a measured window.
 * `iterate(measuring, worker)` is told whether its iteration started inside the window, so it records
 * latencies only then. Iterations started in the window and finishing after it are waited for
 * and counted; the elapsed time runs until the last of them, so the rate stays honest.
 */
export async function timedLoop(
  opts: LoopOptions,
  iterate: (measuring: boolean, worker: number) => Promise<void>,
): Promise<LoopResult> {
  let phase: "warmup" | "measure" | "stop" = "warmup";
  let iterations = 0;
  const start = now();
  let t0 = start;
  let cpu0 = process.cpuUsage();
  const worker = async (_: unknown, w: number) => {
    while (phase !== "stop") {
      const measuring = phase === "measure";
      await iterate(measuring, w);
      if (measuring) iterations++;
      const t = now();
      if (phase === "warmup" && t - start >= opts.warmupMs) {
        phase = "measure";
        t0 = t;
        cpu0 = process.cpuUsage();
      } else if (phase === "measure" && t - t0 >= opts.measureMs) {
        phase = "stop";
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { iterations, elapsedMs, perSecond: (iterations * 1000) / elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// ---------------------------------------------------------------- machine

export interface MachineInfo {
  cpu_model: string;
  cpu_cores: number;
  cpu_mhz: number;
  arch: string;
  platform: string;
  os_release: string;
  total_memory_gb: number;
  load_avg_1m: number;
  node: string;
  v8: string;
  git_commit: string | null;
  git_dirty: boolean | null;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  const git = (...args: string[]): string | null => {
    try {
      return execFileSync("git", args, {
        cwd: BENCH_DIR,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch {
      return null;
    }
  };
  const status = git("status", "--porcelain");
  return {
    cpu_model: cpus[0]?.model.trim() ?? "unknown",
    cpu_cores: cpus.length,
    cpu_mhz: cpus[0]?.speed ?? 0,
    arch: process.arch,
    platform: process.platform,
    os_release: os.release(),
    total_memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    load_avg_1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    node: process.version,
    v8: process.versions.v8,
    git_commit: git("rev-parse", "--short=12", "HEAD"),
    git_dirty: status === null ? null : status.length > 0,
  };
}

export function machineLine(m: MachineInfo): string {
  const git = m.git_commit ? `, git ${m.git_commit}${m.git_dirty ? "+dirty" : ""}` : "";
  return `${m.cpu_model} (${m.cpu_cores} cores, ${m.arch}), ${m.total_memory_gb} GB, Node ${m.node}, ${m.platform} ${m.os_release}${git}`;
}

// ---------------------------------------------------------------- output

/** A GitHub-flavoured markdown table; also readable as plain text on a terminal. */
export function markdownTable(
  headers: string[],
  rows: Array<Array<string | number>>,
  align?: Array<"l" | "r">,
): string {
  const cells = rows.map((r) => r.map(String));
  const width = headers.map((h, i) => Math.max(h.length, 3, ...cells.map((r) => (r[i] ?? "").length)));
  const right = (i: number) => (align?.[i] ?? "l") === "r";
  const pad = (s: string, i: number) => (right(i) ? s.padStart(width[i] ?? 0) : s.padEnd(width[i] ?? 0));
  const line = (r: string[]) => `| ${r.map(pad).join(" | ")} |`;
  const rule = `|${width.map((w, i) => (right(i) ? `${"-".repeat(w + 1)}:` : `${"-".repeat(w + 2)}`)).join("|")}|`;
  return [line(headers), rule, ...cells.map(line)].join("\n");
}

export function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "-";
}

/** UTC date, YYYY-MM-DD. */
export function dateStamp(d = new Date()): string {
  return d.toISOString().slice(0, 10);
}

/** Writes bench/results/<name>-<date>.json and <name>-latest.md; returns the paths (relative to cwd). */
export function writeResults(name: string, json: unknown, markdown: string): { json: string; markdown: string } {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const jsonPath = join(RESULTS_DIR, `${name}-${dateStamp()}.json`);
  const mdPath = join(RESULTS_DIR, `${name}-latest.md`);
  writeFileSync(jsonPath, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(mdPath, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return { json: relative(process.cwd(), jsonPath), markdown: relative(process.cwd(), mdPath) };
}

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

// ---------------------------------------------------------------- cleanup

const cleanups = new Set<() => Promise<void>>();

/**
 * Registers a cleanup (temp files, PostgreSQL schemas) that also runs on Ctrl-C. Returns the
 * cleanup, wrapped to run at most once and to unregister itself.
 */
export function onCleanup(fn: () => Promise<void>): () => Promise<void> {
  let done = false;
  const once = async () => {
    if (done) return;
    done = true;
    cleanups.delete(once);
    await fn();
  };
  cleanups.add(once);
  return once;
}

let interrupted = false;
process.once("SIGINT", () => {
  if (interrupted) return;
  interrupted = true;
  process.stderr.write("\ninterrupted: cleaning up\n");
  Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
});

// ---------------------------------------------------------------- options

/** A comma-separated option value restricted to `allowed`; absent or "all" means `fallback`. */
export function listOption<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  fallback: readonly T[],
): T[] {
  if (!value || value === "all") return [...fallback];
  const items = value.split(",").map((s) => s.trim()) as T[];
  for (const i of items)
    if (!allowed.includes(i)) throw new Error(`unknown value ${i}; expected ${allowed.join(", ")}`);
  return items;
}

// ---------------------------------------------------------------- bulk seeding

/**
 * `url` with the kernel's PostgreSQL statement timeout raised to 10 minutes (kernel/store/faults.ts
 * reads it from the URL): building the GIN indexes of a seeded 100,000-entity graph takes longer
 * than the 30 s a request may. Timeouts change no measured figure.
 */
export function seedingPgUrl(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("statement_timeout")) u.searchParams.set("statement_timeout", "600000");
  return u.toString();
}

// biome-ignore lint/suspicious/noExplicitAny: the helpers seed any of the products' tables
type AnyDb = Kysely<any>;

/** Bound parameters per INSERT: under SQLite's 32,766 and PostgreSQL's 65,535. */
const PARAMS_PER_STATEMENT = 30_000;

/**
 * Inserts `rows` (one shape, every row with the same columns) into `table` as multi-row INSERTs
 * of as many rows as the parameter budget allows. Run it inside a transaction: on SQLite one
 * transaction per batch of statements is what makes loading fast.
 */
export async function bulkInsert(
  db: AnyDb,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] as object).length;
  const per = Math.max(1, Math.floor(PARAMS_PER_STATEMENT / columns));
  for (let i = 0; i < rows.length; i += per) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + per) as Record<string, unknown>[])
      .execute();
  }
}

/**
 * Runs `load` with the secondary indexes of `tables` dropped, then builds them again (and
 * refreshes the planner statistics): building an index once over loaded rows is far cheaper
 * than keeping it ordered row by row (GIN indexes above all). Indexes that back a primary key or
 * a constraint stay. On SQLite the triggers that feed an external-content FTS5 table of one of
 * `tables` are dropped too, and the FTS5 table is rebuilt from its content afterwards; other
 * triggers (counters) keep running. A unique index the load violated fails to build, so a bad
 * seed is never measured silently.
 */
export async function withIndexesDeferred(
  db: AnyDb,
  dialect: "sqlite" | "postgres",
  tables: readonly string[],
  load: () => Promise<void>,
): Promise<void> {
  const indexes =
    dialect === "sqlite"
      ? (
          await sql<{ name: string; def: string }>`
            SELECT name, sql AS def FROM sqlite_master
            WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${sql.join([...tables])})`.execute(db)
        ).rows
      : (
          await sql<{ name: string; def: string }>`
            SELECT ci.relname AS name, pg_get_indexdef(i.indexrelid) AS def
            FROM pg_index i
            JOIN pg_class ci ON ci.oid = i.indexrelid
            JOIN pg_class ct ON ct.oid = i.indrelid
            JOIN pg_namespace n ON n.oid = ct.relnamespace
            WHERE n.nspname = current_schema() AND ct.relname IN (${sql.join([...tables])})
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`.execute(db)
        ).rows;
  // SQLite: FTS5 tables indexing one of `tables` (content='<table>'), and the triggers feeding them.
  const fts: string[] = [];
  let triggers: { name: string; def: string }[] = [];
  if (dialect === "sqlite") {
    const all = (
      await sql<{ type: string; name: string; tbl_name: string; def: string }>`
        SELECT type, name, tbl_name, sql AS def FROM sqlite_master
        WHERE type IN ('table', 'trigger') AND sql IS NOT NULL`.execute(db)
    ).rows;
    for (const t of all) {
      const m = /^CREATE VIRTUAL TABLE\s+(\S+)\s+USING\s+fts5\(.*content='([^']+)'/is.exec(t.def);
      if (t.type === "table" && m && tables.includes(m[2] as string)) fts.push(m[1] as string);
    }
    triggers = all.filter(
      (t) =>
        t.type === "trigger" &&
        tables.includes(t.tbl_name) &&
        [...t.def.matchAll(/INSERT INTO\s+(\w+)\s*\(/gi)].every((m) => fts.includes(m[1] as string)),
    );
  }
  for (const ix of indexes) await sql`DROP INDEX ${sql.id(ix.name)}`.execute(db);
  for (const t of triggers) await sql`DROP TRIGGER ${sql.id(t.name)}`.execute(db);
  try {
    await load();
  } finally {
    await db.transaction().execute(async (trx) => {
      if (dialect === "postgres") await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(trx);
      for (const ix of indexes) await sql.raw(ix.def).execute(trx);
      for (const t of triggers) await sql.raw(t.def).execute(trx);
      for (const f of fts) await sql`INSERT INTO ${sql.id(f)}(${sql.id(f)}) VALUES ('rebuild')`.execute(trx);
    });
  }
  // Only these tables: a bare ANALYZE on PostgreSQL would visit every schema of the database.
  if (dialect === "postgres") await sql`ANALYZE ${sql.join(tables.map((t) => sql.id(t)))}`.execute(db);
  else await sql`PRAGMA optimize`.execute(db);
}
