/**
 * One enrich_context at the largest input the bounds allow (issue 23), with a reader and a writer
 * calling the same server all through it. Seed: `--notes` notes (default 8) of `--claims` claim
 * sentences each (default 400: past the 1,000 claims one call may extract), one project. Then
 * enrich_context {depth: "standard"} once, while a reader loops query_tasks and a writer loops
 * create_task_or_note on the same process (in-process `registry.call`, the local star caller).
 * Reported: the enrich's wall time and claims, the reader's and writer's p50 / p99 / max during
 * it. Goal: the reader unaffected (SQLite reads have their own connection; PostgreSQL's pool);
 * a writer waits at most for the enrich (one write at a time per SQLite file; on PostgreSQL only
 * row locks are shared, each wait bounded by lock_timeout, 5 s).
 *
 *   npm run bench -- enrich [--notes 8] [--claims 400] [--db sqlite,postgres]
 */
import { parseArgs } from "node:util";
import type { SessionInfo } from "kernel";
import { localCaller } from "shampoo/access/caller.ts";
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
  Samples,
  writeResults,
} from "./lib.ts";
import { openBenchShampoo } from "./shampoo-store.ts";

type Kind = "sqlite" | "postgres";
const CALLER = localCaller("bench");
const PROJECT = "enrich";

function session(): SessionInfo {
  return { sessionId: "bench", transport: "memory", clientInfo: () => undefined, log: async () => {} };
}

interface Result {
  db: Kind;
  notes: number;
  claims_per_note: number;
  enrich_ms: number;
  claims_extracted: number;
  claims_truncated: boolean;
  reader: LatencySummary & { max_ms: number };
  writer: LatencySummary & { max_ms: number };
  reader_idle: LatencySummary;
}

const withMax = (s: Samples) => ({ ...s.summary(), max_ms: Math.max(0, ...s.values()) });

async function runOn(kind: Kind, notes: number, claims: number): Promise<Result> {
  const { shampoo: s, drop } = await openBenchShampoo(kind, "enrich", () => CALLER);
  const ctx = s.mcp.context(session());
  const call = async (tool: string, args: Record<string, unknown>) => {
    const out = await s.registry.call(tool, args, ctx);
    if (out.isError) throw new Error(`${tool} failed: ${JSON.stringify(out.structuredContent)}`);
    return out.structuredContent as Record<string, unknown>;
  };
  try {
    for (let n = 0; n < notes; n++) {
      const body = Array.from({ length: claims }, (_, i) => `The n${n} service ${i} uses store ${i}.`).join(" ");
      await call("create_task_or_note", {
        title: `enrich note ${n}`,
        project: PROJECT,
        type: "note",
        description: body,
      });
    }
    const read = () => call("query_tasks", { project: PROJECT, limit: 20 });
    // The reader alone first: its latency without the enrich.
    const idle = new Samples();
    for (let i = 0; i < 50; i++) {
      const t = now();
      await read();
      idle.add(now() - t);
    }
    const reader = new Samples();
    const writer = new Samples();
    let running = true;
    const readLoop = (async () => {
      while (running) {
        const t = now();
        await read();
        reader.add(now() - t);
      }
    })();
    let w = 0;
    const writeLoop = (async () => {
      while (running) {
        const t = now();
        await call("create_task_or_note", { title: `concurrent ${w++}`, project: "elsewhere" });
        writer.add(now() - t);
      }
    })();
    const t0 = now();
    const r = await call("enrich_context", { depth: "standard" });
    const enrichMs = now() - t0;
    running = false;
    await Promise.all([readLoop, writeLoop]);
    return {
      db: kind,
      notes,
      claims_per_note: claims,
      enrich_ms: enrichMs,
      claims_extracted: Number(r.claims_extracted),
      claims_truncated: r.claims_truncated === true,
      reader: withMax(reader),
      writer: withMax(writer),
      reader_idle: idle.summary(),
    };
  } finally {
    await s.close();
    await drop();
  }
}

export const benchmark: Benchmark = {
  name: "enrich",
  description: "one enrich_context at the bounds' largest input; reader and writer latency during it",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        notes: { type: "string", default: "8" },
        claims: { type: "string", default: "400" },
        db: { type: "string", default: "sqlite,postgres" },
      },
    });
    const notes = Number(values.notes);
    const claims = Number(values.claims);
    const machine = machineInfo();
    const results: Result[] = [];
    for (const kind of String(values.db).split(",") as Kind[]) {
      const r = await runOn(kind, notes, claims);
      results.push(r);
      log(
        `${kind}: enrich ${fmt(r.enrich_ms, 0)} ms, ${r.claims_extracted} claims (truncated ${r.claims_truncated}); reader p50/p99/max ${fmt(r.reader.p50_ms)}/${fmt(r.reader.p99_ms)}/${fmt(r.reader.max_ms)} ms (idle p99 ${fmt(r.reader_idle.p99_ms)}); writer p50/p99/max ${fmt(r.writer.p50_ms)}/${fmt(r.writer.p99_ms)}/${fmt(r.writer.max_ms)} ms`,
      );
    }
    const md = [
      `# enrich benchmark (${dateStamp()})`,
      "",
      machineLine(machine),
      "",
      `${notes} notes × ${claims} claim sentences, one enrich_context {depth: standard} (bounded at 1,000 claims a call, 500 a chunk); meanwhile a reader loops query_tasks and a writer loops create_task_or_note on the same server. Load average (1 min) at the start: ${machine.load_avg_1m} on ${machine.cpu_cores} cores.`,
      "",
      markdownTable(
        [
          "db",
          "enrich ms",
          "claims",
          "reader n",
          "reader p50 / p99 / max ms",
          "reader alone p50 / p99 ms",
          "writer n",
          "writer p50 / p99 / max ms",
        ],
        results.map((r) => [
          r.db,
          fmt(r.enrich_ms, 0),
          `${r.claims_extracted}${r.claims_truncated ? " (truncated)" : ""}`,
          r.reader.count,
          `${fmt(r.reader.p50_ms)} / ${fmt(r.reader.p99_ms)} / ${fmt(r.reader.max_ms)}`,
          `${fmt(r.reader_idle.p50_ms)} / ${fmt(r.reader_idle.p99_ms)}`,
          r.writer.count,
          `${fmt(r.writer.p50_ms)} / ${fmt(r.writer.p99_ms)} / ${fmt(r.writer.max_ms)}`,
        ]),
      ),
      "",
      "Command: `npm run bench -- enrich`",
    ].join("\n");
    const out = writeResults("enrich", { date: dateStamp(), machine, results }, md);
    log(`wrote ${out.json} and ${out.markdown}`);
  },
};
