/**
 * The crash test's victim: opens the database through openShampoo (migrations and all, as
 * `shampoo serve` does) and writes as fast as it can through the tool registry — the same
 * pipeline an MCP call takes (limits → schema → handler → output validation) — until it is
 * killed. Two callers in two profiles, two loops in flight, so transactions interleave and both
 * profiles' clocks move.
 *
 *   writer <db target> <seed>
 *
 * stdout protocol (one line each; stdout to a pipe is synchronous on Linux, so a line the parent
 * has read was written before the kill): "loaded" once its modules are, then — after a line on
 * stdin — "ready" once the database is open and the validators of the tools it calls are
 * compiled, then "call <tool>" as each call starts and "ack <tool> <task id>" after it committed.
 * Any refused or failed call is a bug: it is printed to stderr and the process exits 3.
 */
import type { SessionInfo } from "kernel";
import { rng } from "kernel/rng.ts";
import { type Caller, makeCaller } from "../../src/access/caller.ts";
import { openShampoo } from "../../src/app.ts";

const [target, seedArg] = process.argv.slice(2);
if (!target || !seedArg) {
  process.stderr.write("usage: writer <db> <seed>\n");
  process.exit(2);
}

const random = rng(Number(seedArg));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

const CALLERS: Record<string, Caller> = {
  a: makeCaller({ principal: "crash-a", role: "agent", profile: "default", grants: ["p0", "p1", "p2", ""] }),
  b: makeCaller({ principal: "crash-b", role: "conductor", profile: "other", grants: ["*", ""] }),
};
const PROJECTS = ["p0", "p1", "p2", ""];
const STATUSES = ["not_started", "in_progress", "done"];
const SECTIONS = ["inbox", "today", "next", "someday", "waiting"];
const WORDS = ["draft", "review", "ship", "crash", "kill", "restart", "history", "clock", "ledger", "audit"];

// Loaded: the parent starts each writer while the previous one still runs, so module loading
// overlaps; the database is opened only on "go" (after the previous writer died).
// A parent gone (a test run stopped or killed) stops this writer too, instead of leaving it
// writing on forever as an orphan. Before "go" its closed stdin says so. The write loop never
// yields to I/O (SQLite is synchronous), so each iteration also checks that the parent is alive.
const parent = process.ppid;
process.stdin.on("end", () => process.exit(0));
process.stdout.write("loaded\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));

/**
 * Opens as `shampoo serve` does. On PostgreSQL a migration check can fail when another test drops
 * its schema at that moment (Kysely's introspection evaluates has_schema_privilege over every
 * schema it listed): that is the neighbours' doing, not this test's subject, so it is retried.
 */
async function open(): Promise<Awaited<ReturnType<typeof openShampoo>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openShampoo({
        db: target as string,
        resolveCaller: (session) => CALLERS[session.sessionId] as Caller,
      });
    } catch (e) {
      const message = (e as Error).message;
      if (attempt >= 5 || !/schema "[^"]+" does not exist/.test(message)) throw e;
      process.stderr.write(`writer: open retried after a concurrent schema drop: ${message}\n`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
const shampoo = await open();
const sessions = Object.fromEntries(
  Object.keys(CALLERS).map((k) => [
    k,
    { sessionId: k, transport: "memory", clientInfo: () => undefined, log: async () => {} } as SessionInfo,
  ]),
);

// Tasks from earlier runs get updated too, so a kill can land on any row's update.
const ids: Record<string, string[]> = {};
for (const [k, c] of Object.entries(CALLERS)) {
  const rows = await shampoo.database.db
    .selectFrom("shampoo_tasks")
    .select("id")
    .where("profile", "=", c.profile)
    .execute();
  ids[k] = rows.map((r) => r.id);
}

// The registry compiles a tool's validators at its first call (~100 ms a write tool); done here,
// so the kill window after "ready" falls on writes, not on Ajv compilation.
shampoo.registry.compile(["create_task_or_note", "update_task", "assign_task"]);

process.stdout.write("ready\n");

async function call(who: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  process.stdout.write(`call ${name}\n`);
  const out = await shampoo.registry.call(name, args, shampoo.mcp.context(sessions[who] as SessionInfo));
  if (out.isError) {
    process.stderr.write(`writer: ${name} ${JSON.stringify(args)} failed: ${JSON.stringify(out.structuredContent)}\n`);
    process.exit(3);
  }
  return out.structuredContent;
}

async function loop(): Promise<never> {
  for (let n = 0; ; n++) {
    if (process.ppid !== parent) process.exit(0);
    const who = pick(["a", "b"]);
    const mine = ids[who] as string[];
    const r = random();
    if (mine.length === 0 || r < 0.4) {
      const title = `${pick(WORDS)} ${pick(WORDS)} ${n}`;
      const out = await call(who, "create_task_or_note", {
        title,
        project: pick(PROJECTS),
        section: pick(SECTIONS),
        description: `${title}: ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}`,
        ...(random() < 0.3 ? { due_date: `2026-12-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}` } : {}),
      });
      mine.push(out.task_id as string);
      process.stdout.write(`ack create_task_or_note ${out.task_id}\n`);
    } else if (r < 0.9) {
      const id = pick(mine);
      await call(who, "update_task", {
        task_id: id,
        status: pick(STATUSES),
        notes: `n${n} ${pick(WORDS)}`,
        ...(random() < 0.5 ? { title: `${pick(WORDS)} ${n}` } : {}),
      });
      process.stdout.write(`ack update_task ${id}\n`);
    } else {
      const id = pick(mine);
      await call(who, "assign_task", { task_id: id, assignee: random() < 0.8 ? pick(["ana", "bo", "cy"]) : "" });
      process.stdout.write(`ack assign_task ${id}\n`);
    }
  }
}

await Promise.all([loop(), loop()]);
