// Claims per second: job_claim + job_complete through the registry (validation, history,
// fencing, one write each) against a raw loop of the same two statements with no history, on a
// fresh database of each engine. Not a test: `npx tsx --conditions=scoreia-shampoo-source
// packages/shampoo/test/coordination/bench-claims.ts [N]` prints one line per engine.
import { randomUUID } from "node:crypto";
import { type DialectName, iso, sql } from "kernel";
import { openTestDatabase } from "kernel/store/testing.ts";
import { makeCaller } from "../../src/access/caller.ts";
import { migrateShampoo, shampooOn } from "../../src/app.ts";
import type { ShampooDB } from "../../src/store/schema.ts";

const N = Number(process.argv[2] ?? 500);

async function bench(dialect: DialectName): Promise<string> {
  const db = await openTestDatabase<ShampooDB>(dialect);
  try {
    await migrateShampoo(db);
    const caller = makeCaller({ principal: "b", role: "conductor", profile: "default", grants: ["bench"] });
    const s = shampooOn(db, { resolveCaller: () => caller });
    const ctx = s.mcp.context({
      sessionId: "b",
      transport: "memory",
      clientInfo: () => undefined,
      log: async () => {},
    });
    for (let i = 0; i < 2 * N; i++)
      await s.registry.call("job_create", { kind: i < N ? "tool" : "raw", project: "bench" }, ctx);
    let t = performance.now();
    for (let i = 0; i < N; i++) {
      const c = (await s.registry.call("job_claim", { kind: "tool", lease_seconds: 60 }, ctx))
        .structuredContent as Record<string, unknown>;
      await s.registry.call("job_complete", { job_id: c.job_id, outcome: "completed", fence: c.fence }, ctx);
    }
    const tool = N / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let i = 0; i < N; i++) {
      const now = Date.now();
      const id = await db.db.transaction().execute(async (trx) => {
        const r = await sql<{ id: string }>`UPDATE shampoo_jobs SET state = 'claimed', owner = 'b', fence = fence + 1,
          lease_until_ms = ${now + 60_000}, attempts = attempts + 1, updated_at = ${iso(now)}, last_event_id = ${randomUUID()}
          WHERE id = (SELECT id FROM shampoo_jobs WHERE profile = 'default' AND kind = 'raw' AND state = 'queued'
            ORDER BY created_at, id LIMIT 1) RETURNING id`.execute(trx);
        return r.rows[0]?.id;
      });
      await db.db
        .transaction()
        .execute((trx) =>
          sql`UPDATE shampoo_jobs SET state = 'completed' WHERE id = ${id} AND state = 'claimed'`.execute(trx),
        );
    }
    const raw = N / ((performance.now() - t) / 1000);
    return `${dialect}: ${N} claim+complete pairs — tools ${tool.toFixed(0)}/s, raw SQL loop ${raw.toFixed(0)}/s (${(raw / tool).toFixed(1)}x)`;
  } finally {
    await db.drop();
  }
}

for (const d of ["sqlite", "postgres"] as const) console.log(await bench(d));
