/**
 * Fact consolidation (the kind of test MemoryAgentBench's FactConsolidation puts to LLM-driven
 * memories): many serial updates of one subject and predicate, interleaved across subjects, each
 * made through the tools as an agent would — a note stating the new value ("The <subject> is
 * value-<k> since <date k>."), assess_context, extract_candidate_claims, promote_candidate
 * (human_confirmed; the new `is` fact contradicts the live one structurally), then govern_fact
 * supersede of the previous fact by the new one, effective at date k. Then every question is asked
 * and checked against what was written:
 *
 * - current: as known now, true now: the last value of each subject (must be 100 %), and exactly
 *   one live fact per subject;
 * - as known at T_k (the moment after update k): true then — what memory held as current then;
 * - as known now, true at date k + 12 h: the world's history, after every later correction.
 *
 * Reads are `store.ts trueAtRows`, the bi-temporal rule in SQL (no catalog tool reads facts as of
 * a time). In-process `registry.call` with the local star caller, on SQLite (temp file, WAL) and
 * PostgreSQL (fresh schema, dropped afterwards). Timings: p50/p95 of each tool call and read.
 *
 *   npm run bench -- consolidation [--subjects 20] [--updates 50] [--db sqlite,postgres]
 */
import { parseArgs } from "node:util";
import type { SessionInfo } from "kernel";
import { localCaller, scopeOf } from "shampoo/access/caller.ts";
import type { Shampoo } from "shampoo/app.ts";
import { trueAtRows } from "shampoo/domains/governance/store/facts.ts";
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
  sleep,
  writeResults,
} from "./lib.ts";
import { openBenchShampoo } from "./shampoo-store.ts";

type Kind = "sqlite" | "postgres";
const CALLER = localCaller("bench");
const PROJECT = "consolidation";
const DAY = 86_400_000;
const BASE = Date.parse("2020-01-01T00:00:00.000Z");
const dateOf = (k: number) => new Date(BASE + k * DAY).toISOString().slice(0, 10);

function session(): SessionInfo {
  return { sessionId: "bench", transport: "memory", clientInfo: () => undefined, log: async () => {} };
}

function open(kind: Kind): Promise<{ shampoo: Shampoo; drop(): Promise<void> }> {
  return openBenchShampoo(kind, "consolidation", () => CALLER);
}

interface Accuracy {
  asked: number;
  correct: number;
}

interface Result {
  db: Kind;
  subjects: number;
  updates: number;
  seconds: number;
  current: Accuracy;
  live_one_per_subject: Accuracy;
  known_then: Accuracy;
  valid_then: Accuracy;
  calls: Record<string, LatencySummary>;
  reads: Record<string, LatencySummary>;
}

async function runOn(kind: Kind, subjects: number, updates: number): Promise<Result> {
  const { shampoo: s, drop } = await open(kind);
  const ctx = s.mcp.context(session());
  const samples: Record<string, Samples> = {};
  const timed = async (tool: string, args: Record<string, unknown>) => {
    const t = now();
    const out = await s.registry.call(tool, args, ctx);
    const into = samples[tool] ?? new Samples();
    samples[tool] = into;
    into.add(now() - t);
    if (out.isError) throw new Error(`${tool} failed: ${JSON.stringify(out.structuredContent)}`);
    return out.structuredContent as Record<string, unknown>;
  };
  const names = Array.from({ length: subjects }, (_, i) => `service ${i} region`);
  const value = (i: number, k: number) => `value-${i}-${k}`;
  const current: Array<string | null> = names.map(() => null);
  /** After update k of every subject: when memory knew it (K) and what each subject held. */
  const knownAt: string[] = [];
  const started = now();
  try {
    for (let k = 0; k < updates; k++) {
      for (let i = 0; i < subjects; i++) {
        const note = await timed("create_task_or_note", {
          title: `${names[i]} update ${k}`,
          project: PROJECT,
          type: "note",
          description: `The ${names[i]} is ${value(i, k)} since ${dateOf(k)}.`,
        });
        const chunk = (await timed("assess_context", { chunk_ref: note.task_id })).chunk_id as string;
        const claims = (await timed("extract_candidate_claims", { chunk_ref: chunk })).claims as Array<{
          claim_id: string;
          object: string;
        }>;
        const claim = claims.find((c) => c.object === value(i, k));
        if (!claim || claims.length !== 1) throw new Error(`extraction of update ${k} gave ${JSON.stringify(claims)}`);
        const p = await timed("promote_candidate", { claim_id: claim.claim_id });
        if (p.promoted !== true) throw new Error(`promotion refused: ${JSON.stringify(p)}`);
        const prev = current[i];
        if (prev !== null) {
          await timed("govern_fact", {
            fact_id: prev,
            action: "supersede",
            target_fact_id: p.fact_id,
            effective_at: `${dateOf(k)}T00:00:00.000Z`,
            rationale: `update ${k}`,
          });
        }
        current[i] = p.fact_id as string;
      }
      // K_k: every update of round k is known, none of round k + 1 yet (wait past the millisecond).
      knownAt.push(new Date().toISOString());
      await sleep(2);
    }
    const seconds = (now() - started) / 1000;
    const reads: Record<string, Samples> = {
      current: new Samples(),
      known_then: new Samples(),
      valid_then: new Samples(),
    };
    const scope = scopeOf(CALLER);
    const ask = async (what: string, k: string, w: string) => {
      const t = now();
      const rows = await s.database.read((db) => trueAtRows(db, scope, k, w));
      reads[what]?.add(now() - t);
      const by = new Map<string, string[]>();
      for (const r of rows) {
        if (r.predicate !== "is") continue;
        by.set(r.subject, [...(by.get(r.subject) ?? []), r.object]);
      }
      return by;
    };
    const score = (by: Map<string, string[]>, expected: (i: number) => string, acc: Accuracy) => {
      names.forEach((n, i) => {
        acc.asked++;
        const got = by.get(`The ${n}`) ?? by.get(n) ?? [];
        if (got.length === 1 && got[0] === expected(i)) acc.correct++;
      });
    };
    const farFuture = "2999-01-01T00:00:00.000Z";
    const nowIso = new Date().toISOString();
    const cur: Accuracy = { asked: 0, correct: 0 };
    score(await ask("current", nowIso, farFuture), (i) => value(i, updates - 1), cur);
    const knownThen: Accuracy = { asked: 0, correct: 0 };
    const validThen: Accuracy = { asked: 0, correct: 0 };
    for (let k = 0; k < updates; k++) {
      score(await ask("known_then", knownAt[k] as string, farFuture), (i) => value(i, k), knownThen);
      const midday = new Date(BASE + k * DAY + DAY / 2).toISOString();
      score(await ask("valid_then", nowIso, midday), (i) => value(i, k), validThen);
    }
    const live = await s.database.db
      .selectFrom("governance_facts")
      .select(["subject", "object"])
      .where("status", "=", "live")
      .where("predicate", "=", "is")
      .execute();
    const liveAcc: Accuracy = { asked: subjects, correct: 0 };
    names.forEach((n, i) => {
      const rows = live.filter((r) => r.subject.endsWith(n));
      if (rows.length === 1 && rows[0]?.object === value(i, updates - 1)) liveAcc.correct++;
    });
    const summary = (m: Record<string, Samples>) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.summary()]));
    return {
      db: kind,
      subjects,
      updates,
      seconds,
      current: cur,
      live_one_per_subject: liveAcc,
      known_then: knownThen,
      valid_then: validThen,
      calls: summary(samples),
      reads: summary(reads),
    };
  } finally {
    await s.close().catch(() => {});
    await drop();
  }
}

const pct = (a: Accuracy) => `${fmt((100 * a.correct) / a.asked, 1)} % (${a.correct}/${a.asked})`;

export const benchmark: Benchmark = {
  name: "consolidation",
  description: "fact consolidation: serial supersedes per subject; current and as-of reads must be right",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        subjects: { type: "string", default: "20" },
        updates: { type: "string", default: "50" },
        db: { type: "string", default: "sqlite,postgres" },
      },
    });
    const subjects = Number(values.subjects);
    const updates = Number(values.updates);
    const machine = machineInfo();
    const results: Result[] = [];
    for (const kind of String(values.db).split(",") as Kind[]) {
      const r = await runOn(kind, subjects, updates);
      results.push(r);
      log(
        `${kind}: ${subjects * updates} updates in ${fmt(r.seconds, 1)} s; current ${pct(r.current)}, known then ${pct(r.known_then)}, valid then ${pct(r.valid_then)}`,
      );
      if (r.current.correct !== r.current.asked || r.live_one_per_subject.correct !== subjects) {
        process.exitCode = 1;
        log(`${kind}: FAILED — the current value did not come back every time`);
      }
    }
    const md = [
      `# consolidation benchmark (${dateStamp()})`,
      "",
      machineLine(machine),
      "",
      `${subjects} subjects × ${updates} serial updates of one single-valued predicate (\`is\`), interleaved across subjects, each through create_task_or_note → assess_context → extract_candidate_claims → promote_candidate → govern_fact supersede; reads by store.ts trueAtRows. Load average (1 min) at the start: ${machine.load_avg_1m} on ${machine.cpu_cores} cores.`,
      "",
      "## Accuracy",
      "",
      markdownTable(
        [
          "db",
          "current (known now, true now)",
          "one live fact per subject",
          "as known at T_k",
          "true at date k (known now)",
        ],
        results.map((r) => [r.db, pct(r.current), pct(r.live_one_per_subject), pct(r.known_then), pct(r.valid_then)]),
      ),
      "",
      "## Timings (ms)",
      "",
      markdownTable(
        ["db", "call or read", "n", "p50", "p95", "p99"],
        results.flatMap((r) =>
          [...Object.entries(r.calls), ...Object.entries(r.reads).map(([k, v]) => [`read ${k}`, v] as const)].map(
            ([name, l]) => [r.db, name, l.count, fmt(l.p50_ms), fmt(l.p95_ms), fmt(l.p99_ms)],
          ),
        ),
        ["l", "l", "r", "r", "r", "r"],
      ),
      "",
      `Wall time of the updates: ${results.map((r) => `${r.db} ${fmt(r.seconds, 1)} s`).join(", ")}.`,
      "",
      "Command: `npm run bench -- consolidation`",
    ].join("\n");
    const out = writeResults("consolidation", { date: dateStamp(), machine, results }, md);
    log(`wrote ${out.json} and ${out.markdown}`);
  },
};
