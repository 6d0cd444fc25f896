/**
 * The real binary over stdio, as an MCP host launches it (`scoreia serve`), driven by the SDK
 * client: a full solved attempt on each suite, the unknown-tool JSON-RPC error and the 0.2.0
 * alias.
 */
import { join } from "node:path";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOOLSET_0_3_0 } from "../../src/contract/index.ts";
import {
  CANONICAL_TOOLS,
  checkCardAtRest,
  expectAllValidated,
  fullAttempt,
  HANDLE,
  IDENTITY,
  readSqliteCard,
  type StdioServer,
  SUITE_IDS,
  startStdio,
  tempDir,
} from "./support.ts";

const tmp = tempDir("stdio");
const dbFile = join(tmp.dir, "c.db");
let server: StdioServer;

beforeAll(async () => {
  server = await startStdio(["--db", dbFile, "--data-dir", tmp.dir], "scoreia-e2e-stdio");
});

afterAll(async () => {
  const gone = await server?.stop();
  tmp.remove();
  expect(gone, "the server process is gone after stdin closes").toBe(true);
});

describe("scoreia serve (stdio)", () => {
  it("says where its database is on stderr, keeping stdout for the protocol", async () => {
    // stderr is pino JSON lines: the banner names the database in its message and as a field
    await vi.waitFor(() => expect(server.stderr()).toContain("serving MCP over stdio"));
    const banner = server
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => String(l.msg).startsWith("serving MCP over stdio"));
    expect(banner).toMatchObject({
      level: "info",
      database: dbFile,
      msg: `serving MCP over stdio, database ${dbFile}`,
    });
  });

  it("lists exactly the five canonical tools, each with input and output schemas", () => {
    expect(server.session.tools.map((t) => t.name)).toEqual([...CANONICAL_TOOLS]);
    for (const t of server.session.tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
    }
  });

  for (const [i, suite] of SUITE_IDS.entries()) {
    it(`runs a full attempt on ${suite} to a signed, solved card`, async () => {
      const seed = `e2e-stdio-${i}`;
      const out = await fullAttempt(server.session, suite, seed);
      const body = checkCardAtRest(readSqliteCard(dbFile, out.cardId), tmp.dir, {
        handle: out.handle,
        suite,
        seed,
        actions: out.actions,
      });
      expect(body.observed_client).toEqual({ name: "scoreia-e2e-stdio", version: "1.0.0" });
    });
  }

  it("validated every structuredContent against its tool's outputSchema", () => {
    // 2 attempts x (enter, observe, seal, seal) + the solver's actions.
    expectAllValidated(server.session, 2 * 4 + 2);
  });

  it("answers an unknown tool with JSON-RPC error -32602, not a tool result", async () => {
    const err = await server.session.client.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("no_such_tool");
  });

  it("accepts the 0.2.0 alias start_challenge until its cut-off, without listing it", async () => {
    const names = server.session.tools.map((t) => t.name);
    for (const alias of TOOLSET_0_3_0.canonical_tools.flatMap((t) => t.aliases)) {
      expect(names).not.toContain(alias);
    }
    expect(names).not.toContain("start_challenge");

    const until = String(TOOLSET_0_3_0.compatibility.aliases_supported_until);
    expect(until).toBe("2027-02-21");
    // The server reads the system clock: the alias is good through the whole cut-off day (UTC).
    const aliasLive = Date.now() < Date.parse(`${until}T00:00:00.000Z`) + 86_400_000;
    const r = await server.session.sc(
      "start_challenge",
      { ...IDENTITY, suite: "chambre-chrono-v0", seed: "e2e-alias" },
      "enter_open_challenge",
    );
    if (aliasLive) {
      expect(r).toMatchObject({ ok: true, attempt_state: "created", suite_id: "chambre-chrono-v0", seed: "e2e-alias" });
      expect(r.attempt_handle).toMatch(HANDLE);
    } else {
      expect(r).toMatchObject({ ok: false, code: "toolset_version_mismatch" });
    }
  });
});
