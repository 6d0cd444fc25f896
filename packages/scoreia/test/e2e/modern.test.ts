import { join } from "node:path";
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
