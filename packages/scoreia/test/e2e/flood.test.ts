import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectHttp, fullAttempt, startHttp, tempDir } from "./support.ts";

/**
 * Issue 15's session flood, replayed on the real binary: 25,000 `initialize` calls from one
 * client used to take the Chamber from 180 MB to 1 GB, and with a 256 MB heap it died of heap
 * exhaustion after 9,255. Here 10,000 (past the 9,255 that killed it; the whole 25,000 takes
 * minutes of CI on a loaded machine) against `scoreia serve --http` with a 256 MB heap: new
 * sessions past the per-address cap (600 a minute) answer 429, the process lives, its memory
 * stays bounded, and a session opened before the flood still plays a whole attempt.
 */
const FLOOD = 10_000;
const PER_ADDRESS = 600;
const tmp = tempDir("flood");
afterAll(() => tmp.remove());

/** Resident set size of a process, in bytes (Linux /proc). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  if (!line) throw new Error(`no VmRSS for ${pid}`);
  return Number(line[1]) * 1024;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
});

describe("a flood of initialize on the real binary (256 MB heap)", () => {
  it(`${FLOOD} initialize from one client: capped, memory bounded, a legitimate session still plays`, {
    timeout: 600_000,
  }, async () => {
    const server = await startHttp(
      // --admission off: the public door would refuse the flood first; this is the session cap.
      ["--db", join(tmp.dir, "c.db"), "--data-dir", tmp.dir, "--admission", "off"],
      ["--max-old-space-size=256"],
    );
    try {
      const legit = await connectHttp(server.url, "legit-client");
      const pid = server.child.pid as number;
      const before = rss(pid);
      const started = Date.now();
      const status = new Map<number, number>();
      let sent = 0;
      const worker = async () => {
        while (sent < FLOOD) {
          sent++;
          const res = await fetch(server.url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: INITIALIZE,
          });
          await res.arrayBuffer();
          status.set(res.status, (status.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      const windows = Math.ceil((Date.now() - started) / 60_000) + 1;
      const after = rss(pid);

      expect([...status.keys()].sort()).toEqual([200, 429]);
      expect((status.get(200) ?? 0) + (status.get(429) ?? 0)).toBe(FLOOD);
      // At most the cap per minute-window the flood spanned (the legitimate session took one).
      expect(status.get(200)).toBeLessThanOrEqual(PER_ADDRESS * windows);
      expect(status.get(429)).toBeGreaterThanOrEqual(FLOOD - PER_ADDRESS * windows);
      expect(server.child.exitCode, server.stderr()).toBeNull();
      expect(after - before, `RSS ${before >> 20} MB → ${after >> 20} MB`).toBeLessThan(128 << 20);

      const out = await fullAttempt(legit, "chambre-chrono-v0", "after-the-flood");
      expect(out.sealed).toMatchObject({ verdict: "solved", evidence_status: "signed" });
      await legit.client.close();
    } finally {
      await server.stop();
    }
  });
});
