import { openDatabase, sql } from "kernel";
import { localCaller } from "../src/access/caller.ts";
import { entityHits, firstObservations, observationHits, neighbours } from "../src/domains/graph/fts.ts";
import { parseQuery } from "../src/domains/graph/model.ts";
import { graphScopeOf } from "../src/domains/graph/store.ts";
import type { ShampooDB } from "../src/store/schema.ts";
const db = await openDatabase<ShampooDB>(process.argv[2] ?? "/tmp/gs/bench.db", process.argv[2]?.startsWith("postgres") ? { pgSchema: "gbench" } : {});
const q = parseQuery(process.argv[3] ?? "bzs");
const s = graphScopeOf(localCaller());
const time = async <T>(label: string, f: () => Promise<T>) => {
  const t = performance.now();
  const r = await f();
  console.log(label, (performance.now() - t).toFixed(2), "ms", Array.isArray(r) ? r.length : "");
  return r;
};
for (let i = 0; i < 2; i++) {
  const p = { terms: q.terms, forms: q.forms, prefix: q.prefix };
  const e = await time("entityHits", () => entityHits(db.db, db.dialect, s, p, 65));
  const o = await time("observationHits", () => observationHits(db.db, db.dialect, s, p, 257));
  const ids = [...new Set([...e.map((x) => x.id), ...o.map((x) => x.entity_id)])].slice(0, 48);
  await time("neighbours", () => neighbours(db.db, s, ids.slice(0, 8), 64));
  await time("firstObservations", () => firstObservations(db.db, ids, 2));
}
await db.close();
