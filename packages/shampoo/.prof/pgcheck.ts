import { sql } from "kernel";
import { openTestDatabase } from "kernel/store/testing.ts";
import { migrateShampoo } from "../src/app.ts";
import { pgFold, PG_ENTITY_DOC } from "../src/domains/graph/schema.ts";
import type { ShampooDB } from "../src/store/schema.ts";
const db = await openTestDatabase<ShampooDB>("postgres");
try {
  await migrateShampoo(db);
  const idx = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE schemaname = ${db.pgSchema} AND tablename LIKE 'shampoo_%' AND indexname LIKE '%trgm%'`.execute(db.db);
  console.log(idx.rows);
  await sql`SET enable_seqscan = off`.execute(db.db);
  const plan = await sql`EXPLAIN SELECT id FROM shampoo_observations o WHERE ${sql.raw(pgFold("content"))} LIKE '%vend%'`.execute(db.db);
  console.log(plan.rows.map((r) => Object.values(r)[0]).join("\n"));
  const plan2 = await sql`EXPLAIN SELECT id FROM shampoo_entities e WHERE ${sql.raw(pgFold(PG_ENTITY_DOC))} LIKE '%vend%'`.execute(db.db);
  console.log(plan2.rows.map((r) => Object.values(r)[0]).join("\n"));
} finally {
  await db.drop();
}
