/**
 * Cold start over stdio, side by side with the reference memory server (issue 14 §2: within
 * 1.5× of @modelcontextprotocol/server-memory): the time from spawning a server, as an MCP host
 * does, to its answer to `initialize`. Raw JSON-RPC lines on the pipes (no client library in the
 * measured path). Each round starts every server once, in an order that rotates, so load on the
 * machine falls on all of them alike; the figure is the median of the rounds, and the ratio is
 * against the reference's median of the same run.
 *
 * Servers: `shampoo serve` and `scoreia serve` (the bins: the esbuild bundle in dist/bundle/),
 * the reference (`node …/server-memory/dist/index.js`), and, for comparison, `shampoo serve` from
 * the per-file dist/ (what the bin ran before the bundle) and from its TypeScript sources through
 * tsx (what it ran before dist/). Every server gets its own
 * temporary data, created by one start before the rounds (the rounds open an existing database,
 * as a host's every start after the first does); the first start on a fresh database is reported
 * too.
 *
 *   npm run bench -- startup [--rounds N]   (default 15)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  BENCH_DIR,
  type Benchmark,
  dateStamp,
  fmt,
  log,
  machineInfo,
  machineLine,
  markdownTable,
  now,
  onCleanup,
  summarize,
  writeResults,
} from "./lib.ts";

const ROOT = join(BENCH_DIR, "..");
const require = createRequire(import.meta.url);
const REFERENCE = join(
  dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")),
  "dist",
  "index.js",
);
const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench-startup", version: "1" } },
})}\n`;

interface Server {
  name: string;
  note: string;
  /** argv after `node`, and extra environment, for a server keeping its data in `dir`. */
  command(dir: string): { args: string[]; env?: Record<string, string> };
}

const SERVERS: Server[] = [
  {
    name: "reference memory server",
    note: "@modelcontextprotocol/server-memory, MEMORY_FILE_PATH in a temp dir",
    command: (dir) => ({ args: [REFERENCE], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } }),
  },
  {
    name: "shampoo serve",
    note: "bin → dist/bundle/ (esbuild), SQLite file in a temp dir",
    command: (dir) => ({ args: [join(ROOT, "packages/shampoo/bin/shampoo.mjs"), "serve", "--db", join(dir, "s.db")] }),
  },
  {
    name: "scoreia serve",
    note: "bin → dist/bundle/ (esbuild), SQLite file and keys in a temp dir",
    command: (dir) => ({
      args: [join(ROOT, "packages/scoreia/bin/scoreia.mjs"), "serve", "--data-dir", dir, "--db", join(dir, "c.db")],
    }),
  },
  {
    name: "shampoo serve, per-file dist/",
    note: "the previous bin: src/ compiled file by file to dist/, loaded module by module",
    command: (dir) => {
      const entry = join(dir, "dist-entry.mjs");
      writeFileSync(
        entry,
        `const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "packages/shampoo/dist/cli.js")).href)});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
      );
      return { args: [entry, "serve", "--db", join(dir, "s.db")] };
    },
  },
  {
    name: "shampoo serve via tsx (sources)",
    note: "the bin before dist/: TypeScript sources through tsx's loader",
    command: (dir) => {
      const entry = join(dir, "tsx-entry.mjs");
      writeFileSync(
        entry,
        `import { register } from ${JSON.stringify(import.meta.resolve("tsx/esm/api"))};\nregister();\nconst { main } = await import(${JSON.stringify(join(ROOT, "packages/shampoo/src/cli.ts"))});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
      );
      return {
        args: ["--conditions=scoreia-shampoo-source", entry, "serve", "--db", join(dir, "s.db")],
      };
    },
  },
];

/** Milliseconds from spawn to the `initialize` answer on stdout; the server is then stopped. */
async function startOnce(server: Server, dir: string): Promise<number> {
  const { args, env } = server.command(dir);
  const t0 = now();
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    return await new Promise<number>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`${server.name}: no initialize answer in 30 s\n${err}`)), 30_000);
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString("utf8");
        const nl = out.indexOf("\n");
        if (nl === -1) return;
        const ms = now() - t0;
        clearTimeout(timer);
        const answer = JSON.parse(out.slice(0, nl)) as { id?: number; result?: unknown };
        if (answer.id !== 1 || !answer.result) reject(new Error(`${server.name}: unexpected answer ${out}`));
        else resolve(ms);
      });
      child.once("exit", (code) => reject(new Error(`${server.name} exited (${code}) before answering\n${err}`)));
      child.stdin.write(INITIALIZE);
    });
  } finally {
    // Closing stdin is how a host stops a stdio server; SIGKILL if it lingers.
    child.stdin.end();
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(force);
  }
}

export const benchmark: Benchmark = {
  name: "startup",
  description: "cold start over stdio (spawn → initialize answer): shampoo, scoreia, the reference memory server",
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { rounds: { type: "string" } }, strict: true });
    const rounds = Number(values.rounds ?? 15);
    if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer`);
    const root = mkdtempSync(join(tmpdir(), "bench-startup-"));
    const cleanup = onCleanup(async () => rmSync(root, { recursive: true, force: true }));
    try {
      const dirs = SERVERS.map((_, i) => mkdtempSync(join(root, `s${i}-`)));
      const first: number[] = [];
      for (const [i, s] of SERVERS.entries()) first.push(await startOnce(s, dirs[i] as string));
      const samples: number[][] = SERVERS.map(() => []);
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k < SERVERS.length; k++) {
          const i = (r + k) % SERVERS.length;
          samples[i]?.push(await startOnce(SERVERS[i] as Server, dirs[i] as string));
        }
      }
      const summaries = samples.map((s) => summarize(Float64Array.from(s)));
      const ref = summaries[0]?.p50_ms ?? Number.NaN;
      const machine = machineInfo();
      const rows = SERVERS.map((s, i) => {
        const m = summaries[i];
        return [
          s.name,
          fmt(first[i] ?? Number.NaN, 0),
          fmt(m?.p50_ms ?? 0, 0),
          fmt(m?.p95_ms ?? 0, 0),
          `${fmt((m?.p50_ms ?? 0) / ref)}×`,
        ];
      });
      const table = markdownTable(["server", "first start ms", "p50 ms", "p95 ms", "p50 vs reference"], rows, [
        "l",
        "r",
        "r",
        "r",
        "r",
      ]);
      const goal = (i: number) =>
        (summaries[i]?.p50_ms ?? Number.POSITIVE_INFINITY) / ref <= 1.5 ? "meets" : "MISSES";
      const markdown = [
        `# Cold start over stdio — ${dateStamp()}`,
        "",
        `Spawn → answer to \`initialize\`, ${rounds} rounds (every server once per round, rotating order), on an`,
        'existing database; "first start" is the one start on a fresh database (migrations included).',
        "",
        `Machine: ${machineLine(machine)}; load average ${machine.load_avg_1m}.`,
        "",
        table,
        "",
        ...SERVERS.map((s) => `- ${s.name}: ${s.note}`),
        "",
        `Goal: within 1.5× of the reference — shampoo ${goal(1)}, scoreia ${goal(2)}.`,
      ].join("\n");
      const paths = writeResults(
        "startup",
        {
          date: dateStamp(),
          machine,
          rounds,
          servers: SERVERS.map((s, i) => ({ name: s.name, note: s.note, first_ms: first[i], ...summaries[i] })),
        },
        markdown,
      );
      log(markdown);
      log(`\nwrote ${paths.json} and ${paths.markdown}`);
    } finally {
      await cleanup();
    }
  },
};
