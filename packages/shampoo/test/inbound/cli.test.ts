import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "kernel";
import { afterAll, describe, expect, it } from "vitest";
import type { ShampooDB } from "../../src/store/schema.ts";
import { connectHttp, newToken, runBin, startHttp, tempDir, writeConfig } from "../e2e/support.ts";

const tmp = tempDir("inbound-cli");
afterAll(() => tmp.remove());

describe("shampoo inbound stage FILE", () => {
  it("stages a valid document (ids and pins on stdout); a document with one bad item stages nothing", async () => {
    const db = join(tmp.dir, "i.db");
    const caller = ["--db", db, "--principal", "relay", "--role", "agent", "--grants", "ops"];
    const good = join(tmp.dir, "good.json");
    writeFileSync(
      good,
      JSON.stringify({
        tasks: [{ key: "k1", title: "from the relay", project: "ops" }],
        entities: [{ name: "Relay", entityType: "service", observations: ["stages inbound"], project: "ops" }],
      }),
    );
    const r = await runBin(["inbound", "stage", good, ...caller]);
    expect(r.code, r.err).toBe(0);
    const staged = JSON.parse(r.out).staged as { id: string; pin: string; action: string }[];
    expect(staged.map((s) => [s.id, s.action])).toEqual([
      ["t:1", "created"],
      ["e:1", "created"],
    ]);
    const bad = join(tmp.dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        tasks: [
          { title: "fine", project: "ops" },
          { title: "x", status: "bogus" },
        ],
      }),
    );
    const refused = await runBin(["inbound", "stage", bad, ...caller]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/nothing staged: tasks\[1\]/);
    expect((await runBin(["inbound", "nope", good, ...caller])).code).toBe(2);
    const d = await openDatabase<ShampooDB>(db);
    try {
      const rows = await d.db
        .selectFrom("shampoo_inbound_items")
        .select(["item_kind", "n", "staged_by", "state"])
        .execute();
      expect(rows).toEqual([
        { item_kind: "t", n: 1, staged_by: "relay", state: "pending" },
        { item_kind: "e", n: 1, staged_by: "relay", state: "pending" },
      ]);
    } finally {
      await d.close();
    }
  });
});

describe("POST /inbound/stage (shampoo serve --http)", () => {
  it("stages with a principal's bearer token, refuses a bad document (400) and no token (401)", async () => {
    const relay = newToken();
    const cora = newToken();
    const config = writeConfig(tmp.dir, [
      { token: relay, principal: "relay", role: "agent", grants: ["ops"] },
      { token: cora, principal: "cora", role: "conductor", grants: ["ops"] },
    ]);
    const server = await startHttp(["--db", join(tmp.dir, "h.db"), "--config", config]);
    try {
      const url = server.url.replace(/\/mcp$/, "/inbound/stage");
      const post = (body: unknown, token?: string) =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
      const ok = await post({ tasks: [{ title: "over http", project: "ops" }] }, relay);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({
        staged: [{ id: "t:1", pin: expect.stringMatching(/^t:1@/), action: "created" }],
      });
      const bad = await post({ tasks: [{ title: "t", project: "not-mine" }] }, relay);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { message: string }).message).toMatch(/nothing staged: tasks\[0\]/);
      expect((await post({ tasks: [] })).status).toBe(401);
      // The conductor sees it over MCP, pinned, and approves it (the stager could not).
      const session = await connectHttp(server.url, cora, "cora");
      try {
        const listed = (await session.sc("inbound_list", { kind: "tasks" })).tasks as { pin: string }[];
        const r = await session.sc("inbound_approve", {
          kind: "tasks",
          item_ids: JSON.stringify(listed.map((t) => t.pin)),
        });
        expect(r).toMatchObject({ approved: [{ id: "t:1", task_id: expect.any(String) }] });
      } finally {
        await session.close();
      }
    } finally {
      await server.stop();
    }
  });
});
