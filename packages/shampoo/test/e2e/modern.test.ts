import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { openDatabase } from "kernel";
import { afterAll, describe, expect, it } from "vitest";
import type { ShampooDB } from "../../src/store/schema.ts";
import { checkInvariants } from "../crash/invariants.ts";
import {
  BIN,
  callEveryTool,
  handoffSession,
  newToken,
  ROOT,
  Session,
  startHttp,
  TOOL_NAMES,
  tempDir,
  writeConfig,
} from "./support.ts";

/**
 * The SDK v2 client pinned to 2026-07-28 (no initialize, no session: every request carries its
 * version and client info in `_meta`) on the real binary, over stdio and over Streamable HTTP
 * with a bearer token: a working session whose calls build on each other, and every tool.
 */
const tmp = tempDir("modern");
afterAll(() => tmp.remove());

const client = () =>
  new ModernClient({ name: "modern-e2e", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });

/** Who wrote each history row of `file`, and whether the history keeps every invariant. */
async function historyOf(file: string): Promise<{ principals: Set<string>; problems: unknown[] }> {
  const db = await openDatabase<ShampooDB>(file);
  try {
    const rows = await db.db.selectFrom("shampoo_history").select("principal").execute();
    return { principals: new Set(rows.map((r) => r.principal)), problems: (await checkInvariants(db.db)).problems };
  } finally {
    await db.close();
  }
}

describe("a 2026-07-28 client on the real binary", () => {
  it("over stdio: a handoff session, then every registered tool, as the local principal with the suite's grant", async () => {
    const file = join(tmp.dir, "stdio.db");
    const c = client();
    await c.connect(
      new ModernStdio({
        command: process.execPath,
        // the local principal plus the suite's project: star never originates quorums, lanes or jobs
        args: [BIN, "serve", "--tools", "all", "--db", file, "--grants", "*,,modern-stdio-all"],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    try {
      const s = await Session.open(c as unknown as Client);
      await handoffSession((tool, args) => s.sc(tool, args), "modern-stdio");
      const results = await callEveryTool(s, "modern-stdio-all");
      expect([...results.keys()]).toEqual(TOOL_NAMES);
    } finally {
      await c.close();
    }
    const history = await historyOf(file);
    expect(history.problems).toEqual([]);
    expect(history.principals).toEqual(new Set(["local"]));
  });

  it("over Streamable HTTP: the caller is the request's bearer token; without one, 401", async () => {
    const file = join(tmp.dir, "http.db");
    const token = newToken();
    // conductor: every tool is called, the auth registry's conductor-only ones included
    const config = writeConfig(tmp.dir, [{ token, principal: "ada", role: "conductor", grants: ["modern-http", ""] }]);
    const server = await startHttp(["--db", file, "--config", config]);
    const c = client();
    try {
      await c.connect(
        new ModernHttp(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const s = await Session.open(c as unknown as Client);
      await handoffSession((tool, args) => s.sc(tool, args), "modern-http");
      // Another project is outside ada's grants: refused as a tool result, not a protocol error.
      const outside = await s.call("create_task_or_note", { title: "not mine", project: "elsewhere" });
      expect(outside.isError).toBe(true);

      const anonymous = client();
      await expect(anonymous.connect(new ModernHttp(new URL(server.url)))).rejects.toThrow(/401|Unauthorized/);
    } finally {
      await c.close();
      await server.stop();
    }
    const history = await historyOf(file);
    expect(history.problems).toEqual([]);
    expect(history.principals).toEqual(new Set(["ada"]));
  });
});
