/**
 * The real binary's default tool list (issue 22): `shampoo serve` with no flag lists at most 40
 * tools in at most 50,000 characters of tools/list, and a session widens it with enable_toolset,
 * announced by notifications/tools/list_changed; `--tools all` lists every tool.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { MODULES } from "../../src/modules.ts";
import { parseProfile } from "../../src/platform/profiles.ts";
import { DEFAULT_TOOLSETS } from "../../src/platform/toolsets.ts";
import { BIN, ROOT, TOOL_NAMES, tempDir } from "./support.ts";

const tmp = tempDir("toolsets");
afterAll(() => tmp.remove());

async function serve(args: string[]): Promise<{ client: Client; changed: () => number; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "serve", "--db", `${tmp.dir}/t.db`, ...args],
    cwd: ROOT,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const client = new Client({ name: "toolsets-e2e", version: "1" });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed++;
  });
  await client.connect(transport);
  return { client, changed: () => changed, stderr: () => err };
}

describe("shampoo serve's default toolsets (stdio, the real binary)", () => {
  it("no flag: at most 40 tools and 50,000 characters; enable_toolset widens the session", async () => {
    const { client, changed, stderr } = await serve([]);
    try {
      const list = await client.listTools();
      const chars = JSON.stringify(list).length;
      console.info(`shampoo serve (no flag) tools/list: ${list.tools.length} tools, ${chars} characters`);
      expect(list.tools.length).toBeLessThanOrEqual(40);
      expect(chars).toBeLessThanOrEqual(50_000);
      const everyday = parseProfile([...DEFAULT_TOOLSETS], MODULES);
      expect(list.tools.map((t) => t.name)).toEqual([
        "list_toolsets",
        "enable_toolset",
        ...TOOL_NAMES.filter((n) => everyday.has(n)),
      ]);
      expect(stderr()).toContain("tools: toolsets tasks, graph, sessions on");
      expect(stderr()).toContain("--tools all");

      await expect(client.callTool({ name: "reflect_history", arguments: {} })).rejects.toMatchObject({ code: -32602 });
      const on = await client.callTool({ name: "enable_toolset", arguments: { toolset: "reflection" } });
      expect(on.isError).toBeFalsy();
      await expect.poll(changed).toBe(1);
      const wider = (await client.listTools()).tools.map((t) => t.name);
      expect(wider).toContain("reflect_history");
      expect(wider.length).toBe(list.tools.length + parseProfile(["reflection"], MODULES).size);
      const history = await client.callTool({ name: "reflect_history", arguments: {} });
      expect(history.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("--tools all: every registered tool, no meta-tool", async () => {
    const { client } = await serve(["--tools", "all"]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    } finally {
      await client.close();
    }
  });
});
