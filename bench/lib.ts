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
