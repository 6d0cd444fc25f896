/**
 * Runs writer.ts in a child process, kills it with SIGKILL at a seeded random moment after it
 * reports "ready", and does that again and again on the same database.
 *
 * The writer is TypeScript; it is bundled once per test file with esbuild into one .mjs, as the
 * bins are (scripts/build.mjs → dist/bundle/), because starting it under tsx costs ~1.3 s per
 * start on this machine (tsx's resolver hooks over kysely's and the SDK's hundreds of modules) and
 * 50 restarts would not fit the test's time bound. The bundle is the same source; only the
 * native drivers stay external.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
// esbuild: the repository's bundler (a pinned devDependency; scripts/build.mjs bundles the bins).
import { build } from "esbuild";
import { rng } from "kernel/rng.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

export interface Bundle {
  file: string;
  remove(): void;
}

export async function bundleWriter(): Promise<Bundle> {
  // Inside the repo's node_modules, so the external drivers resolve from the bundle's location.
  const cache = join(HERE, "../../../../node_modules/.cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "shampoo-crash-"));
  const file = join(dir, "writer.mjs");
  await build({
    entryPoints: [join(HERE, "writer.ts")],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Native drivers (and pg's optional native binding) load from node_modules as usual.
    external: ["better-sqlite3", "pg", "pg-native"],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "error",
  });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CrashRun {
  /** ms between "ready" and SIGKILL. */
  delayMs: number;
  acks: number;
  /** More calls started than acknowledged: the kill landed inside a call (in or around its transaction). */
  killedInCall: boolean;
}

export interface CrashSummary {
  runs: CrashRun[];
  /** Every "ack <tool> <id>" line read from every run. */
  acked: Array<{ tool: string; id: string }>;
  elapsedMs: number;
}

/**
 * `runs` times: start the writer, let it open the database, sleep a seeded 20–200 ms, SIGKILL it,
 * wait for the exit. Each writer is spawned while the previous one still runs and waits for "go"
 * before opening the database, so only module loading overlaps: the database is always opened
 * (migrations checked, registry built) after the previous writer died, as a restart would.
 * A writer that exits by itself (a refused call, a crash on start) fails the loop.
 */
/** Writers alive now, so a timed-out test can still kill them (vitest does not cancel the loop). */
const LIVE = new Set<Writer>();
let aborted = false;

/** Kills every live writer and stops any loop still running (afterAll; never leaves orphans). */
export function stopAllWriters(): void {
  aborted = true;
  for (const w of LIVE) w.abandon();
}

export async function crashLoop(opts: {
  bundle: string;
  target: string;
  runs: number;
  seed: number;
  minDelayMs?: number;
  maxDelayMs?: number;
}): Promise<CrashSummary> {
  const random = rng(opts.seed);
  const min = opts.minDelayMs ?? 20;
  const max = opts.maxDelayMs ?? 200;
  const runs: CrashRun[] = [];
  const acked: CrashSummary["acked"] = [];
  const t0 = performance.now();
  const spawnWriter = (i: number) => new Writer(opts.bundle, opts.target, opts.seed * 1000 + i, i);
  aborted = false;
  let next: Writer | null = spawnWriter(0);
  try {
    for (let i = 0; i < opts.runs; i++) {
      if (aborted) throw new Error(`crash loop stopped after ${i} runs`);
      const w = next as Writer;
      const delayMs = Math.round(min + random() * (max - min));
      await w.until("loaded");
      w.go();
      await w.until("ready");
      next = i + 1 < opts.runs ? spawnWriter(i + 1) : null;
      await new Promise((r) => setTimeout(r, delayMs));
      const out = await w.kill();
      let acks = 0;
      let calls = 0;
      for (const line of out.split("\n")) {
        if (line.startsWith("call ")) calls++;
        const m = /^ack (\S+) (\S+)$/.exec(line);
        if (m) {
          acked.push({ tool: m[1] as string, id: m[2] as string });
          acks++;
        }
      }
      runs.push({ delayMs, acks, killedInCall: calls > acks });
    }
  } finally {
    next?.abandon();
  }
  return { runs, acked, elapsedMs: performance.now() - t0 };
}

/** One writer process: waits for its protocol lines, is told to go, is killed. */
class Writer {
  private readonly child: ChildProcess;
  private out = "";
  private err = "";
  private killed = false;
  private readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly waiters: Array<() => void> = [];

  constructor(
    bundle: string,
    target: string,
    seed: number,
    readonly run: number,
  ) {
    this.child = spawn(process.execPath, [bundle, target, String(seed)], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout?.on("data", (c: Buffer) => {
      this.out += c.toString("utf8");
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr?.on("data", (c: Buffer) => {
      this.err += c.toString("utf8");
    });
    LIVE.add(this);
    this.closed = new Promise((resolve) =>
      this.child.once("close", (code, signal) => {
        LIVE.delete(this);
        resolve({ code, signal });
      }),
    );
    void this.closed.then(() => {
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves once `line` was printed; rejects if the writer exits first or takes over 15 s. */
  async until(line: string): Promise<void> {
    const re = new RegExp(`^${line}$`, "m");
    const deadline = Date.now() + 15_000;
    while (!re.test(this.out)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(
          `run ${this.run}: writer exited before "${line}" (code ${this.child.exitCode})\nstderr: ${this.err}`,
        );
      }
      if (Date.now() > deadline) {
        this.abandon();
        throw new Error(`run ${this.run}: no "${line}" within 15 s\nstderr: ${this.err}`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }

  go(): void {
    this.child.stdin?.write("go\n");
  }

  /** SIGKILL; resolves with everything it printed. Fails if it had already exited by itself. */
  async kill(): Promise<string> {
    if (this.child.exitCode !== null) {
      throw new Error(`run ${this.run}: writer exited by itself (code ${this.child.exitCode})\nstderr: ${this.err}`);
    }
    this.killed = true;
    this.child.kill("SIGKILL");
    const { signal } = await this.closed;
    if (signal !== "SIGKILL") throw new Error(`run ${this.run}: writer ended with ${signal}\nstderr: ${this.err}`);
    return this.out;
  }

  abandon(): void {
    if (!this.killed) this.child.kill("SIGKILL");
  }
}

/** How many events the acknowledged calls account for: each create, update or assign writes one. */
export function ackedIds(summary: CrashSummary, tool: string): Set<string> {
  return new Set(summary.acked.filter((a) => a.tool === tool).map((a) => a.id));
}
