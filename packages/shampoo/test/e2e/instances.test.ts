import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpHandle, serveHttp } from "kernel";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roundRobin } from "../../../kernel/test/roundrobin.ts";
import { LIMITS, openShampoo, type Shampoo } from "../../src/app.ts";
import { checkInvariants } from "../crash/invariants.ts";

/**
 * Three SHAMPOO instances on one PostgreSQL database, three writers whose calls go round-robin
 * over them (no sticky sessions): no write is lost and the profile's clock stays gapless
 * (docs/deploy.md).
 */
const SECRET = "three instances share this secret, 32+ bytes";
const schema = `shinst_${process.pid}_${Date.now()}`;
const WRITES = 8;
let instances: Shampoo[] = [];
let https: HttpHandle[] = [];

beforeAll(async () => {
  instances = [];
  for (let i = 0; i < 3; i++) instances.push(await openShampoo({ db: PG_URL, pgSchema: schema }));
  https = await Promise.all(
    instances.map((s) =>
      serveHttp({ mcp: s.mcp, port: 0, maxRequestBytes: LIMITS.maxRequestBytes, sessionSecret: SECRET }),
    ),
  );
});

afterAll(async () => {
  for (const h of https) await h.close();
  for (const s of instances) await s.close();
  await dropPgSchema(schema);
});

describe("three SHAMPOO instances on one PostgreSQL, writers round-robin", () => {
  it("three concurrent writers lose no write and keep the clock gapless", async () => {
    const urls = https.map((h) => h.url);
    const writers = [0, 1, 2].map((w) => ({ w, rr: roundRobin([...urls.slice(w), ...urls.slice(0, w)]) }));
    const hits = await Promise.all(
      writers.map(async ({ w, rr }) => {
        const client = new Client({ name: `writer-${w}`, version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(urls[w] as string), { fetch: rr.fetch }));
        try {
          for (let i = 0; i < WRITES; i++) {
            const r = await client.callTool({
              name: "create_task_or_note",
              arguments: { title: `writer ${w} task ${i}`, project: "multi" },
            });
            expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
          }
        } finally {
          await client.close();
        }
        return rr.hits;
      }),
    );
    for (const h of hits) for (const n of h) expect(n).toBeGreaterThan(1);
    const db = instances[0]?.database.db as Shampoo["database"]["db"];
    const titles = (await db.selectFrom("shampoo_tasks").select("title").execute()).map((r) => r.title).sort();
    const want = [0, 1, 2].flatMap((w) => Array.from({ length: WRITES }, (_, i) => `writer ${w} task ${i}`)).sort();
    expect(titles).toEqual(want);
    const report = await checkInvariants(db);
    expect(report.problems).toEqual([]);
    expect(report.tasks).toBe(3 * WRITES);
  });
});
