import { openDatabase } from "kernel";
import { localCaller } from "../src/access/caller.ts";
import { entityHits, firstObservations, observationHits } from "../src/domains/graph/fts.ts";
import { parseQuery } from "../src/domains/graph/model.ts";
import { graphScopeOf } from "../src/domains/graph/store.ts";
import type { ShampooDB } from "../src/store/schema.ts";
import { queries } from "./build.ts";
const db = await openDatabase<ShampooDB>("/tmp/gs/bench.db");
const s = graphScopeOf(localCaller());
const acc: Record<string, number[]> = {};
const time = async <T>(label: string, f: () => Promise<T>) => {
  const t = performance.now();
  const r = await f();
  (acc[label] ??= []).push(performance.now() - t);
  return r;
};
for (const raw of queries(400)) {
  const q = parseQuery(raw);
  const p = { terms: q.terms, forms: q.forms, prefix: q.prefix };
  const e = await time("ent-all", () => entityHits(db.db, "sqlite", s, p, 49));
  const o = await time("obs-all", () => observationHits(db.db, "sqlite", s, p, 129));
  const found = new Set([...e.map((x) => x.id), ...o.map((x) => x.entity_id)]);
  if (q.terms.length > 1 && found.size < 48) {
    for (const t of q.terms) {
      const pt = { terms: [t], forms: q.forms, prefix: q.prefix };
      const e2 = await time("ent-term", () => entityHits(db.db, "sqlite", s, pt, 9));
      const o2 = await time("obs-term", () => observationHits(db.db, "sqlite", s, pt, 25));
      for (const x of e2) found.add(x.id);
      for (const x of o2) found.add(x.entity_id);
    }
  }
  await time("firstObs", () => firstObservations(db.db, "sqlite", [...found].slice(0, 48), 2));
}
for (const [k, v] of Object.entries(acc)) {
  v.sort((a, b) => a - b);
  console.log(k.padEnd(10), "n", v.length, "sum", v.reduce((a, b) => a + b, 0).toFixed(0), "p50", v[Math.floor(v.length / 2)]?.toFixed(2), "p95", v[Math.floor(v.length * 0.95)]?.toFixed(2), "max", v.at(-1)?.toFixed(2));
}
await db.close();
