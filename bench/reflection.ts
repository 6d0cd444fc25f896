/**
 * reflect_start and reflect_audit latencies on 100,000 tasks and notes (default) plus 2,000
 * entities, in-process through the full tool pipeline (`shampoo.registry.call`), on SQLite (temp
 * file, WAL) and PostgreSQL (fresh schema, dropped afterwards). Each reflect_start creates a run
 * and persists its candidates (default limit_per_category 20: up to 120 a run); reflect_audit is
 * the same pass without a write, so reflect_start / reflect_audit is the cost of the run's four
 * transactions as a ratio measured in the same process, on the same store, in the same minute.
 *
 * The store is seeded by multi-row INSERTs (no history events: the audit never reads history):
 * 20 projects; 80 % tasks, 20 % notes; 60 % not_started, 15 % in_progress, 25 % done; 30 % in the
 * inbox; a third with a due date over the last 400 days; 2 % of titles drawn from a pool of 300
 * (duplicates); 5 % with a parent, one in ten of them dangling; a third of the notes empty; every
 * tenth entity without observations. Callers: the local star caller (unfiltered runs) and an
 * agent granted one project.
 *
 *   npm run bench -- reflection [--tasks 100000] [--db sqlite,postgres] [--warmup 1] [--duration 5]
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { iso, type SessionInfo } from "kernel";
import { rng } from "kernel/rng.ts";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import { type Caller, localCaller, makeCaller } from "shampoo/access/caller.ts";
import { openShampoo, type Shampoo } from "shampoo/app.ts";
import { normalizeTitle } from "shampoo/domains/tasks/model.ts";
import type { TaskRow } from "shampoo/store/schema.ts";
import {
  type Benchmark,
  dateStamp,
  fmt,
  type LatencySummary,
  log,
  machineInfo,
  machineLine,
  markdownTable,
  now,
  onCleanup,
  Samples,
  timedLoop,
  writeResults,
} from "./lib.ts";

const SEED = 20261201;
const NOW = Date.now();
const DAY = 86_400_000;
const PROJECTS = Array.from({ length: 20 }, (_, i) => `proj-${String(i).padStart(2, "0")}`);
const CALLERS: Record<string, Caller> = {
  star: localCaller("bench"),
  scoped: makeCaller({ principal: "bench-agent", role: "agent", profile: "default", grants: ["proj-03"] }),
};
type Kind = "sqlite" | "postgres";

function session(id: string): SessionInfo {
  return { sessionId: id, transport: "memory", clientInfo: () => undefined, log: async () => {} };
}

async function open(kind: Kind): Promise<{ shampoo: Shampoo; drop(): Promise<void> }> {
  const resolveCaller = (s: SessionInfo) => CALLERS[s.sessionId] as Caller;
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "shampoo-bench-reflection-"));
    const drop = onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
    return { shampoo: await openShampoo({ db: join(dir, "shampoo.db"), resolveCaller }), drop };
  }
  const schema = `bench_reflection_${process.pid}_${Date.now().toString(36)}`;
  const drop = onCleanup(async () => dropPgSchema(schema));
  return { shampoo: await openShampoo({ db: PG_URL, pgSchema: schema, resolveCaller }), drop };
}

async function seed(s: Shampoo, total: number): Promise<void> {
  const random = rng(SEED);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  const ids: string[] = [];
  const batch: TaskRow[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await s.database.db.insertInto("shampoo_tasks").values(batch).execute();
    batch.length = 0;
  };
  for (let i = 0; i < total; i++) {
    const type = random() < 0.8 ? "task" : "note";
    const r = random();
    const status = r < 0.6 ? "not_started" : r < 0.75 ? "in_progress" : "done";
    const title = random() < 0.02 ? `recurring chore ${Math.floor(random() * 300)}` : `item ${i} ${pick(PROJECTS)}`;
    const updated = NOW - Math.floor(random() * 200 * DAY);
    const parent = ids.length > 0 && random() < 0.05 ? (random() < 0.1 ? randomUUID() : (pick(ids) as string)) : null;
    const id = randomUUID();
    ids.push(id);
    batch.push({
      id,
      profile: "default",
      project: pick(PROJECTS),
      title,
      title_norm: normalizeTitle(title),
      type,
      status,
      priority: pick(["low", "medium", "high", "critical"]),
      section: random() < 0.3 ? "inbox" : pick(["today", "next", "someday", "waiting"]),
      description: type === "note" && random() < 0.33 ? null : `body of ${i}`,
      notes: null,
      due_date:
        random() < 0.33 ? new Date(NOW - Math.floor((random() * 500 - 100) * DAY)).toISOString().slice(0, 10) : null,
      parent_id: parent,
      recurring: null,
      reminder_at: null,
      assignee: null,
      shared_by: null,
      created_by: "bench",
      created_at: iso(updated - DAY),
      updated_at: iso(updated),
      last_event_id: `seed-${i}`,
    });
    if (batch.length === 500) await flush();
  }
  await flush();
  // Entities through the real tool (500 a call), every tenth without observations.
  const ctx = s.mcp.context(session("star"));
  for (let b = 0; b < 4; b++) {
    const entities = Array.from({ length: 500 }, (_, k) => {
      const n = b * 500 + k;
      return {
        name: `entity ${n}`,
        entityType: "thing",
        project: pick(PROJECTS),
        observations: n % 10 ? [`fact ${n}`] : [],
      };
    });
    const out = await s.registry.call("create_entities", { entities }, ctx);
    if (out.isError) throw new Error(`seeding entities failed: ${JSON.stringify(out.structuredContent)}`);
  }
}

interface Row {
  db: Kind;
  tool: string;
  caller: string;
  latency: LatencySummary;
  candidates: number;
}

async function measure(
  s: Shampoo,
  kind: Kind,
  tool: string,
  caller: string,
  args: Record<string, unknown>,
  o: { warmupMs: number; measureMs: number },
): Promise<Row> {
  const samples = new Samples();
  let candidates = 0;
  await timedLoop({ ...o, concurrency: 1 }, async (measuring) => {
    const t = now();
    const out = await s.registry.call(tool, args, s.mcp.context(session(caller)));
    const ms = now() - t;
    if (out.isError) throw new Error(`${tool} failed: ${JSON.stringify(out.structuredContent)}`);
    const sc = out.structuredContent as { candidates_persisted?: number; summary?: { total_candidates: number } };
    candidates = sc.candidates_persisted ?? sc.summary?.total_candidates ?? 0;
    if (measuring) samples.add(ms);
  });
  return { db: kind, tool, caller, latency: samples.summary(), candidates };
}

export const benchmark: Benchmark = {
  name: "reflection",
  description: "reflect_start / reflect_audit p50/p95 on 100,000 tasks (SQLite, PostgreSQL)",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        tasks: { type: "string", default: "100000" },
        db: { type: "string", default: "sqlite,postgres" },
        warmup: { type: "string", default: "1" },
        duration: { type: "string", default: "5" },
      },
    });
    const total = Number(values.tasks);
    const o = { warmupMs: Number(values.warmup) * 1000, measureMs: Number(values.duration) * 1000 };
    const rows: Row[] = [];
    for (const kind of String(values.db).split(",") as Kind[]) {
      const { shampoo, drop } = await open(kind);
      try {
        const t = now();
        await seed(shampoo, total);
        log(`${kind}: seeded ${total} tasks and 2,000 entities in ${fmt((now() - t) / 1000, 1)} s`);
        for (const [tool, caller, args] of [
          ["reflect_audit", "star", {}],
          ["reflect_start", "star", {}],
          ["reflect_audit", "scoped", { project: "proj-03" }],
          ["reflect_start", "scoped", { project: "proj-03" }],
        ] as const) {
          const r = await measure(shampoo, kind, tool, caller, args, o);
          rows.push(r);
          log(
            `${kind} ${tool} (${caller}): p50 ${fmt(r.latency.p50_ms)} ms, p95 ${fmt(r.latency.p95_ms)} ms, n=${r.latency.count}`,
          );
        }
      } finally {
        await shampoo.close().catch(() => {});
        await drop();
      }
    }
    const machine = machineInfo();
    const ratio = (kind: Kind, caller: string) => {
      const get = (tool: string) => rows.find((r) => r.db === kind && r.tool === tool && r.caller === caller);
      const a = get("reflect_audit")?.latency.p50_ms ?? Number.NaN;
      const b = get("reflect_start")?.latency.p50_ms ?? Number.NaN;
      return fmt(b / a);
    };
    const md = [
      `# reflection benchmark (${dateStamp()})`,
      "",
      machineLine(machine),
      "",
      `${total.toLocaleString("en")} tasks and notes, 2,000 entities; in-process registry.call; default thresholds (limit_per_category 20).`,
      "",
      markdownTable(
        ["db", "tool", "caller", "candidates", "n", "p50 ms", "p95 ms", "p99 ms", "start/audit p50"],
        rows.map((r) => [
          r.db,
          r.tool,
          r.caller,
          r.candidates,
          r.latency.count,
          fmt(r.latency.p50_ms),
          fmt(r.latency.p95_ms),
          fmt(r.latency.p99_ms),
          r.tool === "reflect_start" ? ratio(r.db, r.caller) : "",
        ]),
        ["l", "l", "l", "r", "r", "r", "r", "r", "r"],
      ),
      "",
      "Command: `npm run bench -- reflection`",
    ].join("\n");
    const out = writeResults("reflection", { date: dateStamp(), machine, tasks: total, rows }, md);
    log(`wrote ${out.json} and ${out.markdown}`);
  },
};
