/**
 * Lease torture: 16 worker processes claim and complete many jobs on one database while the test
 * freezes workers (SIGSTOP) for longer than the lease, lets them go (SIGCONT) mid-job, and kills
 * some (SIGKILL) and starts replacements. Every job must end completed exactly once (one
 * `complete` history event), every accepted completion must carry the fence the job was completed
 * under (no fenced-out completion accepted), attempts stay within 5, and nothing stays claimed.
 * The workers are bundled once with esbuild (as the crash tests are): starting 20 processes
 * under tsx would cost more than the run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { type DialectName, openDatabase } from "kernel";
import { dropPgSchema, pgUrlWithSchema } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCaller } from "../../src/access/caller.ts";
import { openShampoo } from "../../src/app.ts";
import type { ShampooDB } from "../../src/store/schema.ts";

// 200 by default: about a minute per engine on a loaded 2-core box; TORTURE_JOBS=2000 for more.
const JOBS = Number(process.env.TORTURE_JOBS ?? 200);
const WORKERS = 16;
const LEASE_S = 1;
const PROJECT = "torture";

let bundle: string;
let bundleDir: string;
beforeAll(async () => {
  const cache = join(import.meta.dirname, "../../../../node_modules/.cache");
  mkdirSync(cache, { recursive: true });
  bundleDir = mkdtempSync(join(cache, "shampoo-torture-"));
  bundle = join(bundleDir, "worker.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "torture-worker.ts")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["better-sqlite3", "pg", "pg-native"],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "error",
  });
}, 60_000);
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<void>;
}

function startWorker(target: string, i: number): Worker {
  const child = spawn(process.execPath, [bundle, target, `w${i}`, PROJECT, String(LEASE_S)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let rest = "";
  child.stdout?.on("data", (b: Buffer) => {
    const parts = (rest + b.toString()).split("\n");
    rest = parts.pop() ?? "";
    lines.push(...parts);
  });
  child.stderr?.on("data", () => {});
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return { child, lines, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each<DialectName>(["sqlite", "postgres"])("lease torture on %s", (dialect) => {
  it(`${WORKERS} worker processes, ${JOBS} jobs, SIGSTOP past the lease, SIGKILLs: each job completed once`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "shampoo-torture-"));
    const schema = `torture_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const target = dialect === "sqlite" ? join(dir, "t.db") : pgUrlWithSchema(schema);
    const started = Date.now();
    try {
      // The jobs, created by a conductor through the tool (clock: real time, as the workers').
      const conductor = makeCaller({ principal: "cora", role: "conductor", profile: "default", grants: [PROJECT] });
      const s = await openShampoo({ db: target, resolveCaller: () => conductor });
      const ctx = s.mcp.context({
        sessionId: "c",
        transport: "memory",
        clientInfo: () => undefined,
        log: async () => {},
      });
      for (let i = 0; i < JOBS; i++) {
        const r = await s.registry.call("job_create", { kind: "torture", project: PROJECT, payload: String(i) }, ctx);
        expect(r.isError).not.toBe(true);
      }
      await s.close();
      const createdMs = Date.now() - started;

      const workers: Worker[] = Array.from({ length: WORKERS }, (_, i) => startWorker(target, i));
      let next = WORKERS;
      let stops = 0;
      let kills = 0;
      const db = await openDatabase<ShampooDB>(target);
      try {
        const remaining = async () =>
          Number(
            (
              await db.db
                .selectFrom("shampoo_jobs")
                .select((eb) => eb.fn.countAll().as("n"))
                .where("state", "!=", "completed")
                .executeTakeFirstOrThrow()
            ).n,
          );
        // Chaos while jobs remain: freeze one worker past its lease, or kill one and start another.
        const deadline = Date.now() + 100_000;
        while ((await remaining()) > 0 && Date.now() < deadline) {
          const live = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
          const victim = live[Math.floor(Math.random() * live.length)];
          if (victim && stops < 6 && Math.random() < 0.6) {
            victim.child.kill("SIGSTOP");
            stops++;
            await sleep(LEASE_S * 1000 + 600);
            victim.child.kill("SIGCONT");
          } else if (victim && kills < 4) {
            victim.child.kill("SIGKILL");
            kills++;
            workers.push(startWorker(target, next++));
            await sleep(400);
          } else {
            await sleep(100);
          }
        }
        expect(await remaining()).toBe(0);
        for (const w of workers) w.child.kill("SIGTERM");
        await Promise.all(workers.map((w) => w.exited));
        const elapsedMs = Date.now() - started;

        const jobs = await db.db.selectFrom("shampoo_jobs").selectAll().execute();
        expect(jobs).toHaveLength(JOBS);
        const completes = await db.db
          .selectFrom("shampoo_history")
          .select(["entity_id", (eb) => eb.fn.countAll().as("n")])
          .where("entity_kind", "=", "job")
          .where("action", "=", "complete")
          .groupBy("entity_id")
          .execute();
        // Exactly one accepted completion per job, in the history.
        expect(completes).toHaveLength(JOBS);
        expect(completes.filter((c) => Number(c.n) !== 1)).toEqual([]);
        const byId = new Map(jobs.map((j) => [j.id, j]));
        const lines = workers.flatMap((w) => w.lines);
        const done = lines.filter((l) => l.startsWith("done ")).map((l) => l.split(" "));
        const refused = lines.filter((l) => l.startsWith("refused ")).map((l) => l.split(" "));
        // No fenced-out completion accepted: each accepted one is the job's completing fence, once.
        const seen = new Set<string>();
        for (const [, id, fence] of done) {
          expect(seen.has(id as string), `job ${id} reported done twice`).toBe(false);
          seen.add(id as string);
          expect(Number(byId.get(id as string)?.completed_fence)).toBe(Number(fence));
        }
        for (const [, id, fence, type] of refused) {
          expect(["lease_lost", "lease_expired"]).toContain(type);
          expect(Number(byId.get(id as string)?.completed_fence)).not.toBe(Number(fence));
        }
        expect(Math.max(...jobs.map((j) => j.attempts))).toBeLessThanOrEqual(5);
        expect(jobs.filter((j) => j.state !== "completed" || j.lease_until_ms !== null)).toEqual([]);
        const reclaimed = jobs.filter((j) => j.reclaimed > 0).length;
        console.info(
          `lease torture ${dialect}: ${JOBS} jobs, ${WORKERS} workers (+${next - WORKERS} restarted), ` +
            `${stops} SIGSTOP x ${LEASE_S * 1000 + 600} ms (lease ${LEASE_S * 1000} ms), ${kills} SIGKILL; ` +
            `reclaimed ${reclaimed}, fenced-out completions refused ${refused.length}, ` +
            `max attempts ${Math.max(...jobs.map((j) => j.attempts))}; create ${createdMs} ms, total ${elapsedMs} ms`,
        );
        expect(stops + kills).toBeGreaterThan(0);
      } finally {
        for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
        await db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      if (dialect === "postgres") await dropPgSchema(schema);
    }
  }, 180_000);
});
