import { openDatabase, sql } from "kernel";
import type { ShampooDB } from "../src/store/schema.ts";
const db = await openDatabase<ShampooDB>(process.argv[2] ?? "/tmp/gs/bench.db");
const q = process.argv[3] ?? "ker";
const ts = q.split(" "); const match = ts.map((t, i) => `"${t}"${i === ts.length - 1 && process.env.P ? "*" : ""}`).join(" AND ");
const run = async (label: string, s: ReturnType<typeof sql>) => {
  const t = performance.now();
  const r = await s.execute(db.db);
  console.log(label, (performance.now() - t).toFixed(2), "ms", r.rows.length);
};
for (let i = 0; i < 2; i++) {
await run("count obs", sql`SELECT count(*) FROM shampoo_observations_fts WHERE shampoo_observations_fts MATCH ${match}`);
await run("fts only desc 257", sql`SELECT rowid FROM shampoo_observations_fts WHERE shampoo_observations_fts MATCH ${match} ORDER BY rowid DESC LIMIT 257`);
await run("fts only asc 257", sql`SELECT rowid FROM shampoo_observations_fts WHERE shampoo_observations_fts MATCH ${match} LIMIT 257`);
await run("join obs 257", sql`SELECT o.id, substr(o.content,1,800) FROM shampoo_observations_fts JOIN shampoo_observations o ON o.rid = shampoo_observations_fts.rowid WHERE shampoo_observations_fts MATCH ${match} ORDER BY shampoo_observations_fts.rowid DESC LIMIT 257`);
await run("join obs+ent 257", sql`SELECT o.id, substr(o.content,1,800), e.name FROM shampoo_observations_fts JOIN shampoo_observations o ON o.rid = shampoo_observations_fts.rowid JOIN shampoo_entities e ON e.id = o.entity_id WHERE shampoo_observations_fts MATCH ${match} AND o.status='active' AND e.status='active' AND e.profile='default' AND e.project IS NOT NULL ORDER BY shampoo_observations_fts.rowid DESC LIMIT 257`);
await run("ent fts 65", sql`SELECT e.id FROM shampoo_entities_fts JOIN shampoo_entities e ON e.rid = shampoo_entities_fts.rowid WHERE shampoo_entities_fts MATCH ${match} AND e.status='active' AND e.profile='default' ORDER BY shampoo_entities_fts.rowid DESC LIMIT 65`);
}
const plan = await sql`EXPLAIN QUERY PLAN SELECT o.id, substr(o.content,1,800), e.name FROM shampoo_observations_fts JOIN shampoo_observations o ON o.rid = shampoo_observations_fts.rowid JOIN shampoo_entities e ON e.id = o.entity_id WHERE shampoo_observations_fts MATCH ${match} AND o.status='active' AND e.status='active' AND e.profile='default' AND e.project IS NOT NULL ORDER BY shampoo_observations_fts.rowid DESC LIMIT 257`.execute(db.db);
console.log(plan.rows);
await db.close();
