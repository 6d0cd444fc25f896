/**
 * Benchmark runner: `npm run bench` runs every benchmark; `npm run bench -- chamber [options]`
 * runs the named ones, passing the options (everything from the first `--flag` on) through.
 * Add a benchmark by writing bench/<name>.ts exporting `benchmark: Benchmark` and listing it here.
 */
import type { Benchmark } from "./lib.ts";

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  chamber: async () => (await import("./chamber.ts")).benchmark,
  codex: async () => (await import("./codex.ts")).benchmark,
  consolidation: async () => (await import("./consolidation.ts")).benchmark,
  enrich: async () => (await import("./enrich.ts")).benchmark,
  evidence: async () => (await import("./evidence.ts")).benchmark,
  graph: async () => (await import("./graph.ts")).benchmark,
  http: async () => (await import("./http.ts")).benchmark,
  profiles: async () => (await import("./profiles.ts")).benchmark,
  reflection: async () => (await import("./reflection.ts")).benchmark,
  shampoo: async () => (await import("./shampoo.ts")).benchmark,
  startup: async () => (await import("./startup.ts")).benchmark,
  "task-writes": async () => (await import("./task-writes.ts")).benchmark,
};

async function main(argv: string[]): Promise<void> {
  const firstFlag = argv.findIndex((a) => a.startsWith("-"));
  const names = firstFlag === -1 ? argv : argv.slice(0, firstFlag);
  const options = firstFlag === -1 ? [] : argv.slice(firstFlag);
  if (options.includes("--help") || options.includes("-h")) {
    const lines = await Promise.all(
      Object.entries(BENCHMARKS).map(async ([n, load]) => `  ${n.padEnd(12)} ${(await load()).description}`),
    );
    process.stdout.write(`usage: npm run bench -- [name ...] [options]\n\nbenchmarks:\n${lines.join("\n")}\n`);
    return;
  }
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length) {
    throw new Error(`unknown benchmark ${unknown.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}`);
  }
  for (const name of names.length ? names : Object.keys(BENCHMARKS)) {
    const bench = await (BENCHMARKS[name] as () => Promise<Benchmark>)();
    await bench.run(options);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
