import { openDatabase, sql } from "kernel";
import { localCaller } from "../src/access/caller.ts";
import { parseQuery } from "../src/domains/graph/model.ts";
import { tsqueryExpr } from "../src/domains/graph/fts.ts";
import { graphScopeOf, visibleSql } from "../src/domains/graph/store.ts";
import type { ShampooDB } from "../src/store/schema.ts";
const db = await openDatabase<ShampooDB>("postgres://postgres@127.0.0.1:5432/test", { pgSchema: "gbench" });
const q = parseQuery(process.argv[2] ?? "bzs");
const s = graphScopeOf(localCaller());
const p = { terms: q.terms, forms: q.forms, prefix: q.prefix };
const obs = sql`EXPLAIN (ANALYZE, BUFFERS) SELECT o.id AS obs_id, o.entity_id, o.ord, substr(o.content, 1, 500) AS head, length(o.content) AS len, e.id, e.name
  FROM shampoo_observations o JOIN shampoo_entities e ON e.id = o.entity_id
  WHERE o.search @@ to_tsquery('simple', ${tsqueryExpr(p)}) AND o.profile = ${s.profile}
  AND o.status = 'active' AND e.status = 'active' AND ${visibleSql("e", s)} LIMIT 129`;
const ent = sql`EXPLAIN (ANALYZE, BUFFERS) SELECT e.id FROM shampoo_entities e WHERE e.search @@ to_tsquery('simple', ${tsqueryExpr(p)}) AND e.status = 'active' AND ${visibleSql("e", s)} LIMIT 49`;
for (const x of [obs, ent]) console.log((await x.execute(db.db)).rows.map((r) => Object.values(r)[0]).join("\n"), "\n----");
await db.close();
