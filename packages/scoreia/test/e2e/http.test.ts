/**
 * The real binary over Streamable HTTP (`scoreia serve --http --port 0`), driven by the SDK
 * client: a full solved attempt on each suite, and the MCP clientInfo kept as an observation
 * apart from the host the participant declares.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { run } from "../cli/support.ts";
import {
  CANONICAL_TOOLS,
  checkCardAtRest,
  connectHttp,
  expectAllValidated,
  fullAttempt,
  type HttpServer,
  IDENTITY,
  readSqliteCard,
  type Session,
  SUITE_IDS,
  startHttp,
  tempDir,
} from "./support.ts";

/** Deliberately unlike any host name: what the client says it is, never what the agent claims. */
const CLIENT = { name: "e2e-observed-client", version: "9.8.7" };

const tmp = tempDir("http");
const dbFile = join(tmp.dir, "c.db");
let server: HttpServer;
let session: Session;

beforeAll(async () => {
  server = await startHttp(["--db", dbFile, "--data-dir", tmp.dir]);
  session = await connectHttp(server.url, CLIENT.name, CLIENT.version);
});

afterAll(async () => {
  await session?.client.close();
  await server?.stop();
  tmp.remove();
});

describe("scoreia serve --http", () => {
  it("prints a loopback URL on a port the OS picked, and its database", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(new URL(server.url).port).not.toBe("0");
    await vi.waitFor(() => expect(server.stdout()).toContain(`database: ${dbFile}`));
  });

  it("lists exactly the five canonical tools", () => {
    expect(session.tools.map((t) => t.name)).toEqual([...CANONICAL_TOOLS]);
  });

  for (const [i, suite] of SUITE_IDS.entries()) {
    it(`runs a full attempt on ${suite}; the card keeps observed client and declared host apart`, async () => {
      const seed = `e2e-http-${i}`;
      const out = await fullAttempt(session, suite, seed);
      const body = checkCardAtRest(readSqliteCard(dbFile, out.cardId), tmp.dir, {
        handle: out.handle,
        suite,
        seed,
        actions: out.actions,
      });
      // The observation: exactly the clientInfo the SDK client sent at initialize.
      expect(body.observed_client).toEqual(CLIENT);
      // The claim: exactly what the participant declared, untouched by the observation.
      const identity = body.identity as Record<string, unknown>;
      expect(identity).toMatchObject({
        declared_host: IDENTITY.host,
        declared_model: IDENTITY.model_claim,
        provider_claim: IDENTITY.provider_claim,
        product: IDENTITY.product,
        assurance: "participant_claimed",
      });
      expect(identity.declared_host).not.toBe(CLIENT.name);
      expect(JSON.stringify(identity)).not.toContain(CLIENT.name);
      expect(JSON.stringify(body.observed_client)).not.toContain(IDENTITY.host);
    });
  }

  it("validated every structuredContent against its tool's outputSchema", () => {
    expectAllValidated(session, 2 * 4 + 2);
  });

  it("a second client gets its own MCP session and its own observed clientInfo", async () => {
    const other = await connectHttp(server.url, "e2e-second-client", "0.0.1");
    try {
      const entry = await other.sc("enter_open_challenge", {
        ...IDENTITY,
        suite: "chambre-chrono-v0",
        seed: "e2e-two",
      });
      expect(entry.ok).toBe(true);
      const out = await other.sc("seal_attempt", { challenge_handle: entry.attempt_handle as string });
      expect(out).toMatchObject({ ok: true, attempt_state: "sealed", verdict: "abandoned", evidence_status: "signed" });
      const body = JSON.parse(readSqliteCard(dbFile, out.card_id as string).body_json) as Record<string, unknown>;
      expect(body.observed_client).toEqual({ name: "e2e-second-client", version: "0.0.1" });
    } finally {
      await other.client.close();
    }
  });

  it("shuts down cleanly on SIGTERM (exit code 0)", async () => {
    await session.client.close();
    expect(await server.stop()).toBe(0);
  });
});

describe("scoreia serve --http --trust-proxy", () => {
  it("behind a trusted balancer, the public door counts each forwarded client, not the balancer", async () => {
    const proxied = await startHttp([
      "--db",
      join(tmp.dir, "proxied.db"),
      "--data-dir",
      tmp.dir,
      "--admission",
      "2,100,60",
      // This test's requests come from 127.0.0.1: it plays the balancer.
      "--trust-proxy",
      "10.0.0.0/8,127.0.0.1",
    ]);
    try {
      const spec = new URL("/spec/0.2", proxied.url).href;
      const from = (client: string) => fetch(spec, { headers: { "x-forwarded-for": client } }).then((r) => r.status);
      expect(await from("203.0.113.5")).toBe(200);
      expect(await from("198.51.100.1, 203.0.113.5, 10.0.0.7")).toBe(200);
      expect(await from("203.0.113.5")).toBe(429);
      expect(await from("203.0.113.6")).toBe(200);
    } finally {
      await proxied.stop();
    }
  });

  it.concurrent.for([
    [["--trust-proxy", "10.0.0.0/8"], "--trust-proxy applies to --http only"],
    [["--http", "--trust-proxy", "proxy.internal"], 'got "proxy.internal"'],
    [["--http", "--trust-proxy", "10.0.0.0/40"], "prefix length must be 1..32"],
  ] as const)("refuses serve %j with exit 2", async ([args, message], { expect }) => {
    const r = await run(["serve", "--db", join(tmp.dir, "refused.db"), "--data-dir", tmp.dir, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
