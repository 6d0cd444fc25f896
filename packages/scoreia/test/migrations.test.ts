import { type Kysely, migrate, sql } from "kernel";
import { DIALECTS, openTestDatabase, type TestDb } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { type AttemptRow, type ChamberDB, chamberMigrations, EVENT_KEY_SPAN } from "../src/attempts/schema.ts";
import { CardRegistry } from "../src/evidence/registry.ts";
import { verifyProof } from "../src/evidence/verify.ts";
import { harness, IDENTITY } from "./support/chamber.ts";

/** The migrations that ran before `name`, as a store of that age had them. */
function migrationsBefore(name: string): typeof chamberMigrations {
  return Object.fromEntries(Object.entries(chamberMigrations).filter(([k]) => k < name));
}

type Rows = Record<string, Array<Record<string, unknown>>>;

/** The tables (name → columns) of an open store, in its own schema. */
async function tablesOf(db: TestDb<ChamberDB>): Promise<Map<string, Set<string>>> {
  const tables = await db.db.introspection.getTables();
  return new Map(
    tables
      .filter((t) => !db.pgSchema || t.schema === db.pgSchema)
      .map((t) => [t.name, new Set(t.columns.map((c) => c.name))]),
  );
}

/**
 * Writes rows made by the current code into an older store: only its tables, and only the columns
 * it has (later migrations add the others), in the order given (foreign keys).
 */
async function insertOld(db: TestDb<ChamberDB>, rows: Rows): Promise<void> {
  const tables = await tablesOf(db);
  const legacy = db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (const [t, list] of Object.entries(rows)) {
    const cols = tables.get(t);
    if (!cols) continue;
    await legacy.deleteFrom(t).execute(); // a migration's own first row (the log's state) gives way to the donor's
    for (const r of list)
      await legacy
        .insertInto(t)
        .values(Object.fromEntries(Object.entries(r).filter(([k]) => cols.has(k))))
        .execute();
  }
}

/**
 * Schema migrations of the Chamber run on stores that already hold attempts. Rows for the old
 * shape are real ones: produced by the current code on a donor store, then written into a store
 * migrated only up to the migration under test.
 */
describe.each(DIALECTS)("Chamber migrations on %s", (dialect) => {
  it("003_event_keys numbers attempts in creation order, keys their events, and open attempts carry on", async () => {
    // Donor: two attempts a minute apart, with a few actions each.
    const donor = await harness(dialect);
    const a = await donor.sc("enter_open_challenge", { ...IDENTITY, seed: "mig-a" });
    donor.clock.advance(60_000);
    const b = await donor.sc("enter_open_challenge", { ...IDENTITY, seed: "mig-b" });
    for (const [h, n] of [
      [a.attempt_handle, 2],
      [b.attempt_handle, 1],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const r = await donor.sc("chamber_action", { challenge_handle: h, op: "look", expected_action_index: i });
        expect(r.ok, JSON.stringify(r)).toBe(true);
      }
    }
    const attempts = await donor.db.db.selectFrom("chamber_attempts").selectAll().orderBy("created_at").execute();
    const events = await donor.db.db.selectFrom("chamber_events").selectAll().orderBy("id").execute();
    expect(attempts).toHaveLength(2);
    expect(events).toHaveLength(5);
    const secrets = donor.chamber.service.secrets;
    const generations = await donor.db.db.selectFrom("chamber_generations").selectAll().execute();
    await donor.close();

    // The store as migration 002 left it, holding the same rows (inserted newest first).
    const db = await openTestDatabase<ChamberDB>(dialect);
    expect(chamberMigrations["003_event_keys"]).toBeDefined();
    const before = migrationsBefore("003_event_keys");
    await migrate(db, "scoreia_migrations", before);
    await insertOld(db, {
      chamber_attempts: [...attempts].reverse().map(({ attempt_no: _, ...row }) => row),
      chamber_events: [...events].reverse().map(({ id: _, ...row }) => row),
    });

    // Migrated by the harness (migrateChamber), then used by the current code, with the donor's room secrets.
    const h = await harness(dialect, { db, secrets });
    // the manifests of the donor's secret generations (005 made their table after 003)
    await insertOld(h.db, { chamber_generations: generations });
    try {
      const numbered = await h.db.db
        .selectFrom("chamber_attempts")
        .select(["handle", "attempt_no"])
        .orderBy("created_at")
        .execute();
      expect(numbered.map((r) => [r.handle, Number(r.attempt_no)])).toEqual([
        [a.attempt_handle, 1],
        [b.attempt_handle, 2],
      ]);
      const keyed = await h.db.db.selectFrom("chamber_events").selectAll().orderBy("id").execute();
      const no = new Map(numbered.map((r) => [r.handle, Number(r.attempt_no)]));
      expect(keyed.map((e) => Number(e.id))).toEqual(
        keyed.map((e) => (no.get(e.handle) as number) * EVENT_KEY_SPAN + e.seq),
      );
      // Every other column is carried over unchanged.
      const strip = (rows: Array<Record<string, unknown>>) =>
        rows
          .map(({ id: _, ...r }) => r)
          .sort((x, y) => String(x.handle).localeCompare(String(y.handle)) || Number(x.seq) - Number(y.seq));
      expect(strip(keyed)).toEqual(strip(events));

      // The open attempt carries on and seals to a valid proof; a new attempt takes the next number.
      const next = await h.sc("chamber_action", {
        challenge_handle: a.attempt_handle,
        op: "look",
        expected_action_index: 2,
      });
      expect(next.ok, JSON.stringify(next)).toBe(true);
      const s = await h.sc("seal_attempt", { challenge_handle: a.attempt_handle });
      expect(s.ok, JSON.stringify(s)).toBe(true);
      const reg = new CardRegistry(h.db);
      const proof = await reg.proof(s.card_id as string);
      expect(proof?.replay.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
      expect(verifyProof(proof, await reg.keys(), CardRegistry.knownToolsets()).verdict).toBe("valid");
      const c = await h.sc("enter_open_challenge", { ...IDENTITY, seed: "mig-c" });
      const third = (await h.db.db
        .selectFrom("chamber_attempts")
        .select("attempt_no")
        .where("handle", "=", c.attempt_handle as string)
        .executeTakeFirstOrThrow()) as Pick<AttemptRow, "attempt_no">;
      expect(Number(third.attempt_no)).toBe(3);
    } finally {
      await h.close();
    }
  });

  it.each(["006_codex", "008_codex_seed_sources"])(
    "%s: the cards already signed are counted, seed sources and seeds sealed before too, by the rule new seals follow",
    async (migration) => {
      // Donor: signed cards (one with no action: never counted; a repeated seed; a server seed), its
      // Codex kept at signing.
      const donor = await harness(dialect);
      for (const [seed, actions] of [
        ["c-a", 1],
        ["c-b", 2],
        ["c-c", 0],
        ["c-a", 1],
        [undefined, 1],
      ] as const) {
        const e = await donor.sc("enter_open_challenge", { ...IDENTITY, ...(seed ? { seed } : {}) });
        for (let i = 0; i < actions; i++)
          await donor.sc("chamber_action", {
            challenge_handle: e.attempt_handle,
            op: "look",
            expected_action_index: i,
          });
        expect((await donor.sc("seal_attempt", { challenge_handle: e.attempt_handle })).ok).toBe(true);
      }
      const expected = await new CardRegistry(donor.db).codex();
      expect(expected.rows[0]?.cells["chambre-chrono-v0|mcp_session"]).toMatchObject({
        cards: 4,
        distinct_seeds: 3,
        seed_sources: { participant: 3, server: 1, ally: 0 },
        seed_sealed_before: 1,
      });
      // every table the donor has (the card log and the generations too: step 9 and the manifests)
      const donorTables = await donor.db.db.introspection.getTables();
      const first = ["chamber_attempts", "chamber_events", "chamber_cards", "chamber_keys"];
      const names = [
        ...first,
        ...donorTables
          .filter((t) => !donor.db.pgSchema || t.schema === donor.db.pgSchema)
          .map((t) => t.name)
          .filter((n) => n.startsWith("chamber_") && !first.includes(n))
          .sort(),
      ];
      const rows: Rows = {};
      const any = donor.db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      for (const t of names) rows[t] = await any.selectFrom(t).selectAll().execute();
      const secrets = donor.chamber.service.secrets;
      await donor.close();

      // The store as it was before the migration, holding the donor's rows (its Codex counters, from
      // 006 on, without the columns 008 adds).
      const db = await openTestDatabase<ChamberDB>(dialect);
      expect(chamberMigrations[migration]).toBeDefined();
      await migrate(db, "scoreia_migrations", migrationsBefore(migration));
      await insertOld(db, rows);
      const h = await harness(dialect, { db, secrets });
      try {
        const reg = new CardRegistry(h.db);
        expect(await reg.codex()).toEqual(expected);
        expect(await reg.recomputedCodex()).toEqual(expected);
      } finally {
        await h.close();
      }
    },
  );

  it("003_event_keys on an empty store: the first attempt is number 1", async () => {
    const h = await harness(dialect);
    try {
      const e = await h.sc("enter_open_challenge", { ...IDENTITY, seed: "first" });
      const row = await h.db.db
        .selectFrom("chamber_attempts")
        .select("attempt_no")
        .where("handle", "=", e.attempt_handle as string)
        .executeTakeFirstOrThrow();
      expect(Number(row.attempt_no)).toBe(1);
      const ids = await sql<{ id: number | string }>`select id from chamber_events`.execute(h.db.db);
      expect(ids.rows.map((r) => Number(r.id))).toEqual([EVENT_KEY_SPAN]);
    } finally {
      await h.close();
    }
  });
});
