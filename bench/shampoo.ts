/**
 * SHAMPOO task latencies on a realistic store: 100,000 tasks and notes (default), then p50/p95/p99
 * of single in-process calls — `shampoo.registry.call(name, args, ctx)`, the full tool pipeline
 * (limits → Ajv input validation → handler → output validation) with the server's own call
 * context — for:
 *
 *   create_task_or_note                       (write: one transaction with its history event)
 *   query_tasks filtered                      (project / section / status / priority / overdue)
 *   query_tasks full-text                     (search: one or two words, relevance first)
 *   find_by_title                             (a two-word phrase from an existing title)
 *   ready_context                             (mode ready, default limit)
 *
 * on SQLite (temp file, WAL) and PostgreSQL (fresh schema, dropped afterwards). Target: reads p95
 * under 5 ms in-process on SQLite. A tool not (yet) registered in TOOLS is skipped with a message.
 *
 * Seeding uses a fast path, not registry.call: rows and history events are built exactly as the
 * service builds them (newRow/createRow/changeRow in domains/tasks/service.ts: the same taskView,
 * normalizeTitle, event fields and source span), then written with multi-row INSERTs in batches
 * of 500, the per-profile clock advanced once per batch. A task that is not not_started gets its
 * create event and then the update_task event that moved it, chained by parent_event_id, as the
 * real path would leave it. Two guards run on every seed: the history invariants of the crash
 * test over the whole store, and a parity check that a task created through registry.call has
 * the same columns and the same event shape as a seeded one.
 *
 * Where the time goes: every statement a call runs is timed (a Kysely plugin on the context's
 * database), so each figure splits into SQL and the rest (validation, scoring, JSON); one call
 * per read is then replayed with each statement's plan (EXPLAIN QUERY PLAN on SQLite,
 * EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL) written to the results.
 *
 *   npm run bench -- shampoo [--tasks 100000] [--db sqlite,postgres] [--warmup 1] [--duration 4]
 *     [--only create,query_filtered,query_search,find_by_title,ready_context] [--no-what-if] [--no-write] [--keep]
 *     [--reuse NAME]
 *
 * --no-what-if skips the second SQLite pass of the reads after ANALYZE (planner statistics, which
 * SHAMPOO does not collect today): a what-if that shows how much of a figure is the planner guessing.
 * --keep keeps the seeded store (SQLite file, PostgreSQL schema) and prints where, for EXPLAIN by hand.
 * --reuse NAME keeps the store under a fixed name (SQLite <tmpdir>/shampoo-bench-NAME.db, PostgreSQL schema
 * bench_shampoo_NAME) and, when it already holds --tasks seeded rows, measures it without seeding again
 * (pending migrations still run on open; find_by_title phrases are then titles read back from the store).
 * Dates were seeded relative to that earlier run's clock: reuse a store for hours, not days.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { iso, type Kysely, type SessionInfo, sql } from "kernel";
import { rng } from "kernel/rng.ts";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import {
  CompiledQuery,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";
import { type Caller, localCaller } from "shampoo/access/caller.ts";
import { openShampoo, type Shampoo, TOOLS } from "shampoo/app.ts";
import type { ShampooCtx } from "shampoo/context.ts";
import { normalizeTitle, taskView } from "shampoo/domains/tasks/model.ts";
import type { TaskRow } from "shampoo/domains/tasks/schema.ts";
import type { HistoryRow, ShampooDB } from "shampoo/store/schema.ts";
import { checkInvariants } from "../packages/shampoo/test/crash/invariants.ts";
import {
  type Benchmark,
  dateStamp,
  fmt,
  type LatencySummary,
  log,
  type MachineInfo,
  machineInfo,
  machineLine,
  markdownTable,
  now,
  onCleanup,
  Samples,
  timedLoop,
  writeResults,
} from "./lib.ts";

const TARGET_P95_MS = 5;
const BATCH = 500;
const SEED = 20261130;
/** "Now" for the seed and the runs: the system clock at start (ready_context and overdue read it). */
const NOW = Date.now();
const DAY = 86_400_000;

type DbKind = "sqlite" | "postgres";
type Sc = Record<string, unknown>;

// ---------------------------------------------------------------- deterministic data

/** Weighted choice over [value, weight] pairs. */
function weighted<T>(random: () => number, table: Array<[T, number]>): T {
  const total = table.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [v, w] of table) {
    r -= w;
    if (r < 0) return v;
  }
  return (table[table.length - 1] as [T, number])[0];
}

/**
 * A vocabulary of 1,500 pronounceable made-up words drawn with a Zipf law (word k has weight
 * 1/k), as natural text is: a few words occur in thousands of tasks, most in a handful.
 */
class Vocabulary {
  readonly words: string[] = [];
  private readonly cumulative: number[] = [];

  constructor(random: () => number, size = 1500) {
    const c = "bdfgklmnprstvz";
    const v = "aeiou";
    const seen = new Set<string>();
    while (this.words.length < size) {
      const syllables = 2 + Math.floor(random() * 2);
      let w = "";
      for (let i = 0; i < syllables; i++)
        w += `${c[Math.floor(random() * c.length)]}${v[Math.floor(random() * v.length)]}`;
      if (!seen.has(w)) {
        seen.add(w);
        this.words.push(w);
      }
    }
    let sum = 0;
    for (let k = 1; k <= size; k++) {
      sum += 1 / k;
      this.cumulative.push(sum);
    }
  }

  /** A word drawn with the Zipf law (as the data is written). */
  zipf(random: () => number): string {
    const r = random() * (this.cumulative[this.cumulative.length - 1] as number);
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo] as string;
  }

  /** Any word of the vocabulary, uniformly (as searches are typed: mostly rarer words). */
  uniform(random: () => number): string {
    return this.words[Math.floor(random() * this.words.length)] as string;
  }

  text(random: () => number, min: number, max: number): string {
    const n = min + Math.floor(random() * (max - min + 1));
    return Array.from({ length: n }, () => this.zipf(random)).join(" ");
  }
}

const PROJECTS = Array.from({ length: 20 }, (_, i) => `proj-${String(i).padStart(2, "0")}`);
const PROJECT_WEIGHTS: Array<[string | null, number]> = [
  ...PROJECTS.map((p, i): [string, number] => [p, 1 / (i + 1)]),
  [null, 0.5],
];
const STATUS_WEIGHTS: Array<[string, number]> = [
  ["not_started", 35],
  ["in_progress", 10],
  ["done", 40],
  ["archived", 10],
  ["cancelled", 5],
];
const PRIORITY_WEIGHTS: Array<[string, number]> = [
  ["low", 20],
  ["medium", 45],
  ["high", 25],
  ["critical", 10],
];
const SECTION_WEIGHTS: Array<[string, number]> = [
  ["inbox", 30],
  ["today", 10],
  ["next", 30],
  ["someday", 20],
  ["waiting", 10],
];

const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// ---------------------------------------------------------------- callers and contexts

const CALLERS: Record<string, Caller> = {
  default: localCaller("bench"),
  other: { ...localCaller("bench-other"), profile: "other" },
};

function session(id: string): SessionInfo {
  return { sessionId: id, transport: "memory", clientInfo: () => undefined, log: async () => {} };
}

/** Times every statement between Kysely's transformQuery and transformResult (compile + run + rows). */
class StatementTimer implements KyselyPlugin {
  private readonly starts = new WeakMap<QueryId, number>();
  sqlMs = 0;
  statements = 0;
  /** When set, each statement is compiled and kept (the explain pass). */
  capture: Array<{ query: CompiledQuery; ms: number; rows: number }> | null = null;
  private readonly pending = new WeakMap<QueryId, CompiledQuery>();

  constructor(private readonly compile: (node: RootOperationNode, id: QueryId) => CompiledQuery) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (!this.starts.has(args.queryId)) this.starts.set(args.queryId, now());
    if (this.capture) this.pending.set(args.queryId, this.compile(args.node, args.queryId));
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const t = this.starts.get(args.queryId);
    if (t !== undefined) {
      const ms = now() - t;
      this.sqlMs += ms;
      this.statements++;
      this.starts.delete(args.queryId);
      const query = this.pending.get(args.queryId);
      if (this.capture && query) this.capture.push({ query, ms, rows: args.result.rows.length });
    }
    return args.result;
  }
}

interface Harness {
  kind: DbKind;
  shampoo: Shampoo;
  version: string;
  timer: StatementTimer;
  /** The server's own call context for a caller, its database wrapped by the timer. */
  ctx(profile?: string): ShampooCtx;
  call(name: string, args: Sc, profile?: string): Promise<{ sc: Sc; isError: boolean }>;
  drop(): Promise<void>;
}

async function openHarness(kind: DbKind, keep: boolean, reuse?: string): Promise<Harness> {
  let shampoo: Shampoo;
  let drop: () => Promise<void>;
  let version: string;
  const resolveCaller = (s: SessionInfo) => CALLERS[s.sessionId] as Caller;
  if (kind === "sqlite") {
    const file = reuse ? join(tmpdir(), `shampoo-bench-${reuse}.db`) : undefined;
    const dir = file ? tmpdir() : mkdtempSync(join(tmpdir(), "shampoo-bench-"));
    drop =
      keep || file
        ? async () => log(`kept ${file ?? join(dir, "shampoo.db")}`)
        : onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
    shampoo = await openShampoo({ db: file ?? join(dir, "shampoo.db"), resolveCaller });
    const r = await sql<{ v: string }>`select sqlite_version() as v`.execute(shampoo.database.db);
    version = `SQLite ${r.rows[0]?.v} (WAL, synchronous=NORMAL)`;
  } else {
    const schema = reuse ? `bench_shampoo_${reuse}` : `bench_shampoo_${process.pid}_${Date.now().toString(36)}`;
    drop =
      keep || reuse
        ? async () => log(`kept schema ${schema} in ${PG_URL}`)
        : onCleanup(async () => {
            await dropPgSchema(schema);
          });
    shampoo = await openShampoo({ db: PG_URL, pgSchema: schema, resolveCaller });
    const r = await sql<{ server_version: string }>`show server_version`.execute(shampoo.database.db);
    version = `PostgreSQL ${String(r.rows[0]?.server_version).split(" ")[0]}`;
  }
  const base = shampoo.database.db;
  const timer = new StatementTimer((node, id) => base.getExecutor().compileQuery(node, id));
  const timed = base.withPlugin(timer);
  const ctx = (profile = "default"): ShampooCtx => ({
    ...shampoo.mcp.context(session(profile)),
    database: { ...shampoo.database, db: timed },
  });
  return {
    kind,
    shampoo,
    version,
    timer,
    ctx,
    async call(name, args, profile) {
      const out = await shampoo.registry.call(name, args, ctx(profile));
      return { sc: out.structuredContent, isError: out.isError === true };
    },
    drop: async () => {
      await shampoo.close().catch(() => {});
      await drop();
    },
  };
}

// ---------------------------------------------------------------- seeding (fast path)

interface SeedInfo {
  tasks: number;
  events: number;
  seconds: number;
  /** Titles of some seeded tasks (find_by_title phrases come from them). */
  sampleTitles: string[];
  verified: string;
}

/** One line that updates in place on a terminal, a line a second otherwise (stderr). */
function progress(prefix: string): { update(text: string): void; done(text: string): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  return {
    update(text) {
      if (tty) process.stderr.write(`\r\x1b[2K${prefix}: ${text}`);
      else if (Date.now() - last >= 1000) {
        process.stderr.write(`${prefix}: ${text}\n`);
        last = Date.now();
      }
    },
    done(text) {
      process.stderr.write(`${tty ? "\r\x1b[2K" : ""}${prefix}: ${text}\n`);
    },
  };
}

async function seed(h: Harness, total: number, vocab: Vocabulary): Promise<SeedInfo> {
  const random = rng(SEED);
  const db = h.shampoo.database.db as Kysely<ShampooDB>;
  const bar = progress(`seeding ${h.kind}`);
  const t0 = now();
  const clocks: Record<string, number> = { default: 0, other: 0 };
  const byProfile: Record<string, Array<{ id: string; project: string | null }>> = { default: [], other: [] };
  const sampleTitles: string[] = [];
  let events = 0;

  for (let start = 0; start < total; start += BATCH) {
    const tasks: TaskRow[] = [];
    const history: Array<Omit<HistoryRow, "seq">> = [];
    for (let i = start; i < Math.min(total, start + BATCH); i++) {
      const profile = random() < 0.9 ? "default" : "other";
      const caller = CALLERS[profile] as Caller;
      const project = weighted(random, PROJECT_WEIGHTS);
      const createdMs = NOW - Math.floor(random() * 180 * DAY) - 3_600_000;
      const title = vocab.text(random, 3, 6);
      if (sampleTitles.length < 2000 && random() < 0.05) sampleTitles.push(title);
      const siblings = (byProfile[profile] as Array<{ id: string; project: string | null }>).slice(-50);
      const parent = random() < 0.1 ? siblings.find((s) => s.project === project) : undefined;
      const args: Sc = {
        title,
        ...(project === null ? {} : { project }),
        type: random() < 0.15 ? "note" : "task",
        priority: weighted(random, PRIORITY_WEIGHTS),
        section: weighted(random, SECTION_WEIGHTS),
        description: vocab.text(random, 8, 24),
        ...(random() < 0.3 ? { notes: vocab.text(random, 3, 8) } : {}),
        ...(random() < 0.4 ? { due_date: dayString(NOW + Math.floor((random() * 150 - 60) * DAY)) } : {}),
        ...(parent ? { parent_id: parent.id } : {}),
      };
      // newRow + createTaskOrNote (domains/tasks/service.ts), field for field.
      const row: TaskRow = {
        id: randomUUID(),
        profile,
        project,
        title,
        title_norm: normalizeTitle(title),
        type: args.type as string,
        status: "not_started",
        priority: args.priority as string,
        section: args.section as string,
        description: (args.description as string | undefined) ?? null,
        notes: (args.notes as string | undefined) ?? null,
        due_date: (args.due_date as string | undefined) ?? null,
        parent_id: (args.parent_id as string | undefined) ?? null,
        recurring: null,
        reminder_at: null,
        assignee: null,
        shared_by: null,
        created_by: caller.principal,
        created_at: iso(createdMs),
        updated_at: iso(createdMs),
        last_event_id: "",
      };
      const create = event(caller, clocks, createdMs, "create_task_or_note", row.id, "create", null, row, args, null);
      history.push(create);
      row.last_event_id = create.event_id;
      const status = weighted(random, STATUS_WEIGHTS);
      if (status !== "not_started") {
        // changeRow (update_task with {task_id, status}): updated_at, then the event, chained.
        const updatedMs = createdMs + Math.floor(random() * (NOW - createdMs));
        const next: TaskRow = { ...row, status, updated_at: iso(updatedMs) };
        const update = event(
          caller,
          clocks,
          updatedMs,
          "update_task",
          row.id,
          "update",
          row,
          next,
          { task_id: row.id, status },
          row.last_event_id,
        );
        history.push(update);
        next.last_event_id = update.event_id;
        tasks.push(next);
      } else tasks.push(row);
      (byProfile[profile] as Array<{ id: string; project: string | null }>).push({ id: row.id, project });
    }
    await db.transaction().execute(async (trx) => {
      // Clocks first, as recordEvent's nextClock does: the history rows carry their values.
      for (const [profile, clock] of Object.entries(clocks)) {
        if (clock === 0) continue;
        await trx
          .insertInto("shampoo_clocks")
          .values({ profile, clock })
          .onConflict((oc) => oc.column("profile").doUpdateSet({ clock }))
          .execute();
      }
      await trx.insertInto("shampoo_history").values(history).execute();
      await trx.insertInto("shampoo_tasks").values(tasks).execute();
    });
    events += history.length;
    const done = Math.min(total, start + BATCH);
    const rate = done / ((now() - t0) / 1000);
    bar.update(
      `${done.toLocaleString("en")}/${total.toLocaleString("en")} tasks, ${events.toLocaleString("en")} events (${Math.round(rate).toLocaleString("en")} tasks/s)`,
    );
  }
  if (h.kind === "postgres") {
    // What autovacuum does within a minute of a bulk load: fresh statistics for the planner.
    await sql`ANALYZE`.execute(db);
  }
  const seconds = (now() - t0) / 1000;
  bar.done(
    `${total.toLocaleString("en")} tasks, ${events.toLocaleString("en")} events in ${seconds.toFixed(1)} s; verifying`,
  );
  const verified = await verifySeed(h, db);
  return { tasks: total, events, seconds, sampleTitles, verified };
}

/**
 * A kept store (--reuse) that already holds `total` seeded tasks: its figures, without seeding.
 * find_by_title phrases are seeded titles read back (a seeded title is vocabulary words only;
 * tasks the runs created end with a number).
 */
async function reused(h: Harness, total: number): Promise<SeedInfo | undefined> {
  const db = h.shampoo.database.db as Kysely<ShampooDB>;
  const n = Number(
    (await db.selectFrom("shampoo_tasks").select(sql<number>`count(*)`.as("n")).executeTakeFirst())?.n ?? 0,
  );
  if (n < total) {
    if (n > 0) throw new Error(`--reuse: the kept ${h.kind} store holds ${n} tasks, fewer than --tasks ${total}`);
    return undefined;
  }
  const events = Number(
    (await db.selectFrom("shampoo_history").select(sql<number>`count(*)`.as("n")).executeTakeFirst())?.n ?? 0,
  );
  const titles = await db.selectFrom("shampoo_tasks").select("title").orderBy("id").limit(4000).execute();
  const sampleTitles = titles
    .map((t) => t.title)
    .filter((t) => !/\d$/.test(t))
    .slice(0, 2000);
  return {
    tasks: n,
    events,
    seconds: 0,
    sampleTitles,
    verified: `reused kept store (${n.toLocaleString("en")} tasks)`,
  };
}

/** A history row exactly as recordEvent writes it (store/history.ts), the clock taken from `clocks`. */
function event(
  caller: Caller,
  clocks: Record<string, number>,
  atMs: number,
  tool: string,
  entityId: string,
  action: string,
  old: TaskRow | null,
  next: TaskRow,
  payload: Sc,
  parentEventId: string | null,
): Omit<HistoryRow, "seq"> {
  clocks[caller.profile] = (clocks[caller.profile] ?? 0) + 1;
  return {
    event_id: randomUUID(),
    profile: caller.profile,
    principal: caller.principal,
    role: caller.role,
    session_id: "bench-seed",
    clock: clocks[caller.profile] as number,
    at: iso(atMs),
    entity_kind: "task",
    entity_id: entityId,
    action,
    old_json: old === null ? null : JSON.stringify(taskView(old)),
    new_json: JSON.stringify(taskView(next)),
    payload_json: JSON.stringify(payload),
    parent_event_id: parentEventId,
    source_json: JSON.stringify({ tool, session: "bench-seed" }),
    project: (old ?? next).project ?? "",
  };
}

/**
 * The seed's two guards: the crash test's history invariants over the whole store, and parity
 * with the real path (a task made through registry.call, then moved to done through update_task,
 * compared with a seeded done task: same columns, same event fields, same view keys).
 */
async function verifySeed(h: Harness, db: Kysely<ShampooDB>): Promise<string> {
  const report = await checkInvariants(db, 5);
  if (report.problems.length > 0) throw new Error(`seeded store breaks the invariants:\n${report.problems.join("\n")}`);
  const args = { title: "parity check", project: "proj-00", description: "x", priority: "high", section: "next" };
  const made = await h.shampoo.registry.call("create_task_or_note", args, h.shampoo.mcp.context(session("default")));
  const id = made.structuredContent.task_id as string;
  await h.shampoo.registry.call(
    "update_task",
    { task_id: id, status: "done" },
    h.shampoo.mcp.context(session("default")),
  );
  const real = await db.selectFrom("shampoo_tasks").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const seeded = await db
    .selectFrom("shampoo_tasks")
    .selectAll()
    .where("status", "=", "done")
    .where("profile", "=", "default")
    .where("id", "!=", id)
    .limit(1)
    .executeTakeFirstOrThrow();
  const realEvents = await db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("entity_id", "=", real.id)
    .orderBy("seq")
    .execute();
  const seededEvents = await db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("entity_id", "=", seeded.id)
    .orderBy("seq")
    .execute();
  const problems: string[] = [];
  const keys = (o: object) => Object.keys(o).sort().join(",");
  if (keys(real) !== keys(seeded)) problems.push(`task columns differ: ${keys(real)} vs ${keys(seeded)}`);
  if (realEvents.map((e) => e.action).join() !== seededEvents.map((e) => e.action).join()) {
    problems.push(`event actions differ: ${realEvents.map((e) => e.action)} vs ${seededEvents.map((e) => e.action)}`);
  }
  for (const [i, r] of realEvents.entries()) {
    const s = seededEvents[i];
    if (!s) break;
    if (keys(r) !== keys(s)) problems.push(`event columns differ: ${keys(r)} vs ${keys(s)}`);
    for (const col of ["old_json", "new_json"] as const) {
      const a = r[col] === null ? null : keys(JSON.parse(r[col] as string));
      const b = s[col] === null ? null : keys(JSON.parse(s[col] as string));
      if (a !== b) problems.push(`event ${i} ${col} keys differ: ${a} vs ${b}`);
    }
    const [rs, ss] = [JSON.parse(r.source_json), JSON.parse(s.source_json)];
    if (keys(rs) !== keys(ss) || rs.tool !== ss.tool)
      problems.push(`event ${i} source differs: ${r.source_json} vs ${s.source_json}`);
    if ((r.parent_event_id === null) !== (s.parent_event_id === null)) problems.push(`event ${i} chaining differs`);
    if (r.role !== s.role || r.entity_kind !== s.entity_kind) problems.push(`event ${i} role/kind differ`);
  }
  if (problems.length > 0) throw new Error(`seed fast path drifted from the service path:\n${problems.join("\n")}`);
  return `invariants hold over ${report.tasks.toLocaleString("en")} tasks and ${report.events.toLocaleString("en")} events; parity with registry.call (create + update_task) checked`;
}

// ---------------------------------------------------------------- the operations

interface Op {
  key: string;
  tool: string;
  label: string;
  read: boolean;
  /** Named argument shapes the calls rotate through (call n uses variant n % length). */
  variants: Array<{ name: string; args(random: () => number, n: number): Sc }>;
}

function operations(vocab: Vocabulary, titles: string[]): Op[] {
  const project = (r: () => number, top = PROJECTS.length) => PROJECTS[Math.floor(r() * top)] as string;
  return [
    {
      key: "create",
      tool: "create_task_or_note",
      label: "create_task_or_note",
      read: false,
      variants: [
        {
          name: "task in a project",
          args: (r, n) => ({
            title: `${vocab.text(r, 3, 5)} ${n}`,
            project: project(r),
            section: weighted(r, SECTION_WEIGHTS),
            priority: weighted(r, PRIORITY_WEIGHTS),
            description: vocab.text(r, 8, 24),
          }),
        },
      ],
    },
    {
      key: "query_filtered",
      tool: "query_tasks",
      label: "query_tasks filtered",
      read: true,
      variants: [
        { name: "project", args: (r) => ({ project: project(r) }) },
        { name: "project + in_progress", args: (r) => ({ project: project(r, 5), status: "in_progress" }) },
        { name: "section today", args: () => ({ section: "today" }) },
        { name: "critical + overdue", args: () => ({ priority: "critical", overdue_only: true }) },
        { name: "project by due date, 20", args: (r) => ({ project: project(r), sort_by: "due_date", limit: 20 }) },
      ],
    },
    {
      key: "query_search",
      tool: "query_tasks",
      label: "query_tasks full-text",
      read: true,
      variants: [
        { name: "one word", args: (r) => ({ search: vocab.uniform(r) }) },
        { name: "one word", args: (r) => ({ search: vocab.uniform(r) }) },
        { name: "two words", args: (r) => ({ search: `${vocab.uniform(r)} ${vocab.uniform(r)}` }) },
      ],
    },
    {
      key: "find_by_title",
      tool: "find_by_title",
      label: "find_by_title",
      read: true,
      variants: [
        {
          name: "two-word phrase of a title",
          args: (r) => {
            const words = (titles[Math.floor(r() * titles.length)] as string).split(" ");
            const at = Math.floor(r() * (words.length - 1));
            return { title_fragment: words.slice(at, at + 2).join(" ") };
          },
        },
      ],
    },
    {
      key: "ready_context",
      tool: "ready_context",
      label: "ready_context",
      read: true,
      variants: [{ name: "mode ready", args: () => ({}) }],
    },
  ];
}

interface OpResult {
  db: DbKind;
  /** sqlite, postgres, or "sqlite + ANALYZE" (the what-if: planner statistics present). */
  store: string;
  key: string;
  tool: string;
  label: string;
  read: boolean;
  skipped?: string;
  latency?: LatencySummary;
  /** Per argument shape, when an op has more than one. */
  variants?: Record<string, LatencySummary>;
  /** Mean SQL time per call (statements' compile + run + rows) and statements per call. */
  sql_ms_mean?: number;
  statements_per_call?: number;
  errors?: number;
  first_error?: string;
  target?: "met" | "missed";
  /** Per argument shape: best of SPLIT_REPS for the whole call, the handler alone, and its SQL. */
  split?: Array<{ variant: string; call_ms: number; handler_ms: number; sql_ms: number }>;
  /** One call per argument shape replayed, statement by statement, with plans. */
  explain?: Array<{ variant: string; args: Sc; ms: number; rows: number; sql: string; plan: string[] }>;
}

async function runOp(h: Harness, op: Op, store: string, warmupMs: number, measureMs: number): Promise<OpResult> {
  const base = { db: h.kind, store, key: op.key, tool: op.tool, label: op.label, read: op.read };
  if (!h.shampoo.registry.has(op.tool)) {
    return { ...base, skipped: `${op.tool} is not registered in TOOLS yet (domains/tasks/tools.ts)` };
  }
  const random = rng(SEED + op.key.length * 7919);
  const samples = new Samples();
  const perVariant = new Map<string, Samples>();
  let sqlMs = 0;
  let statements = 0;
  let errors = 0;
  let firstError: string | undefined;
  let n = 0;
  await timedLoop({ warmupMs, measureMs, concurrency: 1 }, async (measuring) => {
    const variant = op.variants[n % op.variants.length] as Op["variants"][number];
    const args = variant.args(random, n++);
    h.timer.sqlMs = 0;
    h.timer.statements = 0;
    const t = now();
    const out = await h.call(op.tool, args);
    const ms = now() - t;
    if (out.isError) {
      errors++;
      firstError ??= `${JSON.stringify(args)} → ${JSON.stringify(out.sc).slice(0, 300)}`;
      return;
    }
    if (measuring) {
      samples.add(ms);
      const v = perVariant.get(variant.name) ?? new Samples();
      perVariant.set(variant.name, v);
      v.add(ms);
      sqlMs += h.timer.sqlMs;
      statements += h.timer.statements;
    }
  });
  const latency = samples.summary();
  const result: OpResult = {
    ...base,
    latency,
    ...(perVariant.size > 1 ? { variants: Object.fromEntries([...perVariant].map(([k, v]) => [k, v.summary()])) } : {}),
    sql_ms_mean: samples.count ? sqlMs / samples.count : Number.NaN,
    statements_per_call: samples.count ? statements / samples.count : Number.NaN,
    errors,
    ...(firstError ? { first_error: firstError } : {}),
  };
  if (op.read && h.kind === "sqlite") result.target = latency.p95_ms < TARGET_P95_MS ? "met" : "missed";
  if (op.read) {
    result.split = [];
    result.explain = await explain(h, op, random, result.split);
  }
  return result;
}

/** Replays one call per argument shape capturing its statements, then explains each statement. */
async function explain(
  h: Harness,
  op: Op,
  random: () => number,
  splits: NonNullable<OpResult["split"]>,
): Promise<OpResult["explain"]> {
  const out: NonNullable<OpResult["explain"]> = [];
  const seen = new Set<string>();
  for (const [i, variant] of op.variants.entries()) {
    if (seen.has(variant.name)) continue;
    seen.add(variant.name);
    const args = variant.args(random, i);
    splits.push({ variant: variant.name, ...(await split(h, op.tool, args)) });
    h.timer.capture = [];
    await h.call(op.tool, args);
    const captured = h.timer.capture;
    h.timer.capture = null;
    for (const c of captured) {
      const text = c.query.sql;
      if (!/^\s*(select|with)\b/i.test(text)) continue;
      const prefix = h.kind === "sqlite" ? "EXPLAIN QUERY PLAN " : "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ";
      const r = await h.shampoo.database.db.executeQuery(CompiledQuery.raw(prefix + text, [...c.query.parameters]));
      const plan =
        h.kind === "sqlite"
          ? sqlitePlan(r.rows as Array<{ id: number; parent: number; detail: string }>)
          : (r.rows as Array<Record<string, string>>).map((row) => String(Object.values(row)[0]));
      out.push({ variant: variant.name, args, ms: round(c.ms, 3), rows: c.rows, sql: text, plan });
    }
  }
  return out;
}

const SPLIT_REPS = 7;

/**
 * One argument set, SPLIT_REPS times through registry.call and SPLIT_REPS times straight into the
 * tool's handler (same context), alternating: the fastest of each (the least disturbed run) for
 * the whole call, the handler alone, and the SQL inside that handler run.
 * call − handler = the pipeline (limits, Ajv input and output validation); handler − SQL = the
 * handler's own JavaScript (building rows, scoring, markdown).
 */
async function split(
  h: Harness,
  tool: string,
  args: Sc,
): Promise<{ call_ms: number; handler_ms: number; sql_ms: number }> {
  const def = TOOLS.find((t) => t.name === tool);
  if (!def) throw new Error(`no tool ${tool}`);
  let call = Number.POSITIVE_INFINITY;
  let handler = Number.POSITIVE_INFINITY;
  let sqlMs = 0;
  for (let i = 0; i < SPLIT_REPS; i++) {
    let t = now();
    await h.call(tool, args);
    call = Math.min(call, now() - t);
    h.timer.sqlMs = 0;
    t = now();
    await def.handler(args, h.ctx());
    const ms = now() - t;
    if (ms < handler) {
      handler = ms;
      sqlMs = h.timer.sqlMs;
    }
  }
  return { call_ms: round(call, 3), handler_ms: round(handler, 3), sql_ms: round(sqlMs, 3) };
}

/** EXPLAIN QUERY PLAN rows as an indented tree. */
function sqlitePlan(rows: Array<{ id: number; parent: number; detail: string }>): string[] {
  const depth = new Map<number, number>([[0, -1]]);
  return rows.map((r) => {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    return `${"  ".repeat(d)}${r.detail}`;
  });
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

// ---------------------------------------------------------------- report

function tables(results: OpResult[]): string {
  const rows = results.map((r) =>
    r.skipped
      ? [r.store, r.label, "skipped", "-", "-", "-", "-", "-", "-", r.skipped]
      : [
          r.store,
          r.label,
          r.latency?.count ?? 0,
          fmt(r.latency?.p50_ms ?? Number.NaN, 3),
          fmt(r.latency?.p95_ms ?? Number.NaN, 3),
          fmt(r.latency?.p99_ms ?? Number.NaN, 3),
          fmt(r.latency?.max_ms ?? Number.NaN, 2),
          fmt(r.sql_ms_mean ?? Number.NaN, 3),
          fmt(r.statements_per_call ?? Number.NaN, 1),
          r.target ? `p95 < ${TARGET_P95_MS} ms: ${r.target.toUpperCase()}` : r.errors ? `${r.errors} ERRORS` : "",
        ],
  );
  return markdownTable(
    ["store", "call", "calls", "p50 ms", "p95 ms", "p99 ms", "max ms", "SQL ms/call", "stmts", "target"],
    rows,
    ["l", "l", "r", "r", "r", "r", "r", "r", "r", "l"],
  );
}

function variantTable(results: OpResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results) {
    for (const [name, l] of Object.entries(r.variants ?? {})) {
      rows.push([r.store, r.label, name, l.count, fmt(l.p50_ms, 3), fmt(l.p95_ms, 3), fmt(l.max_ms, 2)]);
    }
  }
  return markdownTable(["store", "call", "arguments", "calls", "p50 ms", "p95 ms", "max ms"], rows, [
    "l",
    "l",
    "l",
    "r",
    "r",
    "r",
    "r",
  ]);
}

/** A statement made readable: the select list and long IN lists folded. */
function shortSql(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/^select (.{120,}?) from /i, (_, list: string) => `select ‹${list.split(",").length} columns› from `)
    .replace(/\((\?|\$\d+)(, (\?|\$\d+)){9,}\)/g, (m) => `(‹${m.split(",").length} parameters›)`)
    .slice(0, 900);
}

function explainSection(results: OpResult[]): string {
  const parts: string[] = [];
  for (const r of results) {
    if (!r.explain || r.explain.length === 0) continue;
    const mean = r.latency?.mean_ms ?? Number.NaN;
    parts.push(
      `### ${r.store} · ${r.label}`,
      "",
      `Mean ${fmt(mean, 3)} ms a call, of which SQL ${fmt(r.sql_ms_mean ?? Number.NaN, 3)} ms (${fmt(
        (100 * (r.sql_ms_mean ?? 0)) / mean,
        0,
      )} %) over ${fmt(r.statements_per_call ?? Number.NaN, 1)} statements; the rest is validation, scoring and JSON.`,
      "",
      ...(r.split ?? []).map(
        (x) =>
          `- ${x.variant}: a call ${fmt(x.call_ms, 3)} ms ≈ SQL ${fmt(x.sql_ms, 3)} + handler JavaScript ${fmt(
            Math.max(0, x.handler_ms - x.sql_ms),
            3,
          )} + pipeline (limits, Ajv in/out) ${fmt(Math.max(0, x.call_ms - x.handler_ms), 3)} (best of ${SPLIT_REPS} each)`,
      ),
      "",
      "One call per argument shape replayed, each statement with its time, rows and plan:",
      "",
    );
    for (const e of r.explain) {
      parts.push(
        `- ${e.variant} \`${JSON.stringify(e.args)}\` — ${fmt(e.ms, 3)} ms, ${e.rows} rows: \`${shortSql(e.sql)}\``,
        "",
        "  ```",
        ...e.plan.map((l) => `  ${l}`),
        "  ```",
      );
    }
    parts.push("");
  }
  return parts.join("\n");
}

function markdown(results: OpResult[], machine: MachineInfo, meta: Sc, seeds: Record<string, SeedInfo>): string {
  const reads = results.filter((r) => r.store === "sqlite" && r.read);
  const verdict = reads.length
    ? reads
        .map((r) =>
          r.skipped
            ? `${r.label}: not measured (${r.skipped})`
            : `${r.label} ${fmt(r.latency?.p95_ms ?? Number.NaN, 2)} ms (${r.target})`,
        )
        .join("; ")
    : "SQLite not measured in this run";
  return [
    `# SHAMPOO task latencies at ${Number(meta.tasks).toLocaleString("en")} tasks — ${meta.date}`,
    "",
    "Single in-process calls, `shampoo.registry.call(name, args, ctx)` with the server's own call context: the full tool",
    "pipeline (limits → Ajv input validation → handler → output validation), one call at a time, as the local caller",
    "(every project and the untagged enclave, profile default; 90 % of the rows are in that profile).",
    `Warmup ${meta.warmup_s} s, then ${meta.duration_s} s measured per call kind. Target: reads p95 < ${TARGET_P95_MS} ms in-process on SQLite.`,
    "",
    `Machine: ${machineLine(machine)}. Load average (1 min): ${meta.load_avg_1m_start} at start, ${meta.load_avg_1m_end} at end.`,
    "",
    "Data: tasks and notes (15 % notes) over 20 projects (Zipf) and untagged (~10 %), statuses 35 % not_started,",
    "10 % in_progress, 40 % done, 10 % archived, 5 % cancelled; 40 % with a due date (−60..+90 days), 10 % subtasks,",
    "text from a 1,500-word vocabulary drawn with a Zipf law. Seeded by a fast path that writes the service's exact rows",
    "and history events (create, and update_task for a status change) in multi-row INSERTs; checked every run:",
    ...Object.entries(seeds).map(
      ([db, s]) => `- ${db}: ${s.events.toLocaleString("en")} events in ${s.seconds.toFixed(1)} s; ${s.verified}.`,
    ),
    "",
    `SQLite reads, p95: ${verdict}.`,
    "",
    tables(results),
    "",
    "Per argument shape:",
    "",
    variantTable(results),
    "",
    "`sqlite + ANALYZE` is a what-if, not the product: the same store after `ANALYZE` (SQLite's planner statistics,",
    "which nothing in SHAMPOO collects today), to show how much of the SQLite figure is the planner guessing.",
    "`SQL ms/call`: mean time inside statements (compile, run, read rows) per call; `stmts`: statements per call.",
    "Filtered queries rotate project / project+in_progress / section today / critical+overdue / project by due date;",
    "full-text queries are one word (two words every third call) picked uniformly from the vocabulary; find_by_title",
    "looks up a two-word phrase taken from a seeded title; ready_context runs mode ready with default limit.",
    "",
    "## Where the time goes",
    "",
    explainSection(results),
    "Reproduce: `npm run bench -- shampoo` (options: --tasks N --db sqlite,postgres --warmup S --duration S",
    "--only create,query_filtered,query_search,find_by_title,ready_context --no-what-if --no-write --keep --reuse NAME). Raw figures and every plan: the dated JSON.",
    "",
  ].join("\n");
}

// ---------------------------------------------------------------- entry

export const benchmark: Benchmark = {
  name: "shampoo",
  description: "SHAMPOO create/query/search/find/ready latencies (p50/p95/p99) at 100,000 tasks, SQLite and PostgreSQL",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        tasks: { type: "string", default: "100000" },
        db: { type: "string" },
        warmup: { type: "string", default: "1" },
        duration: { type: "string", default: "4" },
        only: { type: "string" },
        "what-if": { type: "boolean", default: true },
        "no-what-if": { type: "boolean", default: false },
        "no-write": { type: "boolean", default: false },
        keep: { type: "boolean", default: false },
        reuse: { type: "string" },
      },
      strict: true,
    });
    if (values["no-what-if"]) values["what-if"] = false;
    const total = Number(values.tasks);
    if (!Number.isInteger(total) || total < 100) throw new Error("--tasks takes an integer ≥ 100");
    const warmupMs = Number(values.warmup) * 1000;
    const measureMs = Number(values.duration) * 1000;
    if (!(warmupMs >= 0 && measureMs > 0)) throw new Error("--warmup and --duration take seconds");
    const dbs = (values.db ?? "sqlite,postgres").split(",").map((s) => s.trim()) as DbKind[];
    for (const d of dbs) if (d !== "sqlite" && d !== "postgres") throw new Error(`unknown --db ${d}`);

    const machine = machineInfo();
    const startedAt = new Date().toISOString();
    log(
      `shampoo: ${total.toLocaleString("en")} tasks on ${dbs.join(", ")}; ${values.warmup} s warmup + ${values.duration} s per call kind`,
    );
    log(`machine: ${machineLine(machine)}`);
    const results: OpResult[] = [];
    const seeds: Record<string, SeedInfo> = {};
    for (const kind of dbs) {
      if (values.reuse !== undefined && !/^[a-z0-9_]+$/.test(values.reuse))
        throw new Error("--reuse takes a name of a-z, 0-9 and _");
      const h = await openHarness(kind, values.keep === true, values.reuse);
      try {
        const vocab = new Vocabulary(rng(SEED - 1));
        const s = (values.reuse !== undefined && (await reused(h, total))) || (await seed(h, total, vocab));
        seeds[kind] = s;
        log(
          `${kind}: ${h.version}; seeded ${s.tasks.toLocaleString("en")} tasks in ${s.seconds.toFixed(1)} s; ${s.verified}`,
        );
        let ops = operations(vocab, s.sampleTitles);
        if (values.only) {
          const keys = values.only.split(",").map((k) => k.trim());
          for (const k of keys) if (!ops.some((o) => o.key === k)) throw new Error(`unknown --only ${k}`);
          ops = ops.filter((o) => keys.includes(o.key));
        }
        const passes: Array<{ store: string; ops: Op[] }> = [{ store: kind, ops }];
        if (kind === "sqlite" && values["what-if"])
          passes.push({ store: "sqlite + ANALYZE", ops: ops.filter((o) => o.read) });
        for (const pass of passes) {
          if (pass.store === "sqlite + ANALYZE") {
            await sql`ANALYZE`.execute(h.shampoo.database.db);
            log(`  what-if: ANALYZE run on the SQLite store; the reads again`);
          }
          for (const op of pass.ops) {
            process.stdout.write(`  ${pass.store} · ${op.label} … `);
            const r = await runOp(h, op, pass.store, warmupMs, measureMs);
            results.push(r);
            if (r.skipped) log(`skipped: ${r.skipped}`);
            else {
              const l = r.latency as LatencySummary;
              log(
                `p50 ${fmt(l.p50_ms, 3)} ms, p95 ${fmt(l.p95_ms, 3)} ms, p99 ${fmt(l.p99_ms, 3)} ms (${l.count} calls; SQL ${fmt(r.sql_ms_mean ?? Number.NaN, 3)} ms/call)${r.target ? ` — target ${r.target}` : ""}${r.errors ? ` — ${r.errors} ERRORS, first: ${r.first_error}` : ""}`,
              );
            }
          }
        }
      } finally {
        await h.drop();
      }
    }

    const meta = {
      date: dateStamp(),
      tasks: total,
      warmup_s: warmupMs / 1000,
      duration_s: measureMs / 1000,
      load_avg_1m_start: machine.load_avg_1m,
      load_avg_1m_end: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    };
    log("");
    log(tables(results));
    if (!values["no-write"]) {
      const paths = writeResults(
        "shampoo",
        {
          benchmark: "shampoo",
          ...meta,
          started_at: startedAt,
          target_read_p95_ms_sqlite: TARGET_P95_MS,
          machine,
          seeds: Object.fromEntries(Object.entries(seeds).map(([k, v]) => [k, { ...v, sampleTitles: undefined }])),
          results,
        },
        markdown(results, machine, meta, seeds),
      );
      log("");
      log(`wrote ${paths.json} and ${paths.markdown}`);
    }
    const bad = results.filter((r) => (r.errors ?? 0) > 0);
    if (bad.length) {
      process.stderr.write(`errors in ${bad.map((r) => `${r.db} ${r.label}`).join("; ")}\n`);
      process.exitCode = 1;
    }
  },
};
