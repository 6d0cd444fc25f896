import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, fullAttempt, ROOT, readSqliteCard, Session, startHttp, tempDir } from "./support.ts";

/**
 * The SDK v2 client pinned to 2026-07-28 (no initialize, no session) runs a full Chamber attempt
 * on the real binary, over stdio and over Streamable HTTP; the observed clientInfo is taken from
 * each request's `_meta` (no initialize carries it) and lands on the card apart from the declared host.
 */
const OBSERVED = { name: "modern-e2e", version: "2.4.0" };

function observedClient(dbFile: string, cardId: string): unknown {
  return (JSON.parse(readSqliteCard(dbFile, cardId).body_json) as { observed_client?: unknown }).observed_client;
}
const tmp = tempDir("modern");
afterAll(() => tmp.remove());

const client = () => new ModernClient(OBSERVED, { versionNegotiation: { mode: { pin: "2026-07-28" } } });

describe("a 2026-07-28 client on the real binary", () => {
  it("over stdio: a full attempt seals a solved, signed card", async () => {
    const stdioDb = join(tmp.dir, "stdio.db");
    const c = client();
    await c.connect(
      new ModernStdio({
        command: process.execPath,
        args: [BIN, "serve", "--db", stdioDb, "--data-dir", tmp.dir],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    try {
      const s = await Session.open(c as unknown as Client);
      const out = await fullAttempt(s, "chambre-chrono-v0", "modern-stdio");
      expect(out.entry).toMatchObject({ ok: true, declared: { host: "cursor" } });
      expect(observedClient(stdioDb, out.cardId)).toEqual(OBSERVED);
    } finally {
      await c.close();
    }
  });

  it("over Streamable HTTP: a full attempt seals a solved, signed card", async () => {
    const httpDb = join(tmp.dir, "http.db");
    const server = await startHttp(["--db", httpDb, "--data-dir", tmp.dir, "--admission", "off"]);
    const c = client();
    await c.connect(new ModernHttp(new URL(server.url)));
    try {
      const s = await Session.open(c as unknown as Client);
      const out = await fullAttempt(s, "chambre-atelier-v0", "modern-http");
      expect(observedClient(httpDb, out.cardId)).toEqual(OBSERVED);
    } finally {
      await c.close();
      await server.stop();
    }
  });
});

describe("2026-07-28 over stdio, raw JSON lines", () => {
  it("server/discover, an unsupported version listing the supported ones, and errors carry the request id", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--db", join(tmp.dir, "raw.db"), "--data-dir", tmp.dir], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "ignore"],
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const ask = async (message: unknown): Promise<Record<string, unknown>> => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      const { value } = await lines.next();
      return JSON.parse(value as string) as Record<string, unknown>;
    };
    const meta = (version: string) => ({
      "io.modelcontextprotocol/protocolVersion": version,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": OBSERVED,
    });
    try {
      // An unsupported version is refused as the opening message and as any later one.
      const future = await ask({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta("2099-01-01") } });
      expect(future).toMatchObject({
        id: 1,
        error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2099-01-01" } },
      });
      const discovered = await ask({
        jsonrpc: "2.0",
        id: "d",
        method: "server/discover",
        params: { _meta: meta("2026-07-28") },
      });
      expect(discovered).toMatchObject({ id: "d", result: { supportedVersions: ["2026-07-28"] } });
      const list = await ask({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta("2026-07-28") } });
      expect(list).toMatchObject({ id: 2, result: { resultType: "complete" } });
      const names = (list.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      expect(names).toEqual([
        "enter_open_challenge",
        "observe_chamber",
        "chamber_action",
        "call_for_help",
        "seal_attempt",
      ]);
      const later = await ask({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta("2099-01-01") } });
      expect(later).toMatchObject({
        id: 3,
        error: { code: -32022, data: { supported: ["2026-07-28"], requested: "2099-01-01" } },
      });
      const unknown = await ask({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "nope", arguments: {}, _meta: meta("2026-07-28") },
      });
      expect(unknown).toEqual({ jsonrpc: "2.0", id: 4, error: { code: -32602, message: "Unknown tool: nope" } });
    } finally {
      child.stdin.end();
      child.kill();
    }
  });
});
