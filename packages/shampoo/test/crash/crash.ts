/**
 * The crash test, per dialect: a writer killed with SIGKILL at random moments (seeded 20–200 ms
 * after it opened the database), restarted `runs` times (default RUNS) on the same database; then the history
 * invariants (invariants.ts) must hold, every acknowledged write must be there, and the database
 * must open and take a write as if nothing happened.
 */
import type { SessionInfo } from "kernel";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openShampoo } from "../../src/app.ts";
import { checkInvariants } from "./invariants.ts";
import { ackedIds, type Bundle, bundleWriter, type CrashSummary, crashLoop, stopAllWriters } from "./support.ts";

/** Restarts per engine: 50 on SQLite (the file is what crashes); fewer on PostgreSQL, where each
 * start costs more (connections, schema, migration lock) and the server, not the file, recovers. */
export const RUNS = 50;
/** Two loops in the writer: at most one call each in flight when the kill lands. */
const IN_FLIGHT = 2;

export interface Target {
  /** What the writer and the checks open (file path or postgres URL with ?schema=). */
  target: string;
  /** Extra checks only this engine can make (SQLite: integrity_check, FTS). */
  engineChecks?(): Promise<void>;
  drop(): Promise<void>;
}

export function crashSuite(name: string, seed: number, open: () => Promise<Target>, runs = RUNS): void {
  let bundle: Bundle;
  let t: Target;
  let summary: CrashSummary;

  beforeAll(async () => {
    bundle = await bundleWriter();
    t = await open();
  });

  afterAll(async () => {
    stopAllWriters();
    bundle?.remove();
    await t?.drop();
  });

  it(`${name}: ${runs} writers killed with SIGKILL at random moments, restarted each time`, {
    // A scenario, not a speed check: 50 process starts take 45 s on an idle 2-core machine here and
    // more when the suite runs beside it.
    timeout: 240_000,
  }, async () => {
    summary = await crashLoop({ bundle: bundle.file, target: t.target, runs: runs, seed });
    expect(summary.runs).toHaveLength(runs);
    // The kills landed while writing: most died inside a call (one had started and not been
    // acknowledged), and writes were acknowledged along the way.
    expect(summary.acked.length).toBeGreaterThan(runs);
    const inCall = summary.runs.filter((r) => r.killedInCall).length;
    expect(inCall).toBeGreaterThan(runs / 2);
    process.stderr.write(
      `${name} crash loop: ${runs} kills in ${(summary.elapsedMs / 1000).toFixed(1)} s, ${inCall} inside a call, ${summary.acked.length} acknowledged writes\n`,
    );
  });

  it(`${name}: no task without its history event, no event without its change, clocks without gaps`, async () => {
    const s = await openShampoo({ db: t.target });
    try {
      const report = await checkInvariants(s.database.db);
      expect(report.problems).toEqual([]);
      expect(report.unchecked).toEqual({});
      expect(Object.keys(report.profiles).sort()).toEqual(["default", "other"]);

      // Durability: every acknowledged create is there; every acknowledged call left its event, and
      // at most the calls in flight at each kill committed without being acknowledged.
      const created = ackedIds(summary, "create_task_or_note");
      const rows = await s.database.db.selectFrom("shampoo_tasks").select("id").execute();
      const present = new Set(rows.map((r) => r.id));
      expect([...created].filter((id) => !present.has(id))).toEqual([]);
      expect(report.tasks).toBeGreaterThanOrEqual(created.size);
      expect(report.tasks).toBeLessThanOrEqual(created.size + IN_FLIGHT * runs);
      expect(report.events).toBeGreaterThanOrEqual(summary.acked.length);
      expect(report.events).toBeLessThanOrEqual(summary.acked.length + IN_FLIGHT * runs);

      await t.engineChecks?.();

      // And it still works: one more write through the registry after all those kills.
      const session = { sessionId: "after", transport: "memory", clientInfo: () => undefined, log: async () => {} };
      const out = await s.registry.call(
        "create_task_or_note",
        { title: "after the crashes" },
        s.mcp.context(session as SessionInfo),
      );
      expect(out.isError).toBeUndefined();
      expect((await checkInvariants(s.database.db)).problems).toEqual([]);
    } finally {
      await s.close();
    }
  });
}
