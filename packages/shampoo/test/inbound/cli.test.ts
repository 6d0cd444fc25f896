import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "kernel";
import { afterAll, describe, expect, it } from "vitest";
import type { ShampooDB } from "../../src/store/schema.ts";
import { runBin, tempDir } from "../e2e/support.ts";

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
