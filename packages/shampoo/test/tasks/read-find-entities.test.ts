import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";

describe.each(DIALECTS)("find_by_title over entities (%s)", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("scores entity names, observations and types beside tasks, inside the caller's grants only", async () => {
    const a = await h.as({ principal: "ann", grants: ["ops"] });
    const b = await h.as({ principal: "ben", grants: ["secret"] });
    await a.sc("create_entities", {
      entities: [
        { name: "Harbor Vendor", entityType: "vendor", project: "ops", observations: ["ships pallets weekly"] },
      ],
    });
    await b.sc("create_entities", {
      entities: [{ name: "Harbor Hidden", entityType: "vendor", project: "secret", observations: ["classified"] }],
    });
    await a.sc("create_task_or_note", { title: "Call the harbor office", project: "ops" });
    const r = await a.sc("find_by_title", { title_fragment: "harbor" });
    const names = (r.matches as Array<Record<string, unknown>>).map((m) => m.name ?? m.title);
    expect(names).toContain("Harbor Vendor");
    expect(names).toContain("Call the harbor office");
    expect(JSON.stringify(r)).not.toContain("Harbor Hidden");
    const entity = (r.matches as Array<Record<string, unknown>>).find((m) => m.name === "Harbor Vendor");
    expect(entity).toMatchObject({ ranking_contract_version: "memory_lookup_v2" });
    expect(entity?.surface_scores).toBeTypeOf("object");
  });
});
