import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";

const ODD = [
  "<~\u0308:*+",
  "\u0308",
  "'",
  "''",
  "\\",
  "a:*",
  "!",
  "&|",
  "()",
  '"',
  "NEAR(a b)",
  "* *",
  "😀",
  "ǅ\u0301",
  "-x",
  "a & b | !c",
];

describe.each(DIALECTS)("graph search never fails on odd text (%s)", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("search_nodes and search_by_project answer every odd query as data", async () => {
    const a = await h.as({ principal: "fuzz", grants: ["p"] });
    await a.sc("create_entities", {
      entities: [{ name: "Odd Vendor", entityType: "vendor", project: "p", observations: ["ships a:* weekly"] }],
    });
    for (const q of ODD) {
      const n = await a.call("search_nodes", { query: q });
      expect(n.isError, JSON.stringify(q)).toBeFalsy();
      expect(n.content, JSON.stringify(q)).toEqual([{ type: "text", text: JSON.stringify(n.structuredContent) }]);
      const p = await a.call("search_by_project", { query: q, project: "p" });
      expect(p.isError, JSON.stringify(q)).toBeFalsy();
    }
  });
});
