import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEntities } from "../../src/domains/graph/service/entities.ts";
import { createTaskOrNote } from "../../src/domains/tasks/service/write.ts";
import { MODULES } from "../../src/modules.ts";
import { defineExtensionPoint, installContributions } from "../../src/platform/extend.ts";
import { moduleOrder } from "../../src/platform/module.ts";
import { platformDb } from "./support.ts";

describe("extension points (platform/extend.ts)", () => {
  it("contributions answer in module order; names are checked; an unknown point is refused", () => {
    const point = defineExtensionPoint<string>("test.words");
    installContributions([
      { name: "a", contributes: [point.contribute("first")] },
      { name: "b" },
      { name: "c", contributes: [point.contribute("second"), point.contribute("third")] },
    ]);
    expect(point.all()).toEqual(["first", "second", "third"]);
    // Installing another list replaces, never appends.
    installContributions([{ name: "c", contributes: [point.contribute("only")] }]);
    expect(point.all()).toEqual(["only"]);
    expect(() => defineExtensionPoint("test.words")).toThrow("extension point test.words is defined twice");
    expect(() => defineExtensionPoint("nodot")).toThrow("use <module>.<what>");
    const stray = { point: { name: "test.nowhere", all: () => [], contribute: () => stray }, value: 1 };
    expect(() => installContributions([{ name: "x", contributes: [stray as never] }])).toThrow(
      "x contributes to an unknown extension point test.nowhere",
    );
    installContributions(moduleOrder(MODULES));
  });
});

for (const dialect of DIALECTS) {
  describe(`tasks.written without the links module (${dialect})`, () => {
    let p: Awaited<ReturnType<typeof platformDb>>;
    beforeAll(async () => {
      p = await platformDb(dialect);
    });
    afterAll(async () => {
      installContributions(moduleOrder(MODULES));
      await p.db.drop();
    });

    const linksOf = async (taskId: string) =>
      p.db.db.selectFrom("shampoo_task_links").select("entity_id").where("task_id", "=", taskId).execute();

    it("task writes link what they mention only while links contributes its discovery", async () => {
      await createEntities(p.ctx(), {
        entities: [{ name: "Kestrel Gateway", entityType: "service", observations: [] }],
      });
      const title = "Restart the Kestrel Gateway after the upgrade";
      installContributions(moduleOrder(MODULES));
      const linked = await createTaskOrNote(p.ctx(), { title });
      expect(await linksOf(String(linked.task_id))).toHaveLength(1);
      // The same modules minus links: tasks runs alone, its writes discover nothing.
      installContributions(moduleOrder(MODULES).filter((m) => m.name !== "links" && m.name !== "governance"));
      const alone = await createTaskOrNote(p.ctx(), { title });
      expect(alone.status).toBe("not_started");
      expect(await linksOf(String(alone.task_id))).toEqual([]);
    });
  });
}
