import { iso } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  counts,
  ENTITY_NOT_FOUND,
  entities,
  entityId,
  linkRow,
  MISSING_TASK,
  TASK_NOT_FOUND,
  task,
  uniq,
} from "../support/links.ts";
import { type Harness, harness } from "../support/shampoo.ts";

describe.each(DIALECTS)("get_task_links and get_entity_tasks on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  describe("get_task_links", () => {
    it("lists the task's live links, oldest first, with the catalog fields; pure read", async () => {
      const p = uniq("proj");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const [auto, manual] = [uniq("Autoco"), uniq("Manualco")];
      await entities(h, a, [
        { name: auto, entityType: "company", project: p, observations: ["Overdue invoice escalations by call"] },
        { name: manual, entityType: "person", project: p },
      ]);
      // Creating the task auto-links the entity it mentions (discovery runs in the task write).
      const autoAt = iso(h.clock.now());
      const t = await task(a, { title: `Call ${auto} about the overdue invoice`, project: p });
      const found = await linkRow(h, t, await entityId(h, auto));
      expect(found).toMatchObject({ link_type: "auto", created_at: autoAt });
      h.clock.advance(1000);
      const m = await a.sc("link_task_entity", { task_id: t, entity_name: manual });
      const before = await counts(h);
      const r = await a.sc("get_task_links", { task_id: t });
      expect(await counts(h)).toEqual(before);
      expect(r).toEqual({
        task_id: t,
        links: [
          {
            entity_id: await entityId(h, auto),
            entity_name: auto,
            entity_type: "company",
            link_type: "auto",
            score: Number(found?.score),
            created_at: autoAt,
          },
          {
            entity_id: await entityId(h, manual),
            entity_name: manual,
            entity_type: "person",
            link_type: "manual",
            score: m.score,
            created_at: m.created_at,
          },
        ],
      });
    });

    it("an invisible or unknown task reads as an empty list; a malformed id answers Task not found", async () => {
      const p = uniq("proj");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const name = uniq("Thing");
      await entities(h, a, [{ name, project: p }]);
      const t = await task(a, { title: name, project: p });
      await a.sc("link_task_entity", { task_id: t, entity_name: name });
      const other = await h.as({ principal: uniq("ot"), grants: [uniq("else")] });
      const foreign = await other.call("get_task_links", { task_id: t });
      expect(foreign.isError).toBeFalsy();
      expect(foreign.structuredContent).toEqual({ task_id: t, links: [] });
      expect(await other.sc("get_task_links", { task_id: MISSING_TASK })).toEqual({ task_id: MISSING_TASK, links: [] });
      const nobody = await h.as({ principal: uniq("no"), grants: [] });
      expect(await nobody.sc("get_task_links", { task_id: t })).toEqual({ task_id: t, links: [] });
      const bad = await a.call("get_task_links", { task_id: "task-1" });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toEqual(TASK_NOT_FOUND);
    });

    it("rejects a missing or non-string task_id and unknown arguments", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["x"] });
      expect((await a.call("get_task_links", {})).structuredContent).toEqual({
        error: "Missing required argument: task_id",
        error_type: "validation",
      });
      for (const args of [{ task_id: 1 }, { task_id: null }, { task_id: MISSING_TASK, verbose: true }]) {
        const r = await a.call("get_task_links", args);
        expect(r.isError).toBe(true);
        expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
      }
    });
  });

  describe("get_entity_tasks", () => {
    it("lists live tasks linked to the entity, newest link first, filtered to the caller's grants", async () => {
      const p = uniq("proj");
      const q = uniq("q");
      const a = await h.as({ principal: uniq("al"), grants: [p, q] });
      const name = uniq("Vendor");
      await entities(h, a, [{ name, entityType: "vendor", project: p }]);
      const ids: Record<string, string> = {};
      for (const [key, args] of [
        ["open", { title: "Open work", project: p, priority: "high", section: "today" }],
        ["done", { title: "Done work", project: p }],
        ["archived", { title: "Archived work", project: p }],
        ["cancelled", { title: "Cancelled work", project: p }],
        ["other", { title: "Other project work", project: q }],
      ] as [string, Record<string, unknown>][]) {
        ids[key] = await task(a, args);
        h.clock.advance(1000);
        await a.sc("link_task_entity", { task_id: ids[key], entity_name: name });
      }
      await a.sc("update_task", { task_id: ids.done, status: "done" });
      await a.sc("update_task", { task_id: ids.archived, status: "archived" });
      await a.sc("update_task", { task_id: ids.cancelled, status: "cancelled" });
      const openLink = await linkRow(h, ids.open as string, await entityId(h, name));

      const before = await counts(h);
      const r = await a.sc("get_entity_tasks", { entity_name: name.toLowerCase() });
      expect(await counts(h)).toEqual(before);
      expect(r.entity_name).toBe(name);
      const tasks = r.tasks as Record<string, unknown>[];
      expect(tasks.map((t) => t.title)).toEqual(["Other project work", "Done work", "Open work"]);
      expect(tasks[2]).toEqual({
        id: ids.open,
        title: "Open work",
        status: "not_started",
        priority: "high",
        section: "today",
        link_type: "manual",
        score: Number(openLink?.score),
        linked_at: openLink?.created_at,
      });
      expect(tasks[1]).toMatchObject({ status: "done" });

      const narrow = await h.as({ principal: a.caller.principal, grants: [p] });
      const seen = (await narrow.sc("get_entity_tasks", { entity_name: name })).tasks as { title: string }[];
      expect(seen.map((t) => t.title)).toEqual(["Done work", "Open work"]);
    });

    it("an unknown or invisible entity answers Entity not found; no grant at all reads as an empty list", async () => {
      const p = uniq("proj");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const [shared, privateOne] = [uniq("Shared"), uniq("Private")];
      await entities(h, a, [
        { name: shared, project: p },
        { name: privateOne, project: p, visibility: "private" },
      ]);
      const outsider = await h.as({ principal: uniq("out"), grants: [uniq("else")] });
      const mate = await h.as({ principal: uniq("mate"), grants: [p] });
      const unknown = await outsider.call("get_entity_tasks", { entity_name: "nothing by this name" });
      expect(unknown.isError).toBe(true);
      expect(unknown.structuredContent).toEqual(ENTITY_NOT_FOUND);
      expect(await outsider.call("get_entity_tasks", { entity_name: shared })).toEqual(unknown);
      expect(await mate.call("get_entity_tasks", { entity_name: privateOne })).toEqual(unknown);
      expect(await a.sc("get_entity_tasks", { entity_name: privateOne })).toEqual({
        entity_name: privateOne,
        tasks: [],
      });
      const nobody = await h.as({ principal: uniq("no"), grants: [] });
      expect(await nobody.sc("get_entity_tasks", { entity_name: shared })).toEqual({ entity_name: shared, tasks: [] });
      expect(await nobody.sc("get_entity_tasks", { entity_name: "nothing by this name" })).toEqual({
        entity_name: "nothing by this name",
        tasks: [],
      });
    });

    it("rejects a missing or non-string entity_name and unknown arguments", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["x"] });
      expect((await a.call("get_entity_tasks", {})).structuredContent).toEqual({
        error: "Missing required argument: entity_name",
        error_type: "validation",
      });
      for (const args of [{ entity_name: 3 }, { entity_name: ["a"] }, { entity_name: "a", project: "x" }]) {
        const r = await a.call("get_entity_tasks", args);
        expect(r.isError).toBe(true);
        expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
      }
    });

    it("lists the five link tools with strict schemas", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["x"] });
      const { tools } = await a.client.listTools();
      const names = tools.map((t) => t.name);
      const five = [
        "get_entity_tasks",
        "get_task_links",
        "link_task_entity",
        "suggest_task_links",
        "unlink_task_entity",
      ];
      expect(names.filter((n) => five.includes(n))).toEqual(five);
      for (const t of tools.filter((x) => five.includes(x.name))) {
        expect(t.inputSchema.additionalProperties).toBe(false);
        expect(t.outputSchema).toBeDefined();
      }
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("suggest_task_links")?.inputSchema.required).toEqual(["task_id"]);
      expect(byName.get("link_task_entity")?.inputSchema.required).toEqual(["task_id", "entity_name"]);
      expect(byName.get("get_entity_tasks")?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get("unlink_task_entity")?.annotations?.readOnlyHint).toBe(false);
    });
  });
});
