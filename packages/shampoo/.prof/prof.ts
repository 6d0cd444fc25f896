import { existsSync } from "node:fs";
import { ManualClock, openDatabase, sql } from "kernel";
import { localCaller } from "../src/access/caller.ts";
import { migrateShampoo, shampooOn } from "../src/app.ts";
import type { ShampooCtx } from "../src/context.ts";
import type { ShampooDB } from "../src/store/schema.ts";

const target = process.argv[2] ?? "/tmp/gs/bench.db";
const fresh = target.startsWith("postgres") ? process.argv[3] === "build" : !existsSync(target);
const db = await openDatabase<ShampooDB>(target, target.startsWith("postgres") ? { pgSchema: "gbench" } : {});
if (fresh) {
  await migrateShampoo(db);
  const { buildCorpus } = await import("./build.ts");
  const t = performance.now();
  await buildCorpus(db, Number(process.env.N ?? 100000));
  if (db.dialect === "postgres") await sql`ANALYZE`.execute(db.db);
  console.log("built in", ((performance.now() - t) / 1000).toFixed(1), "s");
}
const shampoo = shampooOn(db, { clock: new ManualClock() });
const ctx: ShampooCtx = { caller: localCaller(), source: { tool: "" }, clock: new ManualClock(), database: db };
const { queries } = await import("./build.ts");
const qs = queries(400);
for (const q of qs.slice(0, 30)) await shampoo.registry.call("search_nodes", { query: q }, ctx);
for (let round = 0; round < Number(process.env.ROUNDS ?? 1); round++) {
const times: [number, string][] = [];
const cpu: number[] = [];
for (const q of qs) {
  const t = performance.now();
  const c = process.cpuUsage();
  await shampoo.registry.call("search_nodes", { query: q }, ctx);
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
  times.push([performance.now() - t, q]);
}
cpu.sort((a, b) => a - b);
console.log("cpu p50", cpu[Math.floor(cpu.length * 0.5)]?.toFixed(2), "p95", cpu[Math.floor(cpu.length * 0.95)]?.toFixed(2), "p99", cpu[Math.floor(cpu.length * 0.99)]?.toFixed(2));
times.sort((a, b) => a[0] - b[0]);
const p = (x: number) => times[Math.floor(times.length * x)]?.[0].toFixed(2);
console.log("p50", p(0.5), "p95", p(0.95), "max", times.at(-1)?.[0].toFixed(2));
console.log(times.slice(-3).map(([t, q]) => `${t.toFixed(1)} ${q}`).join("\n"));
}
await db.close();
