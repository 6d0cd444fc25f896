import { ManualClock, sql } from "kernel";
import { DIALECTS, openTestDatabase, type TestDb } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCaller } from "../../src/access/caller.ts";
import type { ShampooCtx } from "../../src/context.ts";
import { createEntities } from "../../src/domains/graph/service/entities.ts";
import { createTaskOrNote } from "../../src/domains/tasks/service/write.ts";
import { MODULES } from "../../src/modules.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import type { ShampooDB } from "../../src/store/schema.ts";
import { eventsOf, linkRow } from "../support/links.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

/**
 * A database migrated before links/0002_lifecycle, holding links in the old shape (status
 * active | removed, removed_at/removed_by), comes out on the lifecycle vocabulary: values mapped,
 * stamps renamed and kept, removed links still hidden, and a re-link revives the same row.
 */

const MIGRATION = "links/0002_lifecycle";
const PRINCIPAL = "mig-alice";
const OLD_AT = "2026-11-01T09:00:00.000Z";
const REMOVED_AT = "2026-11-02T10:00:00.000Z";
const REVIVED_AT = "2026-11-03T11:00:00.000Z";
const LINK = {
  live: "00000000-0000-4000-8000-00000000000a",
  removed: "00000000-0000-4000-8000-00000000000b",
  revived: "00000000-0000-4000-8000-00000000000c",
};
const MARKER = JSON.stringify({
  link_type: "manual",
  score: 0.5,
  created_at: OLD_AT,
  created_by: PRINCIPAL,
  updated_at: OLD_AT,
});

describe.each(DIALECTS)("links lifecycle migration on %s", (dialect) => {
  let db: TestDb<ShampooDB>;
  let h: Harness;
  let a: Agent;
  let ran: string[];
  const ids = { t1: "", t2: "", e1: "", e2: "" };

  beforeAll(async () => {
    db = await openTestDatabase<ShampooDB>(dialect);
    expect(await migrateModules(db, MODULES, { only: (m) => m.id !== MIGRATION })).not.toContain(MIGRATION);
    const clock = new ManualClock(OLD_AT);
    const ctx: ShampooCtx = {
      caller: makeCaller({ principal: PRINCIPAL, role: "agent", profile: "default", grants: ["alpha"] }),
      source: { tool: "test" },
      clock,
      database: db,
    };
    // Entities and tasks through their services; titles that name no entity, so discovery links nothing.
    await createEntities(ctx, {
      entities: [
        { name: "Kestrel Gateway", entityType: "service", project: "alpha", observations: [] },
        { name: "Osprey Ledger", entityType: "service", project: "alpha", observations: [] },
      ],
    });
    ids.t1 = String((await createTaskOrNote(ctx, { title: "Rotate the certificates", project: "alpha" })).task_id);
    ids.t2 = String((await createTaskOrNote(ctx, { title: "Plan the capacity review", project: "alpha" })).task_id);
    const byName = async (name: string) =>
      (await db.db.selectFrom("shampoo_entities").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
    ids.e1 = await byName("Kestrel Gateway");
    ids.e2 = await byName("Osprey Ledger");

    // Links as the code before the migration wrote them.
    const old = (
      id: string,
      task: string,
      entity: string,
      status: "active" | "removed",
      removed: boolean,
      revived: boolean,
    ) =>
      sql`INSERT INTO shampoo_task_links (id, profile, task_id, entity_id, link_type, score, status, created_at,
      created_by, updated_at, removed_at, removed_by, removal_marker, revived_at, revived_by, last_event_id)
      VALUES (${id}, 'default', ${task}, ${entity}, 'manual', 0.5, ${status}, ${OLD_AT}, ${PRINCIPAL},
      ${revived ? REVIVED_AT : removed ? REMOVED_AT : OLD_AT}, ${removed ? REMOVED_AT : null},
      ${removed ? "mig-bob" : null}, ${status === "removed" ? MARKER : null}, ${revived ? REVIVED_AT : null},
      ${revived ? "mig-carol" : null}, ${`ev-${id}`})`.execute(db.db);
    await old(LINK.live, ids.t1, ids.e1, "active", false, false);
    await old(LINK.removed, ids.t1, ids.e2, "removed", true, false);
    await old(LINK.revived, ids.t2, ids.e1, "active", true, true);

    ran = await migrateModules(db, MODULES);
    h = await harness(dialect, { db });
    a = await h.as({ principal: PRINCIPAL, grants: ["alpha"] });
  });

  afterAll(async () => {
    await h?.close();
  });

  it("runs only the lifecycle migration and maps every link: active → live, removed → void, stamps renamed and kept", async () => {
    expect(ran).toEqual([MIGRATION]);
    const rows = await h.db.db.selectFrom("shampoo_task_links").selectAll().orderBy("id").execute();
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(
      [
        "id",
        "profile",
        "task_id",
        "entity_id",
        "link_type",
        "score",
        "lifecycle",
        "created_at",
        "created_by",
        "updated_at",
        "voided_at",
        "voided_by",
        "void_reason",
        "removal_marker",
        "revived_at",
        "revived_by",
        "retired_at",
        "retired_by",
        "retire_reason",
        "last_event_id",
      ].sort(),
    );
    const none = { void_reason: null, retired_at: null, retired_by: null, retire_reason: null };
    expect(rows).toEqual([
      expect.objectContaining({
        id: LINK.live,
        lifecycle: "live",
        voided_at: null,
        voided_by: null,
        revived_at: null,
        revived_by: null,
        removal_marker: null,
        ...none,
      }),
      expect.objectContaining({
        id: LINK.removed,
        lifecycle: "void",
        voided_at: REMOVED_AT,
        voided_by: "mig-bob",
        revived_at: null,
        revived_by: null,
        removal_marker: MARKER,
        ...none,
      }),
      expect.objectContaining({
        id: LINK.revived,
        lifecycle: "live",
        voided_at: REMOVED_AT,
        voided_by: "mig-bob",
        revived_at: REVIVED_AT,
        revived_by: "mig-carol",
        removal_marker: null,
        ...none,
      }),
    ]);
  });

  it("the entity index follows the rename onto lifecycle", async () => {
    const cols =
      dialect === "postgres"
        ? (
            await sql<{ def: string }>`SELECT indexdef AS def FROM pg_indexes
              WHERE schemaname = current_schema() AND indexname = 'shampoo_task_links_entity'`.execute(h.db.db)
          ).rows.map((r) => r.def.replace(/^.*\((.*)\)$/, "$1"))
        : (
            await sql<{ name: string }>`SELECT name FROM pragma_index_info('shampoo_task_links_entity')`.execute(
              h.db.db,
            )
          ).rows.map((r) => r.name);
    expect(cols.join(", ")).toBe("profile, entity_id, lifecycle");
  });

  it("reads still hide the removed link", async () => {
    expect((await a.sc("get_task_links", { task_id: ids.t1 })).links).toEqual([
      expect.objectContaining({ entity_id: ids.e1, link_type: "manual" }),
    ]);
    expect((await a.sc("get_entity_tasks", { entity_name: "Osprey Ledger" })).tasks).toEqual([]);
    const tasks = (await a.sc("get_entity_tasks", { entity_name: "Kestrel Gateway" })).tasks as Array<{ id: string }>;
    expect(tasks.map((t) => t.id).sort()).toEqual([ids.t1, ids.t2].sort());
    expect(await a.sc("unlink_task_entity", { task_id: ids.t1, entity_name: "Osprey Ledger" })).toEqual({
      removed: false,
    });
  });

  it("re-linking revives the same row: marker cleared, revival stamped, the old void stamps kept", async () => {
    h.clock.advance(1000);
    const r = await a.sc("link_task_entity", { task_id: ids.t1, entity_name: "Osprey Ledger" });
    expect(r).toMatchObject({ decision: "accepted", link_type: "manual", created_at: OLD_AT });
    const now = new Date(h.clock.now()).toISOString();
    expect(await linkRow(h, ids.t1, ids.e2)).toMatchObject({
      id: LINK.removed,
      lifecycle: "live",
      removal_marker: null,
      revived_at: now,
      revived_by: PRINCIPAL,
      voided_at: REMOVED_AT,
      voided_by: "mig-bob",
    });
    const [revive] = await eventsOf(h, LINK.removed);
    expect(revive).toMatchObject({ action: "revive", parent_event_id: `ev-${LINK.removed}` });
    expect(JSON.parse(revive?.old_json ?? "{}")).toMatchObject({
      status: "removed",
      removed_at: REMOVED_AT,
      removed_by: "mig-bob",
      removal_marker: JSON.parse(MARKER),
    });
    expect(JSON.parse(revive?.new_json ?? "{}")).toMatchObject({ status: "active", removal_marker: null });
    expect(((await a.sc("get_task_links", { task_id: ids.t1 })).links as unknown[]).length).toBe(2);
  });

  it("unlinking a migrated live link voids it with fresh stamps", async () => {
    h.clock.advance(1000);
    expect(await a.sc("unlink_task_entity", { task_id: ids.t2, entity_name: "Kestrel Gateway" })).toEqual({
      removed: true,
    });
    expect(await linkRow(h, ids.t2, ids.e1)).toMatchObject({
      id: LINK.revived,
      lifecycle: "void",
      voided_at: new Date(h.clock.now()).toISOString(),
      voided_by: PRINCIPAL,
      revived_at: REVIVED_AT,
      revived_by: "mig-carol",
    });
    expect((await a.sc("get_entity_tasks", { entity_name: "Kestrel Gateway" })).tasks).toEqual([
      expect.objectContaining({ id: ids.t1 }),
    ]);
  });
});
