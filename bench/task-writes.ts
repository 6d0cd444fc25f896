/**
 * SHAMPOO task writes against the size of the knowledge graph: create_task_or_note p50/p95 with
 * 0, 10,000 and 100,000 entities (default sizes), on SQLite and PostgreSQL. Every task write runs
 * link discovery (links/service.ts discoverLinks) in its transaction; the goal (issue 14 § 4) is
 * p50 at 100,000 entities within 1.5× of the empty graph, on both engines, as a ratio to the
 * empty graph measured in the same run.
 *
 * One store per engine grows through the sizes: the graph bench's corpus (bench/graph.ts: names
 * of two Zipf words and a number, five observation sentences each, one relation per entity)
 * written straight into the tables with its phrase index (seedTables), and tasks written through
 * the real tool alongside (1,000 plus one per ten entities, their titles mentioning entities),
 * so tasks and graph fill together. Each measured call is `registry.call("create_task_or_note")`
 * in process (the whole tool pipeline) with a title naming one seeded entity among common words
 * and a sentence of description (a mention that links), alternating with a title naming none;
 * each kind is compared with the same kind on the empty graph.
 *
 * After the measured calls, a separate pass of --statements writes per title kind times every SQL
 * statement (better-sqlite3's Statement and pg's Client.query wrapped): where a write's database
 * time goes at each size, the largest in the report.
 *
 *   npm run bench -- task-writes [--sizes 0,10000,100000] [--db sqlite,postgres] [--calls 200] [--warmup 20]
 *     [--statements 100] [--no-write]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { rng } from "kernel/rng.ts";
import pg from "pg";
import type { Shampoo } from "shampoo/app.ts";
import type { ShampooCtx } from "shampoo/context.ts";
import { buildCorpus, type Corpus, contextOf, newStore, seedTables, Vocabulary } from "./graph.ts";
import {
  type Benchmark,
  dateStamp,
  fmt,
  type LatencySummary,
  listOption,
  log,
  machineInfo,
  machineLine,
  markdownTable,
  now,
  Samples,
  writeResults,
} from "./lib.ts";

type DbKind = "sqlite" | "postgres";
const TARGET_RATIO = 1.5;

interface Row {
  db: DbKind;
  entities: number;
  tasks: number;
  /** mention: the title names a seeded entity (an auto link is made); plain: it names none. */
  title: "mention" | "plain";
  create: LatencySummary;
  auto_links_per_call: number;
  ratio_p50: number;
  /** Process CPU time per call (mean), and its ratio to the empty graph's. */
  cpu_ms_per_call: number;
  ratio_cpu?: number;
  /** p50 over the p50 of the same kind at the smallest non-empty size of the run. */
  ratio_first_graph?: number;
  /** Where the database time of a separate pass of writes went (--statements N). */
  statements?: StatementShare[];
}

/** The entities [from, to) of the corpus, with the relations among them (indexes shifted). */
function slice(c: Corpus, from: number, to: number): Corpus {
  return {
    // Two observations each (of the corpus's five): seeding 100,000 entities takes minutes, and
    // a task write reads observations only of the entities its text mentions.
    entities: c.entities.slice(from, to).map((e) => ({ ...e, observations: e.observations.slice(0, 2) })),
    relations: c.relations
      .filter((r) => r.from >= from && r.from < to && r.to >= from)
      .map((r) => ({ ...r, from: r.from - from, to: r.to - from })),
  };
}

/** A task's arguments: common words and a sentence; `mention`: the title names a seeded entity. */
function taskArgs(
  vocab: Vocabulary,
  c: Corpus,
  upTo: number,
  r: () => number,
  mention = true,
): Record<string, unknown> {
  const words = Array.from({ length: 6 }, () => vocab.word(r));
  const named = upTo === 0 ? `${vocab.word(r)} ${vocab.word(r)} 0` : c.entities[Math.floor(r() * upTo)]?.name;
  if (mention) words.splice(2, 0, String(named));
  return { title: words.join(" "), description: vocab.sentence(r), project: "memory" };
}

/**
 * Wall time per SQL statement while `on`: better-sqlite3's Statement methods and pg's
 * Client.query are wrapped (bench only), so a pass of writes shows where a write's database
 * time goes, by statement text (parameters bound, so one text per statement shape).
 */
class StatementTimer {
  on = false;
  readonly stats = new Map<string, { n: number; ms: number }>();

  constructor() {
    const record = (text: unknown, ms: number) => {
      // One key per statement shape: an IN list of any length reads as (…).
      const key = String(text)
        .replace(/\s+/g, " ")
        .replace(/\((?:\?|\$\d+)(?:, (?:\?|\$\d+))*\)/g, "(…)")
        .trim();
      const x = this.stats.get(key) ?? { n: 0, ms: 0 };
      x.n++;
      x.ms += ms;
      this.stats.set(key, x);
    };
    const probe = new BetterSqlite3(":memory:");
    const statement = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
    probe.close();
    for (const m of ["all", "get", "run", "iterate"]) {
      const orig = statement[m] as (...a: unknown[]) => unknown;
      const timer = this;
      statement[m] = function (this: { source: string }, ...a: unknown[]) {
        if (!timer.on) return orig.apply(this, a);
        const t = now();
        try {
          return orig.apply(this, a);
        } finally {
          record(this.source, now() - t);
        }
      };
    }
    const client = pg.Client.prototype as unknown as Record<string, unknown>;
    const query = client.query as (...a: unknown[]) => unknown;
    const timer = this;
    client.query = function (this: unknown, q: unknown, ...a: unknown[]) {
      const out = query.call(this, q, ...a) as Promise<unknown> | undefined;
      if (!timer.on || typeof out?.then !== "function") return out;
      const t = now();
      const text = typeof q === "string" ? q : (q as { text?: string }).text;
      return out.finally(() => record(text, now() - t));
    };
  }

  /** The statements of `calls` writes, most time first: [statement, per write, ms per write]. */
  take(calls: number): StatementShare[] {
    const out = [...this.stats]
      .map(([statement, x]) => ({ statement, per_write: x.n / calls, ms_per_write: x.ms / calls }))
      .sort((a, b) => b.ms_per_write - a.ms_per_write);
    this.stats.clear();
    return out;
  }
}

interface StatementShare {
  statement: string;
  per_write: number;
  ms_per_write: number;
}

/** Process CPU time spent in the calls recorded into each Samples (a shared machine's wall time waits for a core). */
const cpuMs = new Map<Samples, number>();

async function createMany(
  s: Shampoo,
  ctx: ShampooCtx,
  n: number,
  args: () => Record<string, unknown>,
  samples?: Samples,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = now();
    const cpu = process.cpuUsage();
    const out = await s.registry.call("create_task_or_note", args(), ctx);
    samples?.add(now() - t);
    const used = process.cpuUsage(cpu);
    if (samples) cpuMs.set(samples, (cpuMs.get(samples) ?? 0) + (used.user + used.system) / 1000);
    if (out.isError) throw new Error(`create_task_or_note: ${JSON.stringify(out.structuredContent)}`);
  }
}

async function autoLinkCount(s: Shampoo): Promise<number> {
  const r = await s.database.db
    .selectFrom("shampoo_task_links")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("link_type", "=", "auto")
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: "string", default: "0,10000,100000" },
      db: { type: "string" },
      calls: { type: "string", default: "200" },
      warmup: { type: "string", default: "20" },
      statements: { type: "string", default: "100" },
      "no-write": { type: "boolean", default: false },
    },
  });
  const sizes = String(values.sizes)
    .split(",")
    .map((x) => Number(x.trim()))
    .sort((a, b) => a - b);
  const dbs = listOption<DbKind>(values.db, ["sqlite", "postgres"], ["sqlite", "postgres"]);
  const calls = Number(values.calls);
  const warmup = Number(values.warmup);
  const statementCalls = Number(values.statements);
  const timer = new StatementTimer();
  const loadStart = os.loadavg()[0] ?? 0;
  const vocab = new Vocabulary();
  const corpus = buildCorpus(vocab, Math.max(...sizes));
  const machine = machineInfo();
  log(
    `task-writes: create_task_or_note at ${sizes.join(" / ")} entities on ${dbs.join(", ")}; ${machineLine(machine)}`,
  );
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), "shampoo-task-writes-"));
  try {
    for (const kind of dbs) {
      const store = await newStore(kind, dir, 0);
      const s = await store.open();
      const ctx = contextOf(s, "bench-task-writes");
      const r = rng(1130);
      let seeded = 0;
      let tasks = 0;
      const empty: { mention?: number; plain?: number } = {};
      const emptyCpu: { mention?: number; plain?: number } = {};
      const firstGraph: { mention?: number; plain?: number } = {};
      try {
        for (const size of sizes) {
          const t0 = now();
          if (size > seeded) await seedTables(s, slice(corpus, seeded, size), `${kind} ${seeded}→${size}`);
          seeded = size;
          const wantTasks = 1000 + Math.floor(size / 10);
          await createMany(s, ctx, wantTasks - tasks, () => taskArgs(vocab, corpus, seeded, r));
          tasks = wantTasks;
          log(`  ${kind}: ${size} entities, ${tasks} tasks seeded in ${fmt((now() - t0) / 1000, 1)} s`);
          await createMany(s, ctx, warmup, () => taskArgs(vocab, corpus, seeded, r));
          // Alternating calls: a title naming an entity (discovery links it) and one naming none.
          const samples = { mention: new Samples(), plain: new Samples() };
          const before = await autoLinkCount(s);
          for (let i = 0; i < calls; i++) {
            await createMany(s, ctx, 1, () => taskArgs(vocab, corpus, seeded, r, true), samples.mention);
            await createMany(s, ctx, 1, () => taskArgs(vocab, corpus, seeded, r, false), samples.plain);
          }
          const linked = (await autoLinkCount(s)) - before;
          tasks += warmup + 2 * calls;
          // A separate pass, each statement timed: where a write's database time goes.
          const statements: Partial<Record<"mention" | "plain", StatementShare[]>> = {};
          for (const title of ["mention", "plain"] as const) {
            if (statementCalls === 0) break;
            timer.on = true;
            await createMany(s, ctx, statementCalls, () => taskArgs(vocab, corpus, seeded, r, title === "mention"));
            timer.on = false;
            statements[title] = timer.take(statementCalls);
            tasks += statementCalls;
          }
          for (const title of ["mention", "plain"] as const) {
            const create = samples[title].summary();
            empty[title] ??= create.p50_ms;
            const row: Row = {
              db: kind,
              entities: size,
              tasks,
              title,
              create,
              auto_links_per_call: title === "mention" ? linked / calls : 0,
              ratio_p50: create.p50_ms / (empty[title] as number),
              cpu_ms_per_call: (cpuMs.get(samples[title]) ?? 0) / calls,
            };
            emptyCpu[title] ??= row.cpu_ms_per_call;
            row.ratio_cpu = row.cpu_ms_per_call / (emptyCpu[title] as number);
            if (size > 0) firstGraph[title] ??= create.p50_ms;
            if (firstGraph[title] !== undefined) row.ratio_first_graph = create.p50_ms / (firstGraph[title] as number);
            if (statements[title]) row.statements = statements[title];
            rows.push(row);
            log(
              `  ${kind} ${size} entities, ${title}: p50 ${fmt(create.p50_ms)} ms, p95 ${fmt(create.p95_ms)} ms, ${fmt(row.ratio_p50)}× the empty graph; CPU ${fmt(row.cpu_ms_per_call)} ms/call, ${fmt(row.ratio_cpu ?? 1)}×`,
            );
          }
        }
      } finally {
        await s.close();
        await store.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const largest = Math.max(...sizes);
  const firstSize = sizes.find((n) => n > 0);
  const loadEnd = os.loadavg()[0] ?? 0;
  const short = (sqlText: string) => (sqlText.length > 110 ? `${sqlText.slice(0, 107)}…` : sqlText);
  const statementTables = rows
    .filter((x) => x.entities === largest && x.statements)
    .map((x) => {
      const list = x.statements as StatementShare[];
      const total = list.reduce((a, b) => a + b.ms_per_write, 0);
      return [
        `${x.db}, ${x.entities.toLocaleString("en")} entities, ${x.title} titles: ${fmt(total)} ms of statements per write (${statementCalls} writes, each statement timed)`,
        "",
        markdownTable(
          ["statement", "per write", "ms per write", "share"],
          list
            .slice(0, 12)
            .map((t) => [
              `\`${short(t.statement)}\``,
              fmt(t.per_write, 1),
              fmt(t.ms_per_write, 3),
              `${fmt((100 * t.ms_per_write) / total, 0)} %`,
            ]),
          ["l", "r", "r", "r"],
        ),
        "",
      ].join("\n");
    });
  const md = [
    `# SHAMPOO task writes vs graph size (${dateStamp()})`,
    "",
    `${machineLine(machine)}. Load average (1 min): ${fmt(loadStart)} at start, ${fmt(loadEnd)} at end (2 cores shared: wall times include waiting for a core; CPU ms/call does not).`,
    "",
    `create_task_or_note in process (registry.call, the whole tool pipeline), ${calls} calls of each title kind after ${warmup} warm-up calls per size, alternating: \`mention\` titles name one seeded entity (discovery links it: a link row and its history event more), \`plain\` titles name none. The graph (names of two Zipf words and a number, two observations each, one relation each) is seeded straight into its tables, tasks through the tool (1,000 plus one per ten entities) between sizes. On the empty graph a mention names no entity, so nothing links: the mention ratio there includes the link write itself, the plain ratio is the graph's cost alone. \`× ${firstSize?.toLocaleString("en") ?? "-"}\`: p50 over the same kind at the smallest graph of the run (flat = the size of the graph costs nothing more). Target (issue 14 § 4): p50 at ${largest.toLocaleString("en")} entities within ${TARGET_RATIO}× of the empty graph.`,
    "",
    markdownTable(
      [
        "db",
        "entities",
        "tasks",
        "title",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "× empty (p50)",
        `× ${firstSize?.toLocaleString("en") ?? "-"} (p50)`,
        "CPU ms/call",
        "× empty (CPU)",
        "auto links/call",
        "target",
      ],
      rows.map((x) => [
        x.db,
        String(x.entities),
        String(x.tasks),
        x.title,
        fmt(x.create.p50_ms),
        fmt(x.create.p95_ms),
        fmt(x.create.p99_ms),
        fmt(x.ratio_p50),
        x.ratio_first_graph === undefined ? "" : fmt(x.ratio_first_graph),
        fmt(x.cpu_ms_per_call),
        fmt(x.ratio_cpu ?? 1),
        fmt(x.auto_links_per_call),
        x.entities === largest ? (x.ratio_p50 <= TARGET_RATIO ? "met" : "missed") : "",
      ]),
    ),
    "",
    statementTables.length ? "Where the database time of a write goes, at the largest graph:\n" : "",
    ...statementTables,
    "Reproduce: `npm run bench -- task-writes` (options: --sizes 0,10000,100000 --db sqlite,postgres --calls 200 --warmup 20 --statements 100 --no-write). Raw figures: the dated JSON next to this file.",
  ].join("\n");
  if (values["no-write"]) {
    log(md);
    return;
  }
  const out = writeResults(
    "task-writes",
    { machine, host: os.hostname(), calls, warmup, load_avg_1m: { start: loadStart, end: loadEnd }, rows },
    md,
  );
  log(`  wrote ${out.markdown} and ${out.json}`);
}

export const benchmark: Benchmark = {
  name: "task-writes",
  description: "create_task_or_note latency at 0 / 10k / 100k graph entities (link discovery), SQLite and PostgreSQL",
  run,
};
