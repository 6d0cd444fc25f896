/**
 * `npm run bench -- http [--duration S] [--concurrency N]`: MCP tools/call over Streamable HTTP,
 * SHAMPOO create_task_or_note on PostgreSQL, through one instance and through three instances on
 * one database behind a round-robin balancer (no sticky sessions), in the same run. Every
 * instance runs in this process, so three instances share its event loop: the figure measures
 * what spreading costs (session ids verified by another instance, three connection pools), not
 * what three machines would add. Figures in bench/results/http-*.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpHandle, serveHttp } from "kernel";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import { roundRobin } from "../packages/kernel/test/roundrobin.ts";
import { LIMITS, openShampoo, type Shampoo } from "../packages/shampoo/src/app.ts";
import {
  type Benchmark,
  fmt,
  log,
  machineInfo,
  machineLine,
  markdownTable,
  Samples,
  timedLoop,
  writeResults,
} from "./lib.ts";

const SECRET = "bench instances share this secret, 32+ bytes";

async function measure(instances: number, seconds: number, concurrency: number) {
  const schema = `bench_http_${instances}_${process.pid}_${Date.now()}`;
  const shampoos: Shampoo[] = [];
  for (let i = 0; i < instances; i++) shampoos.push(await openShampoo({ db: PG_URL, pgSchema: schema }));
  const https: HttpHandle[] = await Promise.all(
    shampoos.map((s) =>
      serveHttp({ mcp: s.mcp, port: 0, maxRequestBytes: LIMITS.maxRequestBytes, sessionSecret: SECRET }),
    ),
  );
  const clients: Client[] = [];
  try {
    const urls = https.map((h) => h.url);
    for (let w = 0; w < concurrency; w++) {
      const rr = roundRobin([...urls.slice(w % urls.length), ...urls.slice(0, w % urls.length)]);
      const c = new Client({ name: `bench-${w}`, version: "1" });
      await c.connect(new StreamableHTTPClientTransport(new URL(urls[0] as string), { fetch: rr.fetch }));
      clients.push(c);
    }
    const samples = new Samples();
    let n = 0;
    const loop = await timedLoop({ warmupMs: 1000, measureMs: seconds * 1000, concurrency }, async (measuring, w) => {
      const t = performance.now();
      const r = await (clients[w] as Client).callTool({
        name: "create_task_or_note",
        arguments: { title: `bench ${w} ${n++}`, project: "bench" },
      });
      if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
      if (measuring) samples.add(performance.now() - t);
    });
    return { instances, ...loop, latency: samples.summary() };
  } finally {
    for (const c of clients) await c.close();
    for (const h of https) await h.close();
    for (const s of shampoos) await s.close();
    await dropPgSchema(schema);
  }
}

export const benchmark: Benchmark = {
  name: "http",
  description: "tools/call over Streamable HTTP on PostgreSQL: one instance vs three round-robin",
  async run(argv) {
    const opt = (name: string, dflt: number) => {
      const i = argv.indexOf(`--${name}`);
      return i === -1 ? dflt : Number(argv[i + 1]);
    };
    const seconds = opt("duration", 5);
    const concurrency = opt("concurrency", 6);
    const one = await measure(1, seconds, concurrency);
    const three = await measure(3, seconds, concurrency);
    const rows = [one, three].map((r) => [
      r.instances,
      fmt(r.perSecond, 1),
      fmt(r.latency.p50_ms),
      fmt(r.latency.p99_ms),
    ]);
    const md = [
      "# http: tools/call over Streamable HTTP, SHAMPOO create_task_or_note on PostgreSQL",
      "",
      machineLine(machineInfo()),
      "",
      `${concurrency} clients (2025-era sessions, each call to the next instance), ${seconds} s per configuration.`,
      "",
      markdownTable(["instances", "calls/s", "p50 ms", "p99 ms"], rows, ["r", "r", "r", "r"]),
      "",
      `three / one: ${fmt(three.perSecond / one.perSecond)} × the calls/s (same process, same run).`,
    ].join("\n");
    const paths = writeResults("http", { machine: machineInfo(), concurrency, seconds, one, three }, md);
    log(md);
    log(`wrote ${paths.json} and ${paths.markdown}`);
  },
};
