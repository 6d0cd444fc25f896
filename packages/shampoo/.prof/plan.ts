import { openDatabase, sql } from "kernel";
import type { ShampooDB } from "../src/store/schema.ts";
const db = await openDatabase<ShampooDB>("/tmp/gs/bench.db");
const ids = (await sql<{ id: string }>`SELECT id FROM shampoo_entities LIMIT 48 OFFSET 5000`.execute(db.db)).rows.map((r) => r.id);
const q = (x: ReturnType<typeof sql>) => x;
const a = q(sql`SELECT entity_id, obs_id, ord, head, len FROM (
      SELECT o.entity_id, o.id AS obs_id, o.ord, substr(o.content, 1, 500) AS head, length(o.content) AS len,
        row_number() OVER (PARTITION BY o.entity_id ORDER BY o.ord) AS rn
      FROM shampoo_observations o
      WHERE o.entity_id IN (${sql.join(ids)}) AND o.status = 'active'
    ) x WHERE x.rn <= 2 ORDER BY x.entity_id, x.ord`);
console.log((await sql`EXPLAIN QUERY PLAN ${a}`.execute(db.db)).rows.map((r: any) => r.detail));
for (let i = 0; i < 5; i++) { const t = performance.now(); await a.execute(db.db); console.log((performance.now() - t).toFixed(2)); }
await db.close();
