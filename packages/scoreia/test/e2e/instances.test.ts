import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpHandle, serveHttp } from "kernel";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roundRobin } from "../../../kernel/test/roundrobin.ts";
import { type Chamber, openChamber } from "../../src/app.ts";
import { CURRENT_TOOLSET } from "../../src/contract/index.ts";
import { LocalKeyring } from "../../src/evidence/signer.ts";
import { SuiteSecrets } from "../../src/suites/secrets.ts";
import { fullAttempt, Session } from "./support.ts";

/**
 * Three Chamber instances on one PostgreSQL database behind a round-robin "balancer" (no sticky
 * sessions): each call of an attempt lands on the next instance, and the sealed card verifies on
 * every instance (docs/deploy.md).
 */
const SECRET = "three instances share this secret, 32+ bytes";
const schema = `inst_${process.pid}_${Date.now()}`;
let chambers: Chamber[] = [];
let https: HttpHandle[] = [];

// The instances share the room secrets as they share the signing keys (docs/deploy.md): one
// suite-secrets directory, opened by each as its own process would.
const secretsDir = mkdtempSync(join(tmpdir(), "scoreia-inst-secrets-"));

beforeAll(async () => {
  const signer = LocalKeyring.ephemeral();
  chambers = [];
  for (let i = 0; i < 3; i++)
    chambers.push(await openChamber({ db: PG_URL, pgSchema: schema, signer, secrets: SuiteSecrets.open(secretsDir) }));
  https = await Promise.all(
    chambers.map((c) =>
      serveHttp({
        mcp: c.mcp,
        routes: c.routes,
        port: 0,
        maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
        sessionSecret: SECRET,
      }),
    ),
  );
});

afterAll(async () => {
  for (const h of https) await h.close();
  for (const c of chambers) await c.close();
  await dropPgSchema(schema);
  rmSync(secretsDir, { recursive: true, force: true });
});

describe("three Chamber instances on one PostgreSQL, calls round-robin", () => {
  it.each(["chambre-chrono-v0", "chambre-atelier-v0"] as const)(
    "a full %s attempt spread over the instances seals a card that verifies on each",
    async (suite) => {
      const rr = roundRobin(https.map((h) => h.url));
      const client = new Client({ name: "round-robin", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(https[0]?.url as string), { fetch: rr.fetch }));
      try {
        const s = await Session.open(client);
        const { cardId } = await fullAttempt(s, suite, `rr-${suite}`);
        for (const n of rr.hits) expect(n).toBeGreaterThan(3);
        for (const c of chambers) expect((await c.registry.verify(cardId))?.verdict).toBe("valid");
      } finally {
        await client.close();
      }
    },
  );
});
