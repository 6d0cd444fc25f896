import { iso } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  counts,
  decisionsOf,
  ENTITY_NOT_FOUND,
  entities,
  entityId,
  eventsOf,
  failLinkInsert,
  linkEventsOfTask,
  linkInvariants,
  linkRow,
  linksOf,
  MISSING_TASK,
  relate,
  TASK_NOT_FOUND,
  task,
  UUID_RE,
  uniq,
  voidEntity,
} from "../support/links.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { INTERNAL, quietly } from "../support/tasks-write.ts";

describe.each(DIALECTS)("link_task_entity and unlink_task_entity on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  /**
   * A project with one agent, one entity named `name` and one task mentioning it, and no link
   * yet: the task is written before the entity exists, so its creation had nothing to discover.
   */
  async function setup(title = "Call {name} about the overdue invoice", observations: string[] = []) {
    const p = uniq("proj");
    const a = await h.as({ principal: uniq("alice"), grants: [p] });
    const name = uniq("Acme");
    const t = await task(a, { title: title.replace("{name}", name), project: p });
    await entities(h, a, [{ name, entityType: "company", project: p, observations }]);
    expect(await linksOf(h, t)).toEqual([]);
    return { p, a, name, t, e: await entityId(h, name) };
  }

  /**
   * The same with the entity first: creating the task runs discovery (the real task write path),
   * which auto-links the entity it mentions.
   */
  async function autoSetup(title: string, observations: string[]) {
    const p = uniq("proj");
    const a = await h.as({ principal: uniq("alice"), grants: [p] });
    const name = uniq("Acme");
    await entities(h, a, [{ name, entityType: "company", project: p, observations }]);
    const e = await entityId(h, name);
    const t = await task(a, { title: title.replace("{name}", name), project: p });
    const auto = await linkRow(h, t, e);
    expect(auto).toMatchObject({ link_type: "auto", lifecycle: "live", created_by: a.caller.principal });
    const events = await eventsOf(h, auto?.id as string);
    expect(events.map((ev) => ev.action)).toEqual(["auto_link"]);
    expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("create_task_or_note");
    return { p, a, name, t, e, auto: { ...(auto as NonNullable<typeof auto>), score: Number(auto?.score) } };
  }

  describe("link_task_entity", () => {
    it("creates a manual link with its accepted decision record and one history event", async () => {
      const { a, name, t, e } = await setup();
      const before = await counts(h);
      const r = await a.sc("link_task_entity", { task_id: t, entity_name: name.toUpperCase() });
      expect(Object.keys(r).sort()).toEqual(
        [
          "created_at",
          "decision",
          "decision_id",
          "entity_id",
          "entity_name",
          "label_progress",
          "link_type",
          "model_version",
          "rank_at_decision",
          "score",
          "task_id",
        ].sort(),
      );
      expect(r).toMatchObject({
        task_id: t,
        entity_id: e,
        entity_name: name,
        decision: "accepted",
        rank_at_decision: 1,
        model_version: "explainable-pairwise-v1",
        label_progress: { accepted: 1, rejected: 0, total: 1 },
        link_type: "manual",
        created_at: iso(h.clock.now()),
      });
      expect(r.decision_id).toMatch(UUID_RE);
      expect(typeof r.score).toBe("number");
      const after = await counts(h);
      expect(after.shampoo_history - before.shampoo_history).toBe(1);
      expect(after.shampoo_task_links - before.shampoo_task_links).toBe(1);
      expect(after.shampoo_link_decisions - before.shampoo_link_decisions).toBe(1);
      const link = await linkRow(h, t, e);
      expect(link).toMatchObject({ link_type: "manual", lifecycle: "live", created_by: a.caller.principal });
      expect(Number(link?.score)).toBe(r.score);
      const [d] = await decisionsOf(h, t);
      expect(d).toMatchObject({
        decision_id: r.decision_id,
        decision: "accepted",
        source: "link_task_entity",
        rank_at_decision: 1,
        model_version: "explainable-pairwise-v1",
        decided_by: a.caller.principal,
      });
      expect(JSON.parse(d?.receipt_json ?? "{}").reasons).toContain("exact_name");
      const events = await eventsOf(h, link?.id as string);
      expect(events.map((ev) => [ev.entity_kind, ev.action])).toEqual([["task_link", "link"]]);
      expect(JSON.parse(events[0]?.payload_json ?? "{}").decision_id).toBe(r.decision_id);
      expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("link_task_entity");
      expect(link?.last_event_id).toBe(events[0]?.event_id);
    });

    it("rank_at_decision is null when no signal nominates the entity; the score is still recorded", async () => {
      const { a, name, p } = await setup();
      const other = await task(a, { title: "Water the plants", project: p });
      const r = await a.sc("link_task_entity", { task_id: other, entity_name: name });
      expect(r.rank_at_decision).toBeNull();
      expect(r.score).toBeGreaterThan(0); // project, provenance and time still contribute
    });

    it("upgrades an auto-discovered link instead of duplicating it", async () => {
      const {
        a,
        name,
        t,
        e,
        auto: autoRow,
      } = await autoSetup("Call {name} about the overdue invoice", ["Overdue invoice escalations by call"]);
      h.clock.advance(1000);
      const r = await a.sc("link_task_entity", { task_id: t, entity_name: name });
      expect(r).toMatchObject({ link_type: "manual", created_at: autoRow?.created_at });
      const row = await linkRow(h, t, e);
      expect(row).toMatchObject({
        id: autoRow?.id,
        link_type: "manual",
        lifecycle: "live",
        updated_at: iso(h.clock.now()),
      });
      expect((await eventsOf(h, row?.id as string)).map((ev) => ev.action)).toEqual(["auto_link", "upgrade"]);
      const links = (await a.sc("get_task_links", { task_id: t })).links as unknown[];
      expect(links).toEqual([expect.objectContaining({ entity_id: e, link_type: "manual" })]);
      // Confirmed by a human, it is no longer silent: unlinking records no rejection.
      expect(await a.sc("unlink_task_entity", { task_id: t, entity_name: name })).toEqual({ removed: true });
      expect((await decisionsOf(h, t)).map((d) => d.decision)).toEqual(["accepted"]);
    });

    it("re-linking a manual link refreshes it; labels count each pair's latest decision once", async () => {
      const { a, name, t, e } = await setup();
      const first = await a.sc("link_task_entity", { task_id: t, entity_name: name });
      h.clock.advance(1000);
      const again = await a.sc("link_task_entity", { task_id: t, entity_name: name });
      expect(again.decision_id).not.toBe(first.decision_id);
      expect(again.created_at).toBe(first.created_at);
      expect(again.label_progress).toEqual({ accepted: 1, rejected: 0, total: 1 });
      const row = await linkRow(h, t, e);
      expect((await eventsOf(h, row?.id as string)).map((ev) => ev.action)).toEqual(["link", "refresh"]);
      expect(await decisionsOf(h, t)).toHaveLength(2);
    });

    it("label_progress counts no decision on an entity the caller cannot see: foreign and missing answer alike", async () => {
      // The same shape twice: a task the agent sees, linked by the agent to its own entity; in
      // the first, a teammate has also linked the task to a private entity the agent cannot see.
      const progress = async (foreign: boolean) => {
        const p = uniq("proj");
        const a = await h.as({ principal: uniq("alice"), grants: [p] });
        const t = await task(a, { title: "Quarterly review", project: p });
        if (foreign) {
          const b = await h.as({ principal: uniq("bob"), grants: [p] });
          const hidden = uniq("Secret");
          await entities(h, b, [{ name: hidden, project: p, visibility: "private" }]);
          await b.sc("link_task_entity", { task_id: t, entity_name: hidden });
        }
        const mine = uniq("Mine");
        await entities(h, a, [{ name: mine, project: p }]);
        return (await a.sc("link_task_entity", { task_id: t, entity_name: mine })).label_progress;
      };
      const foreign = await progress(true);
      expect(JSON.stringify(foreign)).toBe(JSON.stringify(await progress(false)));
      expect(foreign).toEqual({ accepted: 1, rejected: 0, total: 1 });
    });

    it("concurrent links of one pair serialise on the task: one row, link then refresh", async () => {
      const { a, name, t, e } = await setup();
      const results = await Promise.all(
        [1, 2].map(() => a.call("link_task_entity", { task_id: t, entity_name: name })),
      );
      expect(results.every((r) => !r.isError)).toBe(true);
      const row = await linkRow(h, t, e);
      expect((await eventsOf(h, row?.id as string)).map((ev) => ev.action)).toEqual(["link", "refresh"]);
      expect(await decisionsOf(h, t)).toHaveLength(2);
    });

    it("revives a removed link: same row, marker cleared with revival stamps, removal stamps kept", async () => {
      const { a, name, t, e } = await setup();
      await a.sc("link_task_entity", { task_id: t, entity_name: name });
      h.clock.advance(1000);
      const unlinkedAt = iso(h.clock.now());
      expect(await a.sc("unlink_task_entity", { task_id: t, entity_name: name })).toEqual({ removed: true });
      const removed = await linkRow(h, t, e);
      expect(removed).toMatchObject({ lifecycle: "void", voided_at: unlinkedAt, voided_by: a.caller.principal });
      h.clock.advance(1000);
      await a.sc("link_task_entity", { task_id: t, entity_name: name });
      const row = await linkRow(h, t, e);
      expect(row).toMatchObject({
        id: removed?.id,
        lifecycle: "live",
        link_type: "manual",
        removal_marker: null,
        revived_at: iso(h.clock.now()),
        revived_by: a.caller.principal,
        voided_at: unlinkedAt,
        voided_by: a.caller.principal,
      });
      const events = await eventsOf(h, row?.id as string);
      expect(events.map((ev) => ev.action)).toEqual(["link", "unlink", "revive"]);
      // The history keeps its link shape: status active | removed, removed_at/removed_by the void stamps.
      expect(JSON.parse(events[2]?.new_json ?? "{}")).toMatchObject({
        status: "active",
        removed_at: unlinkedAt,
        removed_by: a.caller.principal,
        removal_marker: null,
        revived_at: iso(h.clock.now()),
      });
    });

    it("an invisible task answers Task not found, an invisible entity Entity not found; neither leaks; nothing is written", async () => {
      const { p, a, name, t } = await setup();
      const q = uniq("q");
      const bob = await h.as({ principal: uniq("bob"), grants: [q] });
      await entities(h, bob, [{ name: `${name}-bob`, project: q }]);
      const bobTask = await task(bob, { title: "Bob's task", project: q });
      const secret = uniq("Secret");
      await entities(h, a, [{ name: secret, project: p, visibility: "private" }]);
      const gone = uniq("Gone");
      await entities(h, a, [{ name: gone, project: p }]);
      await voidEntity(h, a, gone);
      const mate = await h.as({ principal: uniq("mate"), grants: [p] });
      const before = await counts(h);

      const foreignTask = await bob.call("link_task_entity", { task_id: t, entity_name: `${name}-bob` });
      expect(foreignTask.isError).toBe(true);
      expect(foreignTask.structuredContent).toEqual(TASK_NOT_FOUND);
      expect(await bob.call("link_task_entity", { task_id: MISSING_TASK, entity_name: `${name}-bob` })).toEqual(
        foreignTask,
      );
      expect(await bob.call("link_task_entity", { task_id: "nope", entity_name: `${name}-bob` })).toEqual(foreignTask);
      // Both sides invisible: still the task answer, which says nothing about the entity.
      expect(await bob.call("link_task_entity", { task_id: t, entity_name: name })).toEqual(foreignTask);

      const foreignEntity = await bob.call("link_task_entity", { task_id: bobTask, entity_name: name });
      expect(foreignEntity.structuredContent).toEqual(ENTITY_NOT_FOUND);
      expect(await bob.call("link_task_entity", { task_id: bobTask, entity_name: "no such entity" })).toEqual(
        foreignEntity,
      );
      expect(await a.call("link_task_entity", { task_id: t, entity_name: gone })).toEqual(foreignEntity);
      const mateTask = await task(mate, { title: "Mate task", project: p });
      const afterTask = await counts(h);
      expect(await mate.call("link_task_entity", { task_id: mateTask, entity_name: secret })).toEqual(foreignEntity);
      expect(await counts(h)).toEqual(afterTask);
      expect(afterTask.shampoo_task_links).toBe(before.shampoo_task_links);
      expect(afterTask.shampoo_link_decisions).toBe(before.shampoo_link_decisions);
    });

    it("rejects missing, mistyped and unknown arguments", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["x"] });
      for (const [args, message] of [
        [{ entity_name: "x" }, "Missing required argument: task_id"],
        [{ task_id: MISSING_TASK }, "Missing required argument: entity_name"],
        [{ task_id: 1, entity_name: "x" }, undefined],
        [{ task_id: MISSING_TASK, entity_name: ["x"] }, undefined],
        [{ task_id: MISSING_TASK, entity_name: "x", link_type: "auto" }, "Unknown argument: link_type"],
      ] as [Record<string, unknown>, string | undefined][]) {
        for (const tool of ["link_task_entity", "unlink_task_entity"]) {
          const r = await a.call(tool, args);
          expect(r.isError).toBe(true);
          expect(r.structuredContent).toMatchObject({
            error_type: "validation",
            ...(message ? { error: message } : {}),
          });
        }
      }
    });
  });

  describe("unlink_task_entity", () => {
    async function linked() {
      const s = await setup();
      await s.a.sc("link_task_entity", { task_id: s.t, entity_name: s.name });
      return s;
    }

    it("marks a manual link removed with stamps and a removal marker; nothing is deleted", async () => {
      const { a, name, t, e } = await linked();
      const live = await linkRow(h, t, e);
      h.clock.advance(1000);
      const before = await counts(h);
      expect(await a.sc("unlink_task_entity", { task_id: t, entity_name: name })).toEqual({ removed: true });
      const after = await counts(h);
      expect(after.shampoo_history - before.shampoo_history).toBe(1);
      expect(after.shampoo_task_links).toBe(before.shampoo_task_links);
      expect(after.shampoo_link_decisions).toBe(before.shampoo_link_decisions); // manual: no rejection
      const row = await linkRow(h, t, e);
      expect(row).toMatchObject({ lifecycle: "void", voided_at: iso(h.clock.now()), voided_by: a.caller.principal });
      expect(JSON.parse(row?.removal_marker ?? "null")).toEqual({
        link_type: "manual",
        score: Number(live?.score),
        created_at: live?.created_at,
        created_by: a.caller.principal,
        updated_at: live?.updated_at,
      });
      const [, unlink] = await eventsOf(h, row?.id as string);
      expect(unlink?.action).toBe("unlink");
      expect(JSON.parse(unlink?.old_json ?? "{}").status).toBe("active");
      expect(JSON.parse(unlink?.new_json ?? "{}")).toMatchObject({
        status: "removed",
        removed_at: iso(h.clock.now()),
        removed_by: a.caller.principal,
        removal_marker: { link_type: "manual" },
      });
      expect(await a.sc("get_task_links", { task_id: t })).toEqual({ task_id: t, links: [] });
      expect(await a.sc("get_entity_tasks", { entity_name: name })).toEqual({ entity_name: name, tasks: [] });
    });

    it("a missing link, a removed link, an invisible task or a malformed id read as removed false", async () => {
      const { p, a, name, t } = await linked();
      const other = await task(a, { title: "Unlinked", project: p });
      const outsider = await h.as({ principal: uniq("out"), grants: [uniq("elsewhere")] });
      await entities(h, outsider, [
        { name: `${name}-shared`, project: outsider.caller.projects.values().next().value as string },
      ]);
      const bothSee = await h.as({ principal: uniq("both"), grants: [[...outsider.caller.projects][0] as string] });
      await a.sc("unlink_task_entity", { task_id: t, entity_name: name });
      const before = await counts(h);
      expect(await a.sc("unlink_task_entity", { task_id: t, entity_name: name })).toEqual({ removed: false });
      expect(await a.sc("unlink_task_entity", { task_id: other, entity_name: name })).toEqual({ removed: false });
      expect(await a.sc("unlink_task_entity", { task_id: "nope", entity_name: name })).toEqual({ removed: false });
      expect(await a.sc("unlink_task_entity", { task_id: MISSING_TASK, entity_name: name })).toEqual({
        removed: false,
      });
      expect(await bothSee.sc("unlink_task_entity", { task_id: t, entity_name: `${name}-shared` })).toEqual({
        removed: false,
      });
      expect(await counts(h)).toEqual(before);
    });

    it("an unknown or invisible entity answers Entity not found, whatever the task", async () => {
      const { a, name, t } = await linked();
      const outsider = await h.as({ principal: uniq("out"), grants: [uniq("elsewhere")] });
      const before = await counts(h);
      const r = await outsider.call("unlink_task_entity", { task_id: t, entity_name: name });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual(ENTITY_NOT_FOUND);
      expect(await a.call("unlink_task_entity", { task_id: t, entity_name: "no such entity" })).toEqual(r);
      expect(await outsider.call("unlink_task_entity", { task_id: MISSING_TASK, entity_name: name })).toEqual(r);
      expect(await counts(h)).toEqual(before);
    });

    it("removing a silent high-confidence link records a rejection that keeps the pair suppressed", async () => {
      const { a, name, t, e, auto } = await autoSetup("Call {name} about the overdue invoice", [
        "Overdue invoice escalations by call",
      ]);
      expect(auto.score).toBeGreaterThanOrEqual(0.5);
      const r = await a.sc("unlink_task_entity", { task_id: t, entity_name: name });
      expect(Object.keys(r).sort()).toEqual(["decision_id", "decision_recorded", "removed"]);
      expect(r).toMatchObject({ removed: true, decision_recorded: "rejected" });
      expect(r.decision_id).toMatch(UUID_RE);
      const [d] = await decisionsOf(h, t);
      expect(d).toMatchObject({
        decision_id: r.decision_id,
        decision: "rejected",
        source: "unlink_task_entity",
        model_version: "explainable-pairwise-v1",
        decided_by: a.caller.principal,
      });
      expect(JSON.parse((await linkRow(h, t, e))?.removal_marker ?? "{}")).toMatchObject({ link_type: "auto" });
      const row = await linkRow(h, t, e);
      const events = await eventsOf(h, row?.id as string);
      expect(events.map((ev) => ev.action)).toEqual(["auto_link", "unlink"]);
      expect(JSON.parse(events[1]?.payload_json ?? "{}")).toMatchObject({ decision_id: r.decision_id });

      // Suppressed: a text edit reruns discovery, which does not bring it back; suggestions leave it out.
      await a.sc("update_task", { task_id: t, description: `Still chasing ${name} about the invoice` });
      expect(await linkRow(h, t, e)).toMatchObject({ lifecycle: "void", link_type: "auto" });
      expect((await linkEventsOfTask(h, t)).map((ev) => ev.action)).toEqual(["auto_link", "unlink"]);
      expect(((await a.sc("suggest_task_links", { task_id: t })).suggestions as unknown[]).length).toBe(0);
      // A human can still link it: the accepted decision becomes the pair's label.
      const relinked = await a.sc("link_task_entity", { task_id: t, entity_name: name });
      expect(relinked.label_progress).toMatchObject({ accepted: 1, rejected: 0, total: 1 });
    });

    it("removing a lower-confidence auto link records no decision, and discovery still leaves the pair alone", async () => {
      const { a, name, t, e, auto } = await autoSetup("Call {name} about the overdue invoice", [
        "Invoice processing vendor",
      ]);
      expect(auto.score).toBeGreaterThanOrEqual(0.35);
      expect(auto.score).toBeLessThan(0.5);
      expect(await a.sc("unlink_task_entity", { task_id: t, entity_name: name })).toEqual({ removed: true });
      expect(await decisionsOf(h, t)).toEqual([]);
      // Not rejected, only removed: a text edit reruns discovery, which still never revives it.
      const before = await counts(h);
      await a.sc("update_task", { task_id: t, title: `Call ${name} again about the overdue invoice` });
      expect(await counts(h)).toEqual({ ...before, shampoo_history: before.shampoo_history + 1 }); // the update only
      expect((await linkRow(h, t, e))?.lifecycle).toBe("void");
      expect((await linkEventsOfTask(h, t)).map((ev) => ev.action)).toEqual(["auto_link", "unlink"]);
    });
  });

  describe("auto-discovery (discoverLinks, run by the task writes)", () => {
    it("links exact name or alias mentions that reach the threshold, at most three per write, best first, one auto_link event each", async () => {
      const p = uniq("proj");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const names = ["Alpha", "Bravo", "Charlie", "Delta"].map((x) => uniq(x));
      const echo = uniq("Echo");
      await entities(h, a, [
        ...names.map((name) => ({ name, project: p })),
        { name: echo, project: p, aliases: ["Foxtrot Unit"] },
      ]);
      const before = await counts(h);
      const t = await task(a, { title: `Sync ${names.join(", ")} and the foxtrot unit`, project: p });
      const after = await counts(h);
      expect(after.shampoo_task_links - before.shampoo_task_links).toBe(3);
      expect(after.shampoo_history - before.shampoo_history).toBe(4); // the create and three auto_link events
      // Best first: the four names score 0.44 (ties by name), the alias-only Echo 0.39.
      const first = await linksOf(h, t);
      expect(first.map((l) => l.entity_name)).toEqual(names.slice(0, 3));
      for (const l of first) {
        expect(l).toMatchObject({ link_type: "auto", lifecycle: "live", score: 0.44 });
        const events = await eventsOf(h, l.id);
        expect(events.map((ev) => ev.action)).toEqual(["auto_link"]);
        expect(JSON.parse(events[0]?.payload_json ?? "{}")).toMatchObject({
          model_version: "explainable-pairwise-v1",
          score: 0.44,
        });
        expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("create_task_or_note");
      }
      // The next text edit adds the rest (linked pairs are skipped), then nothing.
      h.clock.advance(1000);
      await a.sc("update_task", { task_id: t, description: "Second pass" });
      const second = (await linksOf(h, t)).slice(3);
      expect(second.map((l) => [l.entity_name, l.score])).toEqual([
        [names[3], 0.44],
        [echo, 0.39],
      ]);
      for (const l of second) {
        const events = await eventsOf(h, l.id);
        expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("update_task");
      }
      const settled = await counts(h);
      await a.sc("update_task", { task_id: t, description: "Third pass" });
      expect((await counts(h)).shampoo_task_links).toBe(settled.shampoo_task_links);
      const links = (await a.sc("get_task_links", { task_id: t })).links as { link_type: string; score: number }[];
      expect(links).toHaveLength(5);
      expect(links.every((l) => l.link_type === "auto" && typeof l.score === "number")).toBe(true);
    });

    it("a name in its own project qualifies from anyone; in another project it needs the creator and overlap", async () => {
      const p = uniq("proj");
      const q = uniq("q");
      const owner = await h.as({ principal: uniq("own"), grants: [p, q] });
      const mate = await h.as({ principal: uniq("mate"), grants: [p] });
      const name = uniq("Ledger");
      await entities(h, owner, [{ name, project: p, observations: ["Quarterly reconciliation"] }]);
      const inProject = await task(mate, { title: `Update ${name}`, project: p });
      expect((await linksOf(h, inProject)).map((l) => [l.entity_name, l.link_type, l.created_by])).toEqual([
        [name, "auto", mate.caller.principal],
      ]);
      const elsewhere = await task(owner, { title: `Update ${name}`, project: q });
      expect(await linksOf(h, elsewhere)).toEqual([]); // 0.25 + 0.04 creator + 0.05 time
      const withOverlap = await task(owner, { title: `${name} quarterly reconciliation`, project: q });
      const [found] = await linksOf(h, withOverlap);
      expect(found?.score).toBe(0.49); // 0.25 name + 0.15 full overlap + 0.04 creator + 0.05 time
    });

    it("leaves weak mentions, invisible entities and archived or cancelled tasks alone", async () => {
      const p = uniq("proj");
      const q = uniq("q");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const b = await h.as({ principal: uniq("bo"), grants: [q] });
      const weak = uniq("Weak");
      await entities(h, b, [{ name: weak, project: q }]); // other project, other creator
      const hidden = uniq("Hidden");
      await entities(h, b, [{ name: hidden, project: q }]);
      const both = await h.as({ principal: uniq("both"), grants: [p, q] });
      const t = await task(both, { title: `Mention ${weak}`, project: p });
      expect(await linksOf(h, t)).toEqual([]); // name alone (0.25 + time) is below 0.35
      const t2 = await task(a, { title: `Mention ${hidden}`, project: p });
      expect(await linksOf(h, t2)).toEqual([]); // a cannot see q
      const mine = uniq("Mine");
      await entities(h, a, [{ name: mine, project: p }]);
      for (const status of ["archived", "cancelled", "done"]) {
        const t3 = await task(a, { title: "Wrap up", project: p });
        await a.sc("update_task", { task_id: t3, status });
        // The title edit reruns discovery; only live work (done still counts) gets linked.
        await a.sc("update_task", { task_id: t3, title: `Wrap up ${mine}` });
        expect((await linksOf(h, t3)).map((l) => l.entity_name)).toEqual(status === "done" ? [mine] : []);
      }
    });

    it("creating a task links what its text mentions in the same transaction; text edits link more, other edits run nothing", async () => {
      const p = uniq("proj");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const [first, second, late, broken] = [uniq("Northwind"), uniq("Contoso"), uniq("Fabrikam"), uniq("Tailspin")];
      await entities(h, a, [
        { name: first, entityType: "company", project: p },
        { name: second, entityType: "company", project: p },
        { name: broken, entityType: "company", project: p },
      ]);
      const [e1, e2, eBroken] = [await entityId(h, first), await entityId(h, second), await entityId(h, broken)];

      // Create: the title names `first` (0.25 name + 0.10 project + 0.04 creator + 0.05 time = 0.44)
      // and `late`, which does not exist yet.
      const before = await counts(h);
      const t = await task(a, { title: `Email ${first} the contract before ${late} signs`, project: p });
      const created = await counts(h);
      expect(created.shampoo_task_links - before.shampoo_task_links).toBe(1);
      expect(created.shampoo_history - before.shampoo_history).toBe(2); // create + auto_link
      expect(created.shampoo_link_decisions).toBe(before.shampoo_link_decisions); // discovery decides nothing
      const taskRow = await h.db.db
        .selectFrom("shampoo_tasks")
        .selectAll()
        .where("id", "=", t)
        .executeTakeFirstOrThrow();
      expect(await linksOf(h, t)).toEqual([
        expect.objectContaining({
          entity_id: e1,
          link_type: "auto",
          lifecycle: "live",
          score: 0.44,
          created_at: taskRow.created_at,
          created_by: a.caller.principal,
        }),
      ]);
      const [createEvent] = await eventsOf(h, t);
      const [autoEvent] = await linkEventsOfTask(h, t);
      expect(createEvent?.action).toBe("create");
      expect(autoEvent).toMatchObject({
        action: "auto_link",
        principal: a.caller.principal,
        at: taskRow.created_at,
        parent_event_id: null,
      });
      expect(JSON.parse(autoEvent?.source_json ?? "{}")).toMatchObject({ tool: "create_task_or_note" });
      expect(Number(autoEvent?.clock)).toBe(Number(createEvent?.clock) + 1); // the very next event
      expect(JSON.parse(autoEvent?.payload_json ?? "{}")).toMatchObject({
        model_version: "explainable-pairwise-v1",
        rank: 1,
        score: 0.44,
        reasons: ["exact_name", "same_project", "same_creator", "created_within_7_days"],
      });
      expect((await a.sc("get_entity_tasks", { entity_name: first })).tasks).toEqual([
        expect.objectContaining({ id: t, link_type: "auto", score: 0.44 }),
      ]);

      // Update: a description naming `second` adds its link, with the update in one transaction.
      h.clock.advance(1000);
      await a.sc("update_task", { task_id: t, description: `Copy ${second} on it` });
      const described = await counts(h);
      expect(described.shampoo_task_links - created.shampoo_task_links).toBe(1);
      expect(described.shampoo_history - created.shampoo_history).toBe(2); // update + auto_link
      const added = await linkRow(h, t, e2);
      expect(added).toMatchObject({ link_type: "auto", lifecycle: "live", created_at: iso(h.clock.now()) });
      const addedEvents = await eventsOf(h, added?.id as string);
      expect(addedEvents.map((ev) => ev.action)).toEqual(["auto_link"]);
      expect(JSON.parse(addedEvents[0]?.source_json ?? "{}").tool).toBe("update_task");

      // `late` now exists and the title names it, but edits that leave the text alone run no discovery.
      await entities(h, a, [{ name: late, entityType: "company", project: p }]);
      const eLate = await entityId(h, late);
      h.clock.advance(1000);
      const quiet = await counts(h);
      await a.sc("update_task", { task_id: t, priority: "high" });
      await a.sc("update_task", { task_id: t, status: "in_progress", section: "today" });
      await a.sc("assign_task", { task_id: t, assignee: uniq("bob") });
      expect(await counts(h)).toEqual({ ...quiet, shampoo_history: quiet.shampoo_history + 3 }); // three task events
      expect(await linkRow(h, t, eLate)).toBeUndefined();
      // The next text edit does run it, and links `late`: it was eligible all along.
      await a.sc("update_task", { task_id: t, notes: "Chase on Friday" });
      expect(await linkRow(h, t, eLate)).toMatchObject({ link_type: "auto", lifecycle: "live" });

      // Same transaction: when a link write fails, the task write that ran discovery fails with it.
      const restore = await failLinkInsert(h, eBroken);
      try {
        const failing = await counts(h);
        const title = `Email ${broken} the contract`;
        const { out: refused } = await quietly(() => a.call("create_task_or_note", { title, project: p }));
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent).toEqual(INTERNAL);
        const { out: refusedUpdate } = await quietly(() =>
          a.call("update_task", { task_id: t, description: `Copy ${broken} on it` }),
        );
        expect(refusedUpdate.structuredContent).toEqual(INTERNAL);
        expect(await counts(h)).toEqual(failing);
        expect(await h.db.db.selectFrom("shampoo_tasks").select("id").where("title", "=", title).execute()).toEqual([]);
        const unchanged = await h.db.db
          .selectFrom("shampoo_tasks")
          .selectAll()
          .where("id", "=", t)
          .executeTakeFirstOrThrow();
        expect(unchanged.description).toBe(`Copy ${second} on it`);
      } finally {
        await restore();
      }
    });

    it("upsert_note_by_title_project runs discovery when it creates a note and when it changes its text", async () => {
      const p = uniq("proj");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const [first, second] = [uniq("Litware"), uniq("Proseware")];
      await entities(h, a, [
        { name: first, project: p },
        { name: second, project: p },
      ]);
      const created = await a.sc("upsert_note_by_title_project", { title: `Notes on ${first}`, project: p });
      expect(created.action).toBe("created");
      const id = created.task_id as string;
      expect((await linksOf(h, id)).map((l) => [l.entity_name, l.link_type])).toEqual([[first, "auto"]]);
      const before = await counts(h);
      const same = await a.sc("upsert_note_by_title_project", {
        title: `Notes on ${first}`,
        project: p,
        priority: "high",
      });
      expect(same.action).toBe("updated");
      expect(await counts(h)).toEqual({ ...before, shampoo_history: before.shampoo_history + 1 }); // priority only
      const updated = await a.sc("upsert_note_by_title_project", {
        title: `Notes on ${first}`,
        project: p,
        description: `Also ${second}`,
      });
      expect(updated.action).toBe("updated");
      expect((await linksOf(h, id)).map((l) => l.entity_name)).toEqual([first, second]);
      const events = await linkEventsOfTask(h, id);
      expect(events.map((ev) => [ev.action, JSON.parse(ev.source_json ?? "{}").tool])).toEqual([
        ["auto_link", "upsert_note_by_title_project"],
        ["auto_link", "upsert_note_by_title_project"],
      ]);
    });

    it("never links an entity the writer cannot see, on create or update", async () => {
      const p = uniq("proj");
      const q = uniq("q");
      const a = await h.as({ principal: uniq("al"), grants: [p] });
      const b = await h.as({ principal: uniq("bo"), grants: [q] });
      const mate = await h.as({ principal: uniq("mate"), grants: [p] });
      const both = await h.as({ principal: uniq("both"), grants: [p, q] });
      const [hidden, secret, gone] = [uniq("Hidden"), uniq("Secret"), uniq("Gone")];
      // Each would qualify if visible: hidden 0.25 name + 0.15 overlap + 0.05 time = 0.45;
      // secret and gone 0.25 name + 0.10 project (+ 0.04 creator) + 0.05 time.
      await entities(h, b, [{ name: hidden, project: q, observations: ["Quarterly reconciliation"] }]);
      await entities(h, mate, [{ name: secret, project: p, visibility: "private" }]);
      await entities(h, a, [{ name: gone, project: p }]);
      await voidEntity(h, a, gone);

      const before = await counts(h);
      const tHidden = await task(a, { title: `${hidden} quarterly reconciliation`, project: p });
      const tSecret = await task(a, { title: `Ask ${secret}`, project: p });
      const tGone = await task(a, { title: `Ask ${gone}`, project: p });
      expect(await counts(h)).toEqual({ ...before, shampoo_history: before.shampoo_history + 3 }); // three creates only
      for (const t of [tHidden, tSecret, tGone]) expect(await linksOf(h, t)).toEqual([]);

      // Update path, as the writer: a edits mate's task to name mate's private entity: no link.
      const mates = await task(mate, { title: "Prepare the brief", project: p });
      await a.sc("update_task", { task_id: mates, description: `Ask ${secret}` });
      expect(await linksOf(h, mates)).toEqual([]);

      // Controls: callers who can see them link the same texts.
      const bothHidden = await task(both, { title: `${hidden} quarterly reconciliation`, project: p });
      expect((await linksOf(h, bothHidden)).map((l) => l.entity_name)).toEqual([hidden]);
      const mateSecret = await task(mate, { title: `Ask ${secret}`, project: p });
      expect((await linksOf(h, mateSecret)).map((l) => l.entity_name)).toEqual([secret]);
      await mate.sc("update_task", { task_id: mates, notes: "Ready Monday" });
      expect((await linksOf(h, mates)).map((l) => [l.entity_name, l.created_by])).toEqual([
        [secret, mate.caller.principal],
      ]);
    });

    it("get_task_links hides links whose entity is voided or out of the caller's grants", async () => {
      const p = uniq("proj");
      const q = uniq("q");
      const a = await h.as({ principal: uniq("al"), grants: [p, q] });
      const [e1, e2, e3] = [uniq("One"), uniq("Two"), uniq("Three")];
      await entities(h, a, [
        { name: e1, project: p },
        { name: e2, project: q },
        { name: e3, project: p },
      ]);
      const t = await task(a, { title: "Linked thrice", project: p });
      for (const name of [e1, e2, e3]) await a.sc("link_task_entity", { task_id: t, entity_name: name });
      await voidEntity(h, a, e3);
      const narrow: Agent = await h.as({ principal: a.caller.principal, grants: [p] });
      const links = (await narrow.sc("get_task_links", { task_id: t })).links as { entity_name: string }[];
      expect(links.map((l) => l.entity_name)).toEqual([e1]);
      await relate(h, a, e1, e2, "works_with"); // relations never change link visibility
      expect(((await a.sc("get_task_links", { task_id: t })).links as unknown[]).length).toBe(2);
    });
  });

  it("leaves every link with its events: latest event = row, chained, none orphaned", async () => {
    expect(await linkInvariants(h)).toEqual([]);
  });
});
