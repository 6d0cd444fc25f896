import { type Kysely, migrate, sql } from "kernel";
import { DIALECTS, openTestDatabase } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { type AttemptRow, type ChamberDB, chamberMigrations, EVENT_KEY_SPAN } from "../src/attempts/schema.ts";
import { CardRegistry } from "../src/evidence/registry.ts";
import { verifyProof } from "../src/evidence/verify.ts";
import { harness, IDENTITY } from "./support/chamber.ts";

/** The migrations that ran before `name`, as a store of that age had them. */
function migrationsBefore(name: string): typeof chamberMigrations {
  return Object.fromEntries(Object.entries(chamberMigrations).filter(([k]) => k < name));
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
    await donor.close();

    // The store as migration 002 left it, holding the same rows (inserted newest first).
    const db = await openTestDatabase<ChamberDB>(dialect);
    expect(chamberMigrations["003_event_keys"]).toBeDefined();
    const before = migrationsBefore("003_event_keys");
    await migrate(db, "scoreia_migrations", before);
    const legacy = db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const { attempt_no: _, ...row } of [...attempts].reverse())
      await legacy.insertInto("chamber_attempts").values(row).execute();
    for (const { id: _, ...row } of [...events].reverse())
      await legacy.insertInto("chamber_events").values(row).execute();

    // Migrated by the harness (migrateChamber), then used by the current code.
    const h = await harness(dialect, { db });
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

  it("006_codex counts the cards already signed, by the rule new seals follow", async () => {
    // Donor: three signed cards (one with no action: never counted), its Codex kept at signing.
    const donor = await harness(dialect);
    for (const [seed, actions] of [
      ["c-a", 1],
      ["c-b", 2],
      ["c-c", 0],
    ] as const) {
      const e = await donor.sc("enter_open_challenge", { ...IDENTITY, seed });
      for (let i = 0; i < actions; i++)
        await donor.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look", expected_action_index: i });
      expect((await donor.sc("seal_attempt", { challenge_handle: e.attempt_handle })).ok).toBe(true);
    }
    const expected = await new CardRegistry(donor.db).codex();
    expect(expected.rows[0]?.cells["chambre-chrono-v0|mcp_session"]?.cards).toBe(2);
    const rows: Record<string, Array<Record<string, unknown>>> = {};
    for (const t of ["chamber_attempts", "chamber_events", "chamber_cards", "chamber_keys"] as const)
      rows[t] = await donor.db.db.selectFrom(t).selectAll().execute();
    await donor.close();

    const db = await openTestDatabase<ChamberDB>(dialect);
    await migrate(db, "scoreia_migrations", migrationsBefore("006_codex"));
    const legacy = db.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const [t, list] of Object.entries(rows)) for (const r of list) await legacy.insertInto(t).values(r).execute();
    const h = await harness(dialect, { db });
    try {
      const reg = new CardRegistry(h.db);
      expect(await reg.codex()).toEqual(expected);
      expect(await reg.recomputedCodex()).toEqual(expected);
    } finally {
      await h.close();
    }
  });

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
