import { openDatabase, sql } from "kernel";
import { localCaller } from "../src/access/caller.ts";
import { parseQuery } from "../src/domains/graph/model.ts";
import { tsqueryExpr } from "../src/domains/graph/fts.ts";
import { graphScopeOf, visibleSql } from "../src/domains/graph/store.ts";
import type { ShampooDB } from "../src/store/schema.ts";
import { queries } from "./build.ts";
const db = await openDatabase<ShampooDB>("postgres://postgres@127.0.0.1:5432/test", { pgSchema: "gbench" });
const s = graphScopeOf(localCaller());
const variants: Record<string, (p: any) => any> = {
  plain: (p) => sql`SELECT o.id, o.entity_id FROM shampoo_observations o JOIN shampoo_entities e ON e.id = o.entity_id
    WHERE o.search @@ to_tsquery('simple', ${tsqueryExpr(p)}) AND o.profile = ${s.profile} AND o.status = 'active' AND e.status = 'active' AND ${visibleSql("e", s)} LIMIT 129`,
  desc: (p) => sql`SELECT o.id, o.entity_id FROM shampoo_observations o JOIN shampoo_entities e ON e.id = o.entity_id
    WHERE o.search @@ to_tsquery('simple', ${tsqueryExpr(p)}) AND o.profile = ${s.profile} AND o.status = 'active' AND e.status = 'active' AND ${visibleSql("e", s)} ORDER BY o.rid DESC LIMIT 129`,
};
const qs = queries(200);
for (const [name, v] of Object.entries(variants)) {
  const times: number[] = [];
  for (const raw of qs) {
    const q = parseQuery(raw);
    for (const t of q.terms.length > 1 ? [q.terms, ...q.terms.map((x) => [x])] : [q.terms]) {
      const p = { terms: t, forms: q.forms, prefix: q.prefix };
      const t0 = performance.now();
      await v(p).execute(db.db);
      times.push(performance.now() - t0);
    }
  }
  times.sort((a, b) => a - b);
  console.log(name, "n", times.length, "sum", times.reduce((a, b) => a + b, 0).toFixed(0), "p50", times[times.length >> 1]?.toFixed(2), "p95", times[Math.floor(times.length * 0.95)]?.toFixed(2));
}
await db.close();
