/**
 * Both products as installable npm packages (scripts/pack.mjs, `npm run pack`): the tarballs
 * install into an empty folder outside the repository (npm builds the native SQLite driver as
 * it would for any user) and their bins serve there, over stdio, with real MCP clients: no
 * file of the repository is reachable from that folder.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, TOOL_NAMES } from "./support.ts";

let dir: string;
let tarballs: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "packed-"));
  const { pack } = (await import(join(ROOT, "scripts/pack.mjs"))) as { pack(out: string): string[] };
  tarballs = pack(join(dir, "tarballs"));
  const app = join(dir, "app");
  execFileSync("npm", ["init", "-y"], { cwd: dir, stdio: "ignore" });
  execFileSync("mkdir", ["-p", app]);
  execFileSync("npm", ["init", "-y"], { cwd: app, stdio: "ignore" });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...tarballs], {
    cwd: app,
    stdio: "ignore",
    timeout: 540_000,
  });
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function client(product: string, env: Record<string, string>): Promise<Client> {
  const c = new Client({ name: "pack-test", version: "1" });
  await c.connect(
    new StdioClientTransport({
      command: join(dir, "app/node_modules/.bin", product),
      args: ["serve"],
      cwd: join(dir, "app"),
      env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
      stderr: "ignore",
    }),
  );
  return c;
}

describe("the packed tarballs", () => {
  it("hold the bin, the bundle and the run-time files, and depend on nothing but the native driver", () => {
    expect(tarballs.map((t) => t.split("/").pop())).toEqual(["shampoo-0.1.0.tgz", "scoreia-0.1.0.tgz"]);
    for (const product of ["shampoo", "scoreia"]) {
      const installed = join(dir, "app/node_modules", product);
      const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
      expect(Object.keys(manifest.dependencies)).toEqual(["better-sqlite3"]);
      expect(existsSync(join(installed, "dist/bundle/cli.js"))).toBe(true);
    }
    // no package named "kernel" is fetched: the bins carry their launcher
    expect(existsSync(join(dir, "app/node_modules/kernel"))).toBe(false);
    const version = execFileSync(join(dir, "app/node_modules/.bin/scoreia"), ["--version"], { encoding: "utf8" });
    expect(version.trim()).toBe("scoreia 0.1.0");
  });

  it("shampoo serves from an empty folder: every tool listed, a task written and read back", async () => {
    const c = await client("shampoo", { SHAMPOO_DATA_DIR: join(dir, "shampoo-data") });
    try {
      const { tools } = await c.listTools();
      expect(tools.length).toBeGreaterThan(0);
      // the default toolsets plus the two toolset tools (list_toolsets, enable_toolset)
      const catalog = tools.filter((t) => !["list_toolsets", "enable_toolset"].includes(t.name));
      expect(catalog.map((t) => t.name).filter((n) => !TOOL_NAMES.includes(n))).toEqual([]);
      expect(catalog.length).toBeGreaterThan(20);
      const made = await c.callTool({ name: "create_task_or_note", arguments: { title: "packed hello" } });
      expect(made.isError).toBeFalsy();
      const found = await c.callTool({ name: "find_by_title", arguments: { title_fragment: "packed hello" } });
      expect(JSON.stringify(found.structuredContent)).toContain("packed hello");
    } finally {
      await c.close();
    }
  });

  it("scoreia serves from an empty folder: its five tools, an attempt entered and sealed", async () => {
    const c = await client("scoreia", { SCOREIA_DATA_DIR: join(dir, "scoreia-data") });
    try {
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          "enter_open_challenge",
          "observe_chamber",
          "chamber_action",
          "call_for_help",
          "seal_attempt",
        ]),
      );
      const entered = await c.callTool({
        name: "enter_open_challenge",
        arguments: { provider_claim: "unknown", model_claim: "unknown", product: "unknown", host: "pack-test" },
      });
      const handle = (entered.structuredContent as { attempt_handle: string }).attempt_handle;
      expect(handle).toMatch(/^chl-[0-9a-f]{16}$/);
      const sealed = await c.callTool({ name: "seal_attempt", arguments: { challenge_handle: handle } });
      expect((sealed.structuredContent as { card_id?: string }).card_id).toMatch(/\S/);
    } finally {
      await c.close();
    }
  });
});
