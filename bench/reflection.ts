/**
 * reflect_start, reflect_audit and build_context_pack latencies on 100,000 tasks and notes plus
 * 50,000 governance facts (defaults), 5,000 candidate claims and 2,000 entities, in-process through
 * the full tool pipeline (`shampoo.registry.call`), on SQLite (temp file, WAL) and PostgreSQL
 * (fresh schema, dropped afterwards). Each reflect_start creates a run and persists its candidates
 * (default limit_per_category 20: up to 120 a run); reflect_audit is the same pass without a
 * write, so reflect_start / reflect_audit is the cost of the run's four transactions as a ratio
 * measured in the same process, on the same store, in the same minute. build_context_pack is
 * measured untargeted (planner) and targeted at a task (executor); each call persists its pack
 * and retires the previous one, as in use.
 *
 * The store is seeded by multi-row INSERTs of 500 rows, all in one transaction (no history
 * events: neither the audit nor a pack reads history): 20 projects; 80 % tasks, 20 % notes; 60 %
 * not_started, 15 % in_progress, 25 % done; 30 % in the inbox; a third with a due date over the
 * last 400 days; 2 % of titles drawn from a pool of 300 (duplicates); 5 % with a parent, one in
 * ten of them dangling; a third of the notes empty; every tenth entity without observations.
 * Facts: 85 % live, 15 % superseded; one in ten names a task of its project by title (what a
 * targeted pack finds relevant). Callers: the local star caller (unfiltered runs, every project)
 * and an agent granted one project.
 *
 *   npm run bench -- reflection [--tasks 100000] [--facts 50000] [--db sqlite,postgres] [--warmup 1] [--duration 5]
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { iso, type SessionInfo, sql } from "kernel";
import { rng } from "kernel/rng.ts";
import { type Caller, localCaller, makeCaller } from "shampoo/access/caller.ts";
import type { Shampoo } from "shampoo/app.ts";
import type { ClaimRow, FactRow } from "shampoo/domains/governance/schema/tables.ts";
import { normalizeTitle } from "shampoo/domains/tasks/model.ts";
import type { TaskRow } from "shampoo/domains/tasks/schema.ts";
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
  timedLoop,
  writeResults,
} from "./lib.ts";
import { openBenchShampoo } from "./shampoo-store.ts";

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

function open(kind: Kind): Promise<{ shampoo: Shampoo; drop(): Promise<void> }> {
  return openBenchShampoo(kind, "reflection", (s: SessionInfo) => CALLERS[s.sessionId] as Caller);
}

interface Targets {
  /** A live task of proj-00 that facts name (the star caller's targeted pack). */
  star: string;
  /** A live task of proj-03 that facts name (the one-project agent's targeted pack). */
  scoped: string;
}

async function seed(s: Shampoo, total: number, factCount: number): Promise<Targets> {
  const random = rng(SEED);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  const ids: string[] = [];
  /** Live tasks by project: what facts name. */
  const named = new Map<string, Array<{ id: string; title: string }>>(PROJECTS.map((p) => [p, []]));
  const targets = await s.database.transaction(async (trx) => {
    const batch: TaskRow[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await trx.insertInto("shampoo_tasks").values(batch).execute();
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
      const project = pick(PROJECTS);
      ids.push(id);
      if (status !== "done" && title.startsWith("item ")) named.get(project)?.push({ id, title });
      batch.push({
        id,
        profile: "default",
        project,
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
    const target = (p: string) =>
      (named.get(p) as Array<{ id: string; title: string }>)[0] as { id: string; title: string };
    const t = { star: target("proj-00"), scoped: target("proj-03") };
    // Facts: one in ten names a live task of its project (the two targets among them).
    const facts: FactRow[] = [];
    const flushFacts = async () => {
      if (facts.length === 0) return;
      await trx.insertInto("governance_facts").values(facts).execute();
      facts.length = 0;
    };
    for (let i = 0; i < factCount; i++) {
      const project = pick(PROJECTS);
      const pool = named.get(project) as Array<{ id: string; title: string }>;
      const subject =
        i < 40 ? (i % 2 ? t.scoped : t.star).title : random() < 0.1 ? pick(pool).title : `component ${i % 5000}`;
      const object = `library ${i}`;
      const at = iso(NOW - Math.floor(random() * 200 * DAY));
      const live = random() < 0.85;
      facts.push({
        fact_id: randomUUID(),
        profile: "default",
        project: i < 40 ? (i % 2 ? "proj-03" : "proj-00") : project,
        subject,
        subject_norm: subject.toLowerCase(),
        predicate: pick(["uses", "depends_on", "requires", "is"]),
        object,
        object_norm: object,
        scope: "memory",
        confidence: Math.round((0.5 + random() * 0.5) * 100) / 100,
        evidence_count: 1,
        reinforced_count: 0,
        validation_mode: "human_confirmed",
        source_claim_id: randomUUID(),
        status: live ? "live" : "superseded",
        valid_from: at,
        valid_to: live ? null : at,
        superseded_by: live ? null : randomUUID(),
        contradicts_json: "[]",
        contradiction_count: 0,
        recorded_at: at,
        updated_at: at,
        last_event_id: `seed-fact-${i}`,
      });
      if (facts.length === 500) await flushFacts();
    }
    await flushFacts();
    const claims: ClaimRow[] = [];
    for (let i = 0; i < factCount / 10; i++) {
      const subject = `component ${i % 5000}`;
      const at = iso(NOW - Math.floor(random() * 200 * DAY));
      claims.push({
        claim_id: randomUUID(),
        profile: "default",
        project: pick(PROJECTS),
        chunk_id: randomUUID(),
        subject,
        subject_norm: subject,
        predicate: "uses",
        object: `tool ${i}`,
        object_norm: `tool ${i}`,
        scope: "memory",
        confidence: 0.6,
        requires_human: 0,
        valid_from: at,
        evidence_count: 1,
        status: "candidate",
        fact_id: null,
        validation_mode: null,
        created_at: at,
        updated_at: at,
        last_event_id: `seed-claim-${i}`,
      });
      if (claims.length === 500) {
        await trx.insertInto("governance_claims").values(claims).execute();
        claims.length = 0;
      }
    }
    if (claims.length) await trx.insertInto("governance_claims").values(claims).execute();
    return { star: t.star.id, scoped: t.scoped.id };
  });
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
  return targets;
}

interface Row {
  db: Kind;
  tool: string;
  caller: string;
  latency: LatencySummary;
  candidates: number;
  label?: string;
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
    const sc = out.structuredContent as {
      candidates_persisted?: number;
      summary?: { total_candidates: number };
      items_included?: number;
    };
    candidates = sc.candidates_persisted ?? sc.summary?.total_candidates ?? sc.items_included ?? 0;
    if (measuring) samples.add(ms);
  });
  return { db: kind, tool, caller, latency: samples.summary(), candidates };
}

export const benchmark: Benchmark = {
  name: "reflection",
  description: "reflect_start / reflect_audit / build_context_pack p50/p95 on 100,000 tasks and 50,000 facts",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        tasks: { type: "string", default: "100000" },
        facts: { type: "string", default: "50000" },
        db: { type: "string", default: "sqlite,postgres" },
        warmup: { type: "string", default: "1" },
        duration: { type: "string", default: "5" },
      },
    });
    const total = Number(values.tasks);
    const factCount = Number(values.facts);
    const o = { warmupMs: Number(values.warmup) * 1000, measureMs: Number(values.duration) * 1000 };
    const rows: Row[] = [];
    const seeded: Partial<Record<Kind, number>> = {};
    for (const kind of String(values.db).split(",") as Kind[]) {
      const { shampoo, drop } = await open(kind);
      try {
        const t = now();
        const targets = await seed(shampoo, total, factCount);
        // PostgreSQL: what autovacuum does shortly after a bulk load (planner statistics, the
        // visibility map); measured right after the load, the plans are those of an empty table.
        // SQLite gets nothing: SHAMPOO collects no statistics there.
        if (kind === "postgres") {
          await shampoo.database.db.connection().execute(async (conn) => {
            await sql`SET statement_timeout = 0`.execute(conn);
            await sql`VACUUM ANALYZE`.execute(conn);
            await sql`RESET statement_timeout`.execute(conn);
          });
        }
        seeded[kind] = (now() - t) / 1000;
        log(`${kind}: seeded ${total} tasks, ${factCount} facts and 2,000 entities in ${fmt(seeded[kind], 1)} s`);
        const cases: Array<[string, string, Record<string, unknown>, string]> = [
          // The anchor: a cheap indexed read through the same pipeline, in the same minute.
          ["query_tasks", "star", { project: "proj-03", status: "in_progress" }, "anchor"],
          ["reflect_audit", "star", {}, ""],
          ["reflect_start", "star", {}, ""],
          ["reflect_audit", "scoped", { project: "proj-03" }, ""],
          ["reflect_start", "scoped", { project: "proj-03" }, ""],
          ["build_context_pack", "star", { pack_type: "planner" }, "planner"],
          ["build_context_pack", "star", { pack_type: "executor", target_ref: targets.star }, "executor, targeted"],
          ["build_context_pack", "scoped", { pack_type: "planner" }, "planner"],
          ["build_context_pack", "scoped", { pack_type: "executor", target_ref: targets.scoped }, "executor, targeted"],
        ];
        for (const [tool, caller, args, label] of cases) {
          const r = { ...(await measure(shampoo, kind, tool, caller, args, o)), label };
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
    const anchor = (kind: Kind) =>
      rows.find((r) => r.db === kind && r.label === "anchor")?.latency.p50_ms ?? Number.NaN;
    const md = [
      `# reflection and context-pack benchmark (${dateStamp()})`,
      "",
      machineLine(machine),
      "",
      `${total.toLocaleString("en")} tasks and notes, ${factCount.toLocaleString("en")} facts (85 % live), ${(factCount / 10).toLocaleString("en")} candidate claims, 2,000 entities; in-process registry.call; reflection at default thresholds (limit_per_category 20), packs at the default 4,000-token budget. Load average (1 min) at the start: ${machine.load_avg_1m} on ${machine.cpu_cores} cores. Seeding (one transaction; then VACUUM ANALYZE on PostgreSQL, as autovacuum would): ${Object.entries(
        seeded,
      )
        .map(([k, v]) => `${k} ${fmt(v ?? Number.NaN, 1)} s`)
        .join(", ")}.`,
      "",
      "star: the local star caller (every project; unfiltered runs). scoped: an agent granted proj-03 only (runs with project proj-03). items: candidates found (reflection) or items in the pack. × anchor: p50 over the anchor's p50 (query_tasks, one project, in_progress) on the same engine in the same run.",
      "",
      markdownTable(
        ["db", "tool", "caller", "case", "items", "n", "p50 ms", "p95 ms", "p99 ms", "× anchor", "start/audit p50"],
        rows.map((r) => [
          r.db,
          r.tool,
          r.caller,
          r.label ?? "",
          r.label === "anchor" ? "" : r.candidates,
          r.latency.count,
          fmt(r.latency.p50_ms),
          fmt(r.latency.p95_ms),
          fmt(r.latency.p99_ms),
          r.label === "anchor" ? "1" : fmt(r.latency.p50_ms / anchor(r.db), 1),
          r.tool === "reflect_start" ? ratio(r.db, r.caller) : "",
        ]),
        ["l", "l", "l", "l", "r", "r", "r", "r", "r", "r", "r"],
      ),
      "",
      "Command: `npm run bench -- reflection`",
    ].join("\n");
    const out = writeResults(
      "reflection",
      { date: dateStamp(), machine, tasks: total, facts: factCount, seed_seconds: seeded, rows },
      md,
    );
    log(`wrote ${out.json} and ${out.markdown}`);
  },
};
