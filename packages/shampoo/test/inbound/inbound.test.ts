import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCaller } from "../../src/access/caller.ts";
import type { ShampooCtx } from "../../src/context.ts";
import { StageError, stageInbound } from "../../src/domains/inbound/service/stage.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

const P = "inbound-ops";

describe.each(DIALECTS)("inbound review on %s", (dialect) => {
  let h: Harness;
  let conductor: Agent;
  let other: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    conductor = await h.as({ principal: "cora", role: "conductor", grants: [P] });
    other = await h.as({ principal: "olga", role: "conductor", grants: [P] });
  });
  afterAll(async () => {
    await h.close();
  });

  /** Stages a document as `principal` (the CLI's path). */
  const stage = (doc: unknown, principal = "relay") => {
    const ctx: ShampooCtx = {
      caller: makeCaller({ principal, role: "agent", profile: "default", grants: [P, ""] }),
      source: { tool: "inbound_stage" },
      clock: h.clock,
      database: h.db,
    };
    return stageInbound(ctx, JSON.stringify(doc)).then(
      (r) => r.staged as { id: string; pin: string; action: string }[],
    );
  };
  const err = async (a: Agent, tool: string, args: Record<string, unknown>) => {
    const r = await a.call(tool, args);
    expect(r.isError, `${tool} ${JSON.stringify(r.structuredContent)}`).toBe(true);
    return r.structuredContent as { error: string; error_type: string; items?: { id: string; reason: string }[] };
  };
  const pins = (staged: { pin: string }[]) => JSON.stringify(staged.map((s) => s.pin));
  const count = async (table: "shampoo_tasks" | "shampoo_entities" | "shampoo_relations") =>
    Number(
      (
        await h.db.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("staging validates like the creation tools and stages nothing when one item is bad", async () => {
    await expect(
      stage({
        tasks: [
          { title: "ok", project: P },
          { title: "x", priority: "urgent" },
        ],
      }),
    ).rejects.toThrow(StageError);
    await expect(stage({ tasks: [{ title: "   " }] })).rejects.toThrow(/title must not be blank/);
    await expect(stage({ tasks: [{ title: "t", project: "not-granted" }] })).rejects.toThrow(/not in scope/);
    await expect(stage({ entities: [{ name: "E" }] })).rejects.toThrow(/entityType/);
    await expect(stage({ nope: [] })).rejects.toThrow(/unknown key/);
    expect(await other.sc("inbound_list", {})).toMatchObject({ count: 0 });
  });

  it("staged items are inert on every read path until approved; approval creates them through the real paths", async () => {
    const staged = await stage({
      tasks: [{ key: "inert", title: "zebra-staged task", project: P, priority: "high" }],
    });
    expect(staged).toEqual([
      { id: expect.stringMatching(/^t:\d+$/), pin: expect.stringMatching(/@[0-9a-f]{16}$/), action: "created" },
    ]);
    expect((await conductor.sc("query_tasks", { project: P })).tasks).toEqual([]);
    expect((await conductor.sc("find_by_title", { query: "zebra-staged" })).count ?? 0).toBe(0);
    const listed = (await conductor.sc("inbound_list", { kind: "tasks" })).tasks as Record<string, unknown>[];
    expect(listed).toEqual([
      expect.objectContaining({ id: staged[0]?.id, pin: staged[0]?.pin, title: "zebra-staged task", state: "pending" }),
    ]);
    const r = await conductor.sc("inbound_approve", { kind: "tasks", item_ids: pins(staged), reason: "looks right" });
    expect(r).toEqual({ approved: [{ id: staged[0]?.id, task_id: expect.any(String) }], skipped: [] });
    const tasks = (await conductor.sc("query_tasks", { project: P })).tasks as Record<string, unknown>[];
    expect(tasks).toEqual([expect.objectContaining({ title: "zebra-staged task", priority: "high" })]);
    const done = (await conductor.sc("inbound_list", { kind: "tasks", state: "approved" })).tasks as Record<
      string,
      unknown
    >[];
    expect(done[0]).toMatchObject({ decided_by: "cora", decide_reason: "looks right", state: "approved" });
    // Re-approving a decided item fails, whole.
    expect((await err(conductor, "inbound_approve", { kind: "tasks", item_ids: pins(staged) })).error_type).toBe(
      "inbound_ineligible",
    );
  });

  it("whoever staged an item can never approve it", async () => {
    const staged = await stage({ tasks: [{ title: "mine", project: P }] }, "cora");
    const e = await err(conductor, "inbound_approve", { kind: "tasks", item_ids: pins(staged) });
    expect(e.error_type).toBe("inbound_self_approval");
    expect(e.error).toContain(staged[0]?.id);
    expect((await err(conductor, "inbound_reject", { kind: "tasks", item_ids: pins(staged) })).error_type).toBe(
      "inbound_self_approval",
    );
    expect(await other.sc("inbound_reject", { kind: "tasks", item_ids: pins(staged) })).toEqual({
      rejected: [{ id: staged[0]?.id }],
    });
  });

  it("an approval is pinned to the content listed: an item edited since fails, saying which and why", async () => {
    const first = await stage({
      tasks: [
        { key: "edit-me", title: "v1", project: P },
        { title: "steady", project: P },
      ],
    });
    const listedPins = pins(first);
    const edited = await stage({ tasks: [{ key: "edit-me", title: "v2", project: P }] });
    expect(edited[0]).toMatchObject({ id: first[0]?.id, action: "updated" });
    expect(edited[0]?.pin).not.toBe(first[0]?.pin);
    const before = await count("shampoo_tasks");
    const e = await err(conductor, "inbound_approve", { kind: "tasks", item_ids: listedPins });
    expect(e.error_type).toBe("inbound_ineligible");
    expect(e.items).toEqual([{ id: first[0]?.id, reason: expect.stringMatching(/^changed since it was listed/) }]);
    expect(await count("shampoo_tasks")).toBe(before);
    // Unpinned ids are refused too: an approval always names what it saw.
    expect((await err(conductor, "inbound_approve", { kind: "tasks", item_ids: `["${first[1]?.id}"]` })).error).toMatch(
      /not pinned/,
    );
    expect(
      (await err(conductor, "inbound_approve", { kind: "knowledge", item_ids: `["${first[1]?.id}"]` })).error,
    ).toMatch(/does not match kind knowledge/);
    const ok = await conductor.sc("inbound_approve", {
      kind: "tasks",
      item_ids: pins([edited[0], first[1]] as { pin: string }[]),
    });
    expect((ok.approved as unknown[]).length).toBe(2);
  });

  it("one ineligible item in 500 fails the whole batch and changes nothing", async () => {
    const staged = await stage({ tasks: Array.from({ length: 500 }, (_, i) => ({ title: `bulk ${i}`, project: P })) });
    const rejected = staged[250] as { id: string; pin: string };
    await other.sc("inbound_reject", { kind: "tasks", item_ids: JSON.stringify([rejected.id]) });
    const tasks = await count("shampoo_tasks");
    const history = Number(
      (
        await h.db.db
          .selectFrom("shampoo_history")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const e = await err(conductor, "inbound_approve", { kind: "tasks", item_ids: pins(staged) });
    expect(e.items).toEqual([{ id: rejected.id, reason: "is rejected, not pending" }]);
    expect(await count("shampoo_tasks")).toBe(tasks);
    const after = Number(
      (
        await h.db.db
          .selectFrom("shampoo_history")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(after).toBe(history);
    const pending = await h.db.db
      .selectFrom("shampoo_inbound_items")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("state", "=", "pending")
      .where("content_json", "like", '%"bulk %')
      .executeTakeFirstOrThrow();
    expect(Number(pending.n)).toBe(499);
  });

  it("knowledge: set-difference diffs; merges only add; type conflicts and missing endpoints are skipped", async () => {
    await conductor.sc("create_entities", {
      entities: [
        { name: "Alpha", entityType: "service", observations: ["runs on port 80"], project: P },
        { name: "Beta", entityType: "team", observations: [], project: P },
      ],
    });
    const staged = await stage({
      entities: [
        { name: "Alpha", entityType: "service", observations: ["runs on port 80", "written in Go"], project: P },
        { name: "Beta", entityType: "service", observations: ["x"], project: P },
        { name: "Gamma", entityType: "service", observations: ["new"], project: P },
      ],
      relations: [
        { from: "Alpha", to: "Gamma", relationType: "calls" },
        { from: "Alpha", to: "Nowhere", relationType: "calls" },
      ],
    });
    const list = await conductor.sc("inbound_list", { kind: "knowledge" });
    const ents = list.entities as Record<string, unknown>[];
    expect(ents.map((e) => [e.name, e.diff])).toEqual([
      ["Alpha", "merge"],
      ["Beta", "type_conflict"],
      ["Gamma", "new_entity"],
    ]);
    expect(ents[0]?.new_observations).toEqual(["written in Go"]);
    const rels = list.relations as Record<string, unknown>[];
    expect(rels.map((r) => [r.to, r.from_present, r.to_present])).toEqual([
      ["Gamma", true, false],
      ["Nowhere", true, false],
    ]);
    const r = await other.sc("inbound_approve", { kind: "knowledge", item_ids: pins(staged) });
    expect((r.approved as { id: string }[]).map((a) => a.id)).toEqual([staged[0]?.id, staged[2]?.id, staged[3]?.id]);
    expect(r.skipped).toEqual([
      { id: staged[1]?.id, reason: "type_conflict: the live entity is a team" },
      { id: staged[4]?.id, reason: "missing endpoint: to" },
    ]);
    const nodes = await conductor.sc("open_nodes", { names: ["Alpha", "Beta", "Gamma"] });
    const byName = new Map((nodes.entities as Record<string, unknown>[]).map((e) => [e.name, e]));
    expect(byName.get("Alpha")?.observations).toEqual(["runs on port 80", "written in Go"]);
    expect(byName.get("Beta")).toMatchObject({ entityType: "team", observations: [] });
    expect(byName.get("Gamma")).toMatchObject({ entityType: "service" });
    expect(nodes.relations).toEqual([expect.objectContaining({ from: "Alpha", to: "Gamma", relationType: "calls" })]);
  });

  it("inbound_list: unknown kind or state answer the empty shape; agents see only their projects' items", async () => {
    expect(await conductor.sc("inbound_list", { kind: "other" })).toEqual({
      tasks: [],
      entities: [],
      relations: [],
      count: 0,
    });
    expect(await conductor.sc("inbound_list", { state: "weird" })).toEqual({
      tasks: [],
      entities: [],
      relations: [],
      count: 0,
    });
    await stage({ relations: [{ from: "A", to: "B", relationType: "r" }] });
    const agent = await h.as({ principal: "ann", grants: [P] });
    const seen = await agent.sc("inbound_list", { kind: "knowledge", limit: 100 });
    // Relations carry no project: untargeted, the conductor's and star's only.
    expect(seen.relations).toEqual([]);
    expect(
      ((await conductor.sc("inbound_list", { kind: "knowledge", limit: 100 })).relations as unknown[]).length,
    ).toBeGreaterThan(0);
    expect(
      (await err(agent, "inbound_approve", { kind: "tasks", item_ids: '["t:1@0000000000000000"]' })).error_type,
    ).toBe("requires-conductor");
  });
});
