import { iso } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

/** Knowledge-graph writes: identity, void/revive, atomic batches, history, scope. */

describe.each(DIALECTS)("knowledge-graph writes on %s", (dialect) => {
  let h: Harness;
  let n = 0;
  /** A fresh principal with its own project, so tests do not see each other's rows. */
  const fresh = async (extra: string[] = [], profile?: string) => {
    const p = `p${++n}`;
    const agent = await h.as({ principal: `u${n}`, grants: [p, ...extra], ...(profile ? { profile } : {}) });
    return { agent, p };
  };
  const counts = async () => {
    const one = async (
      t: "shampoo_entities" | "shampoo_observations" | "shampoo_relations" | "shampoo_aliases" | "shampoo_history",
    ) =>
      Number(
        (
          await h.db.db
            .selectFrom(t)
            .select((eb) => eb.fn.countAll<number>().as("c"))
            .executeTakeFirstOrThrow()
        ).c,
      );
    return {
      entities: await one("shampoo_entities"),
      observations: await one("shampoo_observations"),
      relations: await one("shampoo_relations"),
      aliases: await one("shampoo_aliases"),
      history: await one("shampoo_history"),
    };
  };
  const entityRow = (id: string) =>
    h.db.db.selectFrom("shampoo_entities").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const open = async (a: Agent, names: string[]) => a.sc("open_nodes", { names });

  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("create_entities reports created, total_requested, entity_ids and observation_ids", async () => {
    const { agent, p } = await fresh();
    const r = await agent.sc("create_entities", {
      entities: [
        { name: "Stale Vendor", entityType: "org", observations: ["Ships late", "Ships late", "Net 30"], project: p },
        { name: "Paris Office", entityType: "place", observations: [], project: p },
      ],
    });
    expect(r.created).toBe(2);
    expect(r.total_requested).toBe(2);
    expect(r.entity_ids).toHaveLength(2);
    // Duplicate text within the call is skipped by content identity.
    expect(r.observation_ids).toHaveLength(2);
    expect(await open(agent, ["Stale Vendor"])).toEqual({
      entities: [{ name: "Stale Vendor", entityType: "org", observations: ["Ships late", "Net 30"], project: p }],
      relations: [],
    });
  });

  it("resolves a repeated name (case and spacing folded) to the same identity", async () => {
    const { agent, p } = await fresh();
    const a = await agent.sc("create_entities", { entities: [{ name: "Acme Corp", entityType: "org", project: p }] });
    const b = await agent.sc("create_entities", {
      entities: [{ name: "  acme   CORP ", entityType: "company", observations: ["New fact"], project: p }],
    });
    expect(b).toMatchObject({ created: 0, total_requested: 1, entity_ids: a.entity_ids });
    expect((b.observation_ids as string[]).length).toBe(1);
    // The stored name and type are kept: identity, not a rename.
    expect(await open(agent, ["ACME CORP"])).toMatchObject({
      entities: [{ name: "Acme Corp", entityType: "org", observations: ["New fact"] }],
    });
    // Two entries with one name in one batch resolve to one identity.
    const c = await agent.sc("create_entities", {
      entities: [
        { name: "Twin", entityType: "t", project: p },
        { name: "twin", entityType: "t", project: p },
      ],
    });
    expect(c.created).toBe(1);
    expect((c.entity_ids as string[])[0]).toBe((c.entity_ids as string[])[1]);
  });

  it("delete_entities retires; a re-create revives the same identity with its stamps kept", async () => {
    const { agent, p } = await fresh();
    const c = await agent.sc("create_entities", {
      entities: [{ name: "Stale Vendor Ltd", entityType: "org", project: p }],
    });
    const id = (c.entity_ids as string[])[0] as string;
    const before = await entityRow(id);
    h.clock.advance(60_000);
    expect(await agent.sc("delete_entities", { entityNames: ["Stale Vendor Ltd"] })).toEqual({ deleted: 1 });
    const voided = await entityRow(id);
    expect(voided).toMatchObject({
      lifecycle: "void",
      voided_at: iso(h.clock.now()),
      voided_by: agent.caller.principal,
      revived_at: null,
      revived_by: null,
    });
    // Already retired, unknown: zero.
    expect(await agent.sc("delete_entities", { entityNames: ["Stale Vendor Ltd", "Nobody"] })).toEqual({ deleted: 0 });
    h.clock.advance(60_000);
    const again = await agent.sc("create_entities", {
      entities: [{ name: "Stale Vendor Ltd", entityType: "org", project: p }],
    });
    expect(again).toMatchObject({ created: 1, entity_ids: [id] });
    const revived = await entityRow(id);
    expect(revived).toMatchObject({
      lifecycle: "live",
      created_at: before.created_at,
      created_by: before.created_by,
      voided_at: voided.voided_at,
      voided_by: voided.voided_by,
      revived_at: iso(h.clock.now()),
      revived_by: agent.caller.principal,
    });
    expect(revived.updated_at > before.updated_at).toBe(true);
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select(["action", "parent_event_id", "event_id"])
      .where("entity_id", "=", id)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => e.action)).toEqual(["create", "void", "revive"]);
    expect(events[1]?.parent_event_id).toBe(events[0]?.event_id);
    expect(events[2]?.parent_event_id).toBe(events[1]?.event_id);
  });

  it("does not cascade an entity void: observations, relations and aliases come back with it", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: [
        {
          name: "Hub",
          entityType: "svc",
          observations: ["hub fact one", "hub fact two"],
          aliases: ["The Hub"],
          project: p,
        },
        { name: "Spoke", entityType: "svc", project: p },
      ],
    });
    await agent.sc("create_relations", { relations: [{ from: "Hub", to: "Spoke", relationType: "feeds" }] });
    const rowsBefore = await counts();
    expect(await agent.sc("delete_entities", { entityNames: ["Hub"] })).toEqual({ deleted: 1 });
    // Absent while void: not opened, not in the graph, its relation not listed, its alias unfound.
    expect(await open(agent, ["Hub", "Spoke"])).toEqual({
      entities: [{ name: "Spoke", entityType: "svc", observations: [], project: p }],
      relations: [],
    });
    const g = await agent.sc("read_graph", {});
    expect(g.relations).toEqual([]);
    expect((await agent.sc("search_nodes", { query: "The Hub" })).entities).toEqual([]);
    // …and writes through the void entity are skipped.
    expect(await agent.sc("add_observations", { observations: [{ entityName: "Hub", contents: ["x"] }] })).toEqual({
      added: 0,
      observation_ids: [],
    });
    // Nothing was rewritten: the rows are still there, still live.
    const after = await counts();
    expect(after.observations).toBe(rowsBefore.observations);
    const hub = await h.db.db
      .selectFrom("shampoo_entities")
      .select("id")
      .where("name", "=", "Hub")
      .executeTakeFirstOrThrow();
    const obs = await h.db.db
      .selectFrom("shampoo_observations")
      .select("lifecycle")
      .where("entity_id", "=", hub.id)
      .execute();
    expect(obs.map((o) => o.lifecycle)).toEqual(["live", "live"]);
    const rel = await h.db.db
      .selectFrom("shampoo_relations")
      .select("lifecycle")
      .where("from_id", "=", hub.id)
      .execute();
    expect(rel.map((r) => r.lifecycle)).toEqual(["live"]);
    // Revive: everything resolves again.
    await agent.sc("create_entities", { entities: [{ name: "Hub", entityType: "svc", project: p }] });
    expect(await open(agent, ["Hub", "Spoke"])).toEqual({
      entities: [
        { name: "Hub", entityType: "svc", observations: ["hub fact one", "hub fact two"], project: p },
        { name: "Spoke", entityType: "svc", observations: [], project: p },
      ],
      relations: [{ from: "Hub", to: "Spoke", relationType: "feeds" }],
    });
    expect((await agent.sc("search_nodes", { query: "The Hub" })).entities).toEqual([
      expect.objectContaining({ name: "Hub" }),
      expect.objectContaining({ name: "Spoke", _evidence_status: "neighbour" }),
    ]);
  });

  it("add_observations: added and observation_ids, duplicates skipped, retired text revived in place", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: [{ name: "Note Target", entityType: "t", observations: ["first"], project: p }],
    });
    const r = await agent.sc("add_observations", {
      observations: [{ entityName: "note target", contents: ["first", "second", 42, null, "third", "second"] }],
    });
    expect(r.added).toBe(2);
    expect(r.observation_ids).toHaveLength(2);
    const secondId = (r.observation_ids as string[])[0] as string;
    const obsRow = () =>
      h.db.db.selectFrom("shampoo_observations").selectAll().where("id", "=", secondId).executeTakeFirstOrThrow();
    h.clock.advance(60_000);
    const voidAt = iso(h.clock.now());
    expect(
      await agent.sc("delete_observations", {
        deletions: [{ entityName: "Note Target", observations: ["second", 7, "nope"] }],
      }),
    ).toEqual({
      deleted: 1,
    });
    expect((await open(agent, ["Note Target"])).entities).toEqual([
      { name: "Note Target", entityType: "t", observations: ["first", "third"], project: p },
    ]);
    expect(await obsRow()).toMatchObject({
      lifecycle: "void",
      voided_at: voidAt,
      voided_by: agent.caller.principal,
      revived_at: null,
    });
    h.clock.advance(60_000);
    const again = await agent.sc("add_observations", {
      observations: [{ entityName: "Note Target", contents: ["second"] }],
    });
    expect(again).toEqual({ added: 1, observation_ids: [secondId] });
    // Revived: live again, its void stamps kept as last-void evidence.
    expect(await obsRow()).toMatchObject({
      lifecycle: "live",
      voided_at: voidAt,
      voided_by: agent.caller.principal,
      revived_at: iso(h.clock.now()),
      revived_by: agent.caller.principal,
    });
    // A revived observation keeps its place in the order.
    expect((await open(agent, ["Note Target"])).entities).toEqual([
      { name: "Note Target", entityType: "t", observations: ["first", "second", "third"], project: p },
    ]);
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select("action")
      .where("entity_id", "=", secondId)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => e.action)).toEqual(["create", "void", "revive"]);
  });

  it("add_observations without contents still refreshes the entity timestamp (one touch event)", async () => {
    const { agent, p } = await fresh();
    const c = await agent.sc("create_entities", { entities: [{ name: "Touchy", entityType: "t", project: p }] });
    const id = (c.entity_ids as string[])[0] as string;
    const before = await entityRow(id);
    h.clock.advance(1000);
    const hist = (await counts()).history;
    expect(await agent.sc("add_observations", { observations: [{ entityName: "Touchy" }] })).toEqual({
      added: 0,
      observation_ids: [],
    });
    expect((await entityRow(id)).updated_at > before.updated_at).toBe(true);
    expect((await counts()).history).toBe(hist + 1);
  });

  it("records one history event per changed row, in the call's transaction, with its source tool", async () => {
    const { agent, p } = await fresh();
    const before = await counts();
    await agent.sc("create_entities", {
      entities: [
        { name: "H1", entityType: "t", observations: ["a", "b"], aliases: ["Aitch One", "aitch one"], project: p },
        { name: "H2", entityType: "t", observations: ["c"], project: p },
      ],
    });
    const mid = await counts();
    // 2 entities + 3 observations + 1 alias (the duplicate alias is the same identity).
    expect(mid.entities - before.entities).toBe(2);
    expect(mid.observations - before.observations).toBe(3);
    expect(mid.aliases - before.aliases).toBe(1);
    expect(mid.history - before.history).toBe(6);
    // A replay changes nothing and records nothing.
    await agent.sc("create_entities", { entities: [{ name: "H1", entityType: "t", observations: ["a"], project: p }] });
    expect((await counts()).history).toBe(mid.history);
    await agent.sc("create_relations", {
      relations: [
        { from: "H1", to: "H2", relationType: "r" },
        { from: "H2", to: "H1", relationType: "r" },
      ],
    });
    await agent.sc("delete_relations", { relations: [{ from: "H1", to: "H2", relationType: "r" }] });
    await agent.sc("delete_observations", { deletions: [{ entityName: "H1", observations: ["a", "b"] }] });
    await agent.sc("delete_entities", { entityNames: ["H1", "H2"] });
    // 2 relation creates + 1 relation void + 2 observation voids + 2 entity voids.
    expect((await counts()).history - mid.history).toBe(7);
    const last = await h.db.db.selectFrom("shampoo_history").selectAll().orderBy("seq", "desc").limit(7).execute();
    const tools = last.map((e) => JSON.parse(e.source_json).tool);
    expect(new Set(tools)).toEqual(
      new Set(["create_relations", "delete_relations", "delete_observations", "delete_entities"]),
    );
    expect(new Set(last.map((e) => e.entity_kind))).toEqual(new Set(["entity", "observation", "relation"]));
  });

  it("fails the whole create_entities batch on a denied entry, nothing half-applied", async () => {
    const { agent, p } = await fresh();
    const before = await counts();
    const r = await agent.call("create_entities", {
      entities: [
        { name: "Fine One", entityType: "t", observations: ["x"], project: p },
        { name: "Denied", entityType: "t", project: "not-mine" },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ error: "Project not in scope", error_type: "scope" });
    expect(await counts()).toEqual(before);
    // Untagged without the untagged grant: the same denial, also atomic.
    const u = await agent.call("create_entities", {
      entities: [
        { name: "Fine Two", entityType: "t", project: p },
        { name: "No Project", entityType: "t" },
      ],
    });
    expect(u.structuredContent).toEqual({ error: "Project not in scope", error_type: "scope" });
    expect(await counts()).toEqual(before);
  });

  it("answers entity name already exists for a name held out of sight, without its content", async () => {
    const { agent: owner, p } = await fresh();
    const { agent: other, p: q } = await fresh();
    await owner.sc("create_entities", {
      entities: [{ name: "Secret Plan", entityType: "plan", observations: ["classified"], project: p }],
    });
    const before = await counts();
    const r = await other.call("create_entities", {
      entities: [
        { name: "Mine", entityType: "t", project: q },
        { name: "secret plan", entityType: "t", project: q },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ error: "entity name already exists", error_type: "conflict" });
    expect(await counts()).toEqual(before);
    // A retired foreign name is still taken.
    await owner.sc("delete_entities", { entityNames: ["Secret Plan"] });
    expect(
      (await other.call("create_entities", { entities: [{ name: "Secret Plan", entityType: "t", project: q }] }))
        .structuredContent,
    ).toEqual({
      error: "entity name already exists",
      error_type: "conflict",
    });
  });

  it("silently skips foreign names: byte-identical results for foreign and missing", async () => {
    const { agent: owner, p } = await fresh();
    const { agent: other, p: q } = await fresh();
    await owner.sc("create_entities", {
      entities: [
        { name: "Foreign A", entityType: "t", observations: ["fa"], project: p },
        { name: "Foreign B", entityType: "t", project: p },
      ],
    });
    await owner.sc("create_relations", { relations: [{ from: "Foreign A", to: "Foreign B", relationType: "r" }] });
    await other.sc("create_entities", { entities: [{ name: "Local", entityType: "t", project: q }] });
    const pairs: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ["open_nodes", { names: ["Foreign A"] }, { names: ["Missing A"] }],
      [
        "add_observations",
        { observations: [{ entityName: "Foreign A", contents: ["x"] }] },
        { observations: [{ entityName: "Missing A", contents: ["x"] }] },
      ],
      ["delete_entities", { entityNames: ["Foreign A"] }, { entityNames: ["Missing A"] }],
      [
        "delete_observations",
        { deletions: [{ entityName: "Foreign A", observations: ["fa"] }] },
        { deletions: [{ entityName: "Missing A", observations: ["fa"] }] },
      ],
      [
        "create_relations",
        { relations: [{ from: "Local", to: "Foreign A", relationType: "r" }] },
        { relations: [{ from: "Local", to: "Missing A", relationType: "r" }] },
      ],
      [
        "delete_relations",
        { relations: [{ from: "Foreign A", to: "Foreign B", relationType: "r" }] },
        { relations: [{ from: "Missing A", to: "Missing B", relationType: "r" }] },
      ],
      ["search_by_project", { query: "Foreign", project: p }, { query: "Foreign", project: "nope" }],
    ];
    const before = await counts();
    for (const [tool, foreign, missing] of pairs) {
      const f = await other.call(tool, foreign);
      const m = await other.call(tool, missing);
      if (tool === "search_by_project") {
        expect(f.structuredContent).toEqual({ entities: [], query: "Foreign", project: p });
        expect(m.structuredContent).toEqual({ entities: [], query: "Foreign", project: "nope" });
      } else expect(JSON.stringify(f)).toBe(JSON.stringify(m));
      expect(f.isError).toBeFalsy();
    }
    expect(await counts()).toEqual(before);
    // The owner's content is untouched.
    expect((await open(owner, ["Foreign A"])).entities).toEqual([
      { name: "Foreign A", entityType: "t", observations: ["fa"], project: p },
    ]);
  });

  it("create_relations: counts, duplicates reused, missing endpoints skipped, retired triples revived", async () => {
    const { agent, p } = await fresh();
    await agent.sc("create_entities", {
      entities: ["R1", "R2", "R3"].map((name) => ({ name, entityType: "t", project: p })),
    });
    const r = await agent.sc("create_relations", {
      relations: [
        { from: "R1", to: "R2", relationType: "knows" },
        { from: "R1", to: "R2", relationType: "knows" },
        { from: "R1", to: "Ghost", relationType: "knows" },
        { from: "r2", to: "R3", relationType: "knows" },
      ],
    });
    expect(r.created).toBe(2);
    expect(r.total_requested).toBe(4);
    // what was not created says why, by position, never telling a foreign name from a missing one
    expect(r.skipped).toEqual([
      { index: 1, reason: "already exists: the live relation's id is in relation_ids" },
      { index: 2, reason: "to: no entity of that name that you can see" },
    ]);
    const ids = r.relation_ids as string[];
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBe(ids[1]);
    const relRow = () =>
      h.db.db
        .selectFrom("shampoo_relations")
        .selectAll()
        .where("id", "=", ids[0] as string)
        .executeTakeFirstOrThrow();
    h.clock.advance(60_000);
    const voidAt = iso(h.clock.now());
    expect(
      await agent.sc("delete_relations", {
        relations: [
          { from: "R1", to: "R2", relationType: "knows" },
          { from: "R1", to: "R2", relationType: "other" },
        ],
      }),
    ).toEqual({
      deleted: 1,
    });
    expect(
      await agent.sc("delete_relations", { relations: [{ from: "R1", to: "R2", relationType: "knows" }] }),
    ).toEqual({ deleted: 0 });
    expect(await relRow()).toMatchObject({ lifecycle: "void", voided_at: voidAt, voided_by: agent.caller.principal });
    h.clock.advance(60_000);
    const back = await agent.sc("create_relations", { relations: [{ from: "R1", to: "R2", relationType: "knows" }] });
    expect(back).toEqual({ created: 1, total_requested: 1, relation_ids: [ids[0]] });
    expect(await relRow()).toMatchObject({
      lifecycle: "live",
      voided_at: voidAt,
      voided_by: agent.caller.principal,
      revived_at: iso(h.clock.now()),
      revived_by: agent.caller.principal,
    });
  });

  it("keeps the untagged enclave closed without an explicit grant; star does not open it", async () => {
    const { agent: tagger } = await fresh([""]);
    await tagger.sc("create_entities", {
      entities: [{ name: "Untagged Thing", entityType: "t", observations: ["u"] }],
    });
    const star = await h.as({ principal: `star${n}`, grants: ["*"] });
    expect(await open(star, ["Untagged Thing"])).toEqual({ entities: [], relations: [] });
    expect(
      (await star.call("create_entities", { entities: [{ name: "Star Untagged", entityType: "t" }] }))
        .structuredContent,
    ).toEqual({
      error: "Project not in scope",
      error_type: "scope",
    });
    const withGrant = await h.as({ principal: `ug${n}`, grants: [""] });
    expect((await open(withGrant, ["Untagged Thing"])).entities).toEqual([
      { name: "Untagged Thing", entityType: "t", observations: ["u"] },
    ]);
  });

  it("stays inside the profile boundary: same name, separate identities, nothing visible across", async () => {
    const { agent: a, p } = await fresh();
    const b = await h.as({ principal: `other${n}`, grants: [p, "*", ""], profile: "elsewhere" });
    const x = await a.sc("create_entities", {
      entities: [{ name: "Boundary", entityType: "t", observations: ["default side"], project: p }],
    });
    expect(await open(b, ["Boundary"])).toEqual({ entities: [], relations: [] });
    expect(await b.sc("delete_entities", { entityNames: ["Boundary"] })).toEqual({ deleted: 0 });
    const y = await b.sc("create_entities", { entities: [{ name: "Boundary", entityType: "t", project: p }] });
    expect(y.created).toBe(1);
    expect(y.entity_ids).not.toEqual(x.entity_ids);
    expect((await b.sc("read_graph", {})).total).toBe(1);
  });

  it("backfills a project onto an untagged entity on re-create", async () => {
    const { agent, p } = await fresh([""]);
    await agent.sc("create_entities", { entities: [{ name: "Drifter", entityType: "t" }] });
    const r = await agent.sc("create_entities", { entities: [{ name: "Drifter", entityType: "t", project: p }] });
    expect(r.created).toBe(0);
    expect((await open(agent, ["Drifter"])).entities).toEqual([
      { name: "Drifter", entityType: "t", observations: [], project: p },
    ]);
    // A named project is never moved by a re-create.
    await agent.sc("create_entities", { entities: [{ name: "Drifter", entityType: "t" }] });
    expect((await open(agent, ["Drifter"])).entities).toEqual([
      { name: "Drifter", entityType: "t", observations: [], project: p },
    ]);
  });

  it("visibility private: only the creator sees it, and its name stays taken", async () => {
    const shared = `team${++n}`;
    const alice = await h.as({ principal: `alice${n}`, grants: [shared] });
    const bob = await h.as({ principal: `bob${n}`, grants: [shared] });
    await alice.sc("create_entities", {
      entities: [
        {
          name: "Diary",
          entityType: "note",
          observations: ["private thoughts"],
          project: shared,
          visibility: "private",
        },
        { name: "Board", entityType: "note", observations: ["public"], project: shared },
      ],
    });
    await alice.sc("create_relations", { relations: [{ from: "Board", to: "Diary", relationType: "links" }] });
    expect((await open(alice, ["Diary"])).entities).toHaveLength(1);
    expect(await open(bob, ["Diary", "Board"])).toEqual({
      entities: [{ name: "Board", entityType: "note", observations: ["public"], project: shared }],
      relations: [],
    });
    expect((await bob.sc("search_nodes", { query: "private thoughts" })).entities).toEqual([]);
    expect((await bob.sc("read_graph", {})).relations).toEqual([]);
    expect(
      (await bob.call("create_entities", { entities: [{ name: "Diary", entityType: "t", project: shared }] }))
        .structuredContent,
    ).toEqual({
      error: "entity name already exists",
      error_type: "conflict",
    });
    // Only the creator may change visibility; making it shared opens it to the project.
    await bob.sc("create_entities", {
      entities: [{ name: "Board", entityType: "note", project: shared, visibility: "private" }],
    });
    expect((await open(alice, ["Board"])).entities).toHaveLength(1);
    await alice.sc("create_entities", {
      entities: [{ name: "Diary", entityType: "note", project: shared, visibility: "shared" }],
    });
    expect((await open(bob, ["Diary"])).entities).toEqual([
      { name: "Diary", entityType: "note", observations: ["private thoughts"], project: shared },
    ]);
  });

  it("converges concurrent creates of one name, observation and triple on one identity each", async () => {
    const p = `race${++n}`;
    const agents = await Promise.all(
      Array.from({ length: 6 }, (_, i) => h.as({ principal: `racer${n}-${i}`, grants: [p] })),
    );
    const results = await Promise.all(
      agents.map((a, i) =>
        a.call("create_entities", {
          entities: [
            { name: "Race Target", entityType: "t", observations: ["shared fact", `own fact ${i}`], project: p },
            { name: "Race Other", entityType: "t", project: p },
          ],
        }),
      ),
    );
    for (const r of results) expect(r.isError).toBeFalsy();
    const sc = (r: (typeof results)[number]) => r.structuredContent as Record<string, unknown>;
    const ids = new Set(results.map((r) => (sc(r).entity_ids as string[])[0]));
    expect(ids.size).toBe(1);
    expect(results.reduce((s, r) => s + (sc(r).created as number), 0)).toBe(2);
    const rel = await Promise.all(
      agents.map((a) =>
        a.call("create_relations", { relations: [{ from: "Race Target", to: "Race Other", relationType: "r" }] }),
      ),
    );
    for (const r of rel) expect(r.isError).toBeFalsy();
    expect(rel.reduce((s, r) => s + (sc(r).created as number), 0)).toBe(1);
    expect(new Set(rel.map((r) => (sc(r).relation_ids as string[])[0])).size).toBe(1);
    const opened = await open(agents[0] as Agent, ["Race Target"]);
    const obs = (opened.entities as { observations: string[] }[])[0]?.observations ?? [];
    expect(obs.filter((o) => o === "shared fact")).toHaveLength(1);
    expect(obs).toHaveLength(7);
  });

  it("validates shapes strictly before anything runs", async () => {
    const { agent, p } = await fresh();
    const before = await counts();
    const err = async (tool: string, args: Record<string, unknown>) => {
      const r = await agent.call(tool, args);
      expect(r.isError).toBe(true);
      return r.structuredContent as { error: string; error_type: string };
    };
    expect(await err("create_entities", { entities: "nope" })).toMatchObject({ error_type: "validation" });
    expect((await err("create_entities", { entities: [{ name: "x" }] })).error).toContain("entityType");
    expect(await err("create_entities", { entities: [{ name: 5, entityType: "t" }] })).toMatchObject({
      error_type: "validation",
    });
    expect(await err("create_entities", { entities: [], extra: 1 })).toEqual({
      error: "Unknown argument: extra",
      error_type: "validation",
    });
    expect(await err("create_entities", { entities: [{ name: "   ", entityType: "t", project: p }] })).toEqual({
      error: "entity name must not be blank",
      error_type: "validation",
    });
    expect(await err("create_entities", { entities: [{ name: "Star", entityType: "t", project: "*" }] })).toMatchObject(
      { error_type: "validation" },
    );
    expect(
      await err("create_entities", { entities: [{ name: "V", entityType: "t", project: p, visibility: "public" }] }),
    ).toMatchObject({
      error_type: "validation",
    });
    expect(await err("add_observations", { observations: {} })).toMatchObject({ error_type: "validation" });
    expect(await err("add_observations", { observations: [{ contents: ["x"] }] })).toMatchObject({
      error_type: "validation",
    });
    expect(await err("create_relations", { relations: [{ from: "a", to: "b" }] })).toMatchObject({
      error_type: "validation",
    });
    expect(await err("delete_entities", { entityNames: [1, 2] })).toMatchObject({ error_type: "validation" });
    expect(await err("delete_observations", { deletions: [{ observations: ["x"] }] })).toMatchObject({
      error_type: "validation",
    });
    expect(await err("delete_relations", { relations: "x" })).toMatchObject({ error_type: "validation" });
    expect(await err("open_nodes", { names: "Stale Vendor" })).toMatchObject({ error_type: "validation" });
    expect(await err("read_graph", { limit: "ten" })).toMatchObject({ error_type: "validation" });
    expect(await err("read_graph", { page: 2 })).toEqual({ error: "Unknown argument: page", error_type: "validation" });
    expect(await err("search_nodes", {})).toEqual({
      error: "Missing required argument: query",
      error_type: "validation",
    });
    expect(await err("search_nodes", { query: 5 })).toMatchObject({ error_type: "validation" });
    expect(await err("search_by_project", { query: "x" })).toEqual({
      error: "Missing required argument: project",
      error_type: "validation",
    });
    expect(await err("search_by_project", { query: "x", project: "*" })).toMatchObject({ error_type: "validation" });
    expect(await counts()).toEqual(before);
  });
});
