/**
 * The size of SHAMPOO's tools/list per tool profile (issue 14 §5) and of `shampoo serve`'s default
 * (no --tools: the default toolsets plus list_toolsets / enable_toolset, issue 22): what a host has
 * to carry in its context before the first call. Measured through the real MCP server over the in-memory linked
 * transport: characters of the JSON-RPC result, and tokens estimated at 4 characters each (the
 * usual rule of thumb for English and JSON; a host's own tokenizer gives somewhat different
 * counts, the ratios between profiles hold).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "kernel";
import { openShampoo } from "shampoo/app.ts";
import { MODULES } from "shampoo/modules.ts";
import { parseProfile } from "shampoo/platform/profiles.ts";
import { DEFAULT_TOOLSETS } from "shampoo/platform/toolsets.ts";
import { type Benchmark, dateStamp, fmt, log, machineInfo, machineLine, markdownTable, writeResults } from "./lib.ts";

/** The spec "default" is `shampoo serve` with no --tools. */
const PROFILES: Array<[string, string]> = [
  ["default (no --tools)", "default"],
  ["all", "all"],
  ["tasks", "tasks"],
  ["graph", "graph"],
  ["links", "links"],
  ["sessions", "sessions"],
  ["governance", "governance"],
  ["reflection", "reflection"],
  ["tasks,sessions", "tasks,sessions"],
  [
    "everyday agent",
    "create_task_or_note,update_task,query_tasks,ready_context,search_nodes,session_save,resume_context",
  ],
];

async function listSize(words: string): Promise<{ tools: number; chars: number }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-profiles-"));
  const s = await openShampoo(
    words === "default"
      ? { db: join(dir, "s.db"), startWith: parseProfile([...DEFAULT_TOOLSETS], MODULES) }
      : { db: join(dir, "s.db"), tools: parseProfile([words], MODULES) },
  );
  try {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createMcpServer(s.mcp, { sessionId: "bench", transport: "memory" }).connect(b);
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(a);
    const result = await client.listTools();
    await client.close();
    return { tools: result.tools.length, chars: JSON.stringify(result).length };
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const benchmark: Benchmark = {
  name: "profiles",
  description: "SHAMPOO tools/list size per tool profile (--tools), characters and estimated tokens",
  async run() {
    const machine = machineInfo();
    const rows: Array<{ profile: string; spec: string; tools: number; chars: number; tokens: number }> = [];
    for (const [profile, spec] of PROFILES) {
      const { tools, chars } = await listSize(spec);
      rows.push({ profile, spec, tools, chars, tokens: Math.round(chars / 4) });
    }
    const all = rows.find((r) => r.spec === "all")?.chars ?? Number.NaN;
    const md = [
      `# SHAMPOO tools/list per tool profile — ${dateStamp()}`,
      "",
      "`shampoo serve --tools <profile>`: the JSON-RPC result of tools/list through the real MCP server",
      `(in-memory transport). Tokens ≈ characters / 4. "default" is \`shampoo serve\` with no --tools: the toolsets`,
      `${DEFAULT_TOOLSETS.join(", ")} and the meta-tools list_toolsets / enable_toolset.`,
      "",
      `Machine: ${machineLine(machine)}.`,
      "",
      markdownTable(
        ["profile", "tools", "characters", "≈ tokens", "vs all"],
        rows.map((r) => [r.profile, r.tools, r.chars, r.tokens, `${fmt(r.chars / all)}×`]),
        ["l", "r", "r", "r", "r"],
      ),
      "",
      `"everyday agent" = ${PROFILES[PROFILES.length - 1]?.[1]}.`,
    ].join("\n");
    log(md);
    const paths = writeResults("profiles", { machine, rows }, md);
    log(`written: ${paths.json}, ${paths.markdown}`);
  },
};
