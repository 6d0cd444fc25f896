import { iso, type Kysely, sql } from "kernel";
import { DIALECTS, openTestDatabase } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { contentHash } from "../../src/domains/graph/model.ts";
import { MODULES } from "../../src/modules.ts";
import { LIFECYCLE_AUDIT_COLUMNS } from "../../src/platform/lifecycle.ts";
import { migrateModules } from "../../src/platform/migrate.ts";
import type { ShampooDB } from "../../src/store/schema.ts";
import { harness } from "../support/shampoo.ts";

/**
 * graph/0004_lifecycle on a database written before it: the four graph tables held `status`
 * active | voided with voided_at / voided_by. After the migration they hold the never-delete
 * vocabulary (platform/lifecycle.ts), the reads still hide what was voided, and a re-create
 * revives the old identity with its void stamps kept.
 */
const MIGRATION = "graph/0004_lifecycle";
const GRAPH_TABLES = ["shampoo_entities", "shampoo_observations", "shampoo_relations", "shampoo_aliases"] as const;
const T0 = "2026-10-01T09:00:00.000Z";
const T1 = "2026-10-02T09:00:00.000Z";
const P = "lcmig";

type Legacy = Kysely<Record<string, Record<string, unknown>>>;

/** Rows in the shape graph/0001_graph created: status active | voided, voided_at / voided_by. */
async function writeOldRows(db: Legacy): Promise<void> {
  const made = { created_at: T0, created_by: "alice", last_event_id: "ev-old" };
  const live = { status: "active", voided_at: null, voided_by: null };
  const voided = { status: "voided", voided_at: T1, voided_by: "bob" };
  const entity = (id: string, name: string, state: Record<string, unknown>) => ({
    id,
    profile: "default",
    project: P,
    name,
    name_norm: name.toLowerCase(),
    entity_type: "org",
    alias_text: id === "e-live" ? "LiveCorp" : "",
    visibility: "shared",
    updated_at: T0,
    ...made,
    ...state,
  });
  await db
    .insertInto("shampoo_entities")
    .values([
      entity("e-live", "Live Co", live),
      entity("e-gone", "Gone Co", voided),
      entity("e-other", "Other Co", live),
    ])
    .execute();
  const observation = (id: string, content: string, ord: number, state: Record<string, unknown>) => ({
    id,
    entity_id: "e-live",
    profile: "default",
    content,
    content_hash: contentHash(content),
    ord,
    ...made,
    ...state,
  });
  await db
    .insertInto("shampoo_observations")
    .values([observation("o-kept", "kept fact", 1, live), observation("o-dropped", "dropped fact", 2, voided)])
    .execute();
  const relation = (id: string, type: string, state: Record<string, unknown>) => ({
    id,
    profile: "default",
    from_id: "e-live",
    to_id: "e-other",
    relation_type: type,
    ...made,
    ...state,
  });
  await db
    .insertInto("shampoo_relations")
    .values([relation("r-supplies", "supplies", live), relation("r-owes", "owes", voided)])
    .execute();
  await db
    .insertInto("shampoo_aliases")
    .values({
      id: "a-live",
      entity_id: "e-live",
      profile: "default",
      alias: "LiveCorp",
      alias_norm: "livecorp",
      status: "active",
      created_at: T0,
      created_by: "alice",
    })
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`graph lifecycle migration (${dialect})`, () => {
    it("maps active/voided to live/void, keeps the void stamps, hides void rows, and revives them", async () => {
      const db = await openTestDatabase<ShampooDB>(dialect);
      const before = await migrateModules(db, MODULES, { only: (m) => m.id !== MIGRATION });
      expect(before).not.toContain(MIGRATION);
      await writeOldRows(db.db as unknown as Legacy);
      // A database that has every other migration gets this one alone.
      expect(await migrateModules(db, MODULES)).toEqual([MIGRATION]);

      const h = await harness(dialect, { db });
      try {
        const q = db.db as unknown as Legacy;
        const rowsOf = async (table: string) =>
          (await q.selectFrom(table).selectAll().orderBy("id").execute()) as Record<string, unknown>[];
        for (const table of GRAPH_TABLES) {
          const columns = Object.keys((await rowsOf(table))[0] ?? {});
          expect(columns).not.toContain("status");
          expect(columns).toEqual(expect.arrayContaining(["lifecycle", ...LIFECYCLE_AUDIT_COLUMNS]));
        }
        const moved = (rows: Record<string, unknown>[]) =>
          rows.map((r) => [r.id, r.lifecycle, r.voided_at, r.voided_by, r.void_reason, r.revived_at]);
        expect(moved(await rowsOf("shampoo_entities"))).toEqual([
          ["e-gone", "void", T1, "bob", null, null],
          ["e-live", "live", null, null, null, null],
          ["e-other", "live", null, null, null, null],
        ]);
        expect(moved(await rowsOf("shampoo_observations"))).toEqual([
          ["o-dropped", "void", T1, "bob", null, null],
          ["o-kept", "live", null, null, null, null],
        ]);
        expect(moved(await rowsOf("shampoo_relations"))).toEqual([
          ["r-owes", "void", T1, "bob", null, null],
          ["r-supplies", "live", null, null, null, null],
        ]);
        expect(moved(await rowsOf("shampoo_aliases"))).toEqual([["a-live", "live", null, null, null, null]]);
        // The indexes that held status now hold lifecycle.
        const indexed =
          dialect === "postgres"
            ? await sql<{ def: string }>`SELECT indexdef AS def FROM pg_indexes
                WHERE schemaname = current_schema() AND indexname = 'shampoo_entities_page'`.execute(db.db)
            : await sql<{ def: string }>`SELECT name AS def FROM pragma_index_info('shampoo_entities_page')`.execute(
                db.db,
              );
        expect(indexed.rows.map((r) => r.def).join(" ")).toContain("lifecycle");

        // Reads hide what was voided.
        const agent = await h.as({ principal: "carol", grants: [P] });
        expect(await agent.sc("read_graph", {})).toMatchObject({
          entities: [
            { name: "Live Co", observations: ["kept fact"] },
            { name: "Other Co", observations: [] },
          ],
          relations: [{ from: "Live Co", to: "Other Co", relationType: "supplies" }],
          total: 2,
        });
        expect(await agent.sc("open_nodes", { names: ["Gone Co"] })).toEqual({ entities: [], relations: [] });
        expect((await agent.sc("search_nodes", { query: "Gone" })).entities).toEqual([]);
        expect((await agent.sc("search_nodes", { query: "dropped" })).entities).toEqual([]);
        // The alias still finds its entity; its void observation is not shown.
        expect((await agent.sc("search_nodes", { query: "LiveCorp" })).entities).toMatchObject([
          { name: "Live Co", observations: ["kept fact"], _evidence_status: "name_match" },
          { name: "Other Co", _evidence_status: "neighbour" },
        ]);

        // Re-creating revives the old identities: live again, void stamps kept, revive stamped.
        h.clock.advance(60_000);
        const now = iso(h.clock.now());
        expect(
          await agent.sc("create_entities", { entities: [{ name: "Gone Co", entityType: "org", project: P }] }),
        ).toMatchObject({ created: 1, entity_ids: ["e-gone"] });
        expect(
          await agent.sc("add_observations", { observations: [{ entityName: "Live Co", contents: ["dropped fact"] }] }),
        ).toEqual({ added: 1, observation_ids: ["o-dropped"] });
        expect(
          await agent.sc("create_relations", {
            relations: [{ from: "Live Co", to: "Other Co", relationType: "owes" }],
          }),
        ).toEqual({ created: 1, total_requested: 1, relation_ids: ["r-owes"] });
        const revived = { lifecycle: "live", voided_at: T1, voided_by: "bob", revived_at: now, revived_by: "carol" };
        expect((await rowsOf("shampoo_entities")).find((r) => r.id === "e-gone")).toMatchObject(revived);
        expect((await rowsOf("shampoo_observations")).find((r) => r.id === "o-dropped")).toMatchObject(revived);
        expect((await rowsOf("shampoo_relations")).find((r) => r.id === "r-owes")).toMatchObject(revived);
        expect(await agent.sc("open_nodes", { names: ["Gone Co", "Live Co"] })).toMatchObject({
          entities: [
            { name: "Gone Co", observations: [] },
            { name: "Live Co", observations: ["kept fact", "dropped fact"] },
          ],
          relations: [],
        });
        expect((await agent.sc("read_graph", {})).relations).toEqual([
          { from: "Live Co", to: "Other Co", relationType: "owes" },
          { from: "Live Co", to: "Other Co", relationType: "supplies" },
        ]);
      } finally {
        await h.close();
      }
    });
  });
}
