/**
 * The real binary on PostgreSQL: `scoreia serve --db postgres://…/test?schema=NAME` keeps every
 * Chamber table in its own schema (so it cannot clash with other runs' tables in public), and a
 * full attempt on each suite seals to a signed card stored there.
 */
import { PG_URL } from "kernel/store/testing.ts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CardRowAtRest,
  checkCardAtRest,
  expectAllValidated,
  fullAttempt,
  type StdioServer,
  SUITE_IDS,
  startStdio,
  tempDir,
} from "./support.ts";

const SCHEMA = `e2e_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const url = new URL(PG_URL);
url.searchParams.set("schema", SCHEMA);
const DB_URL = url.toString();

const tmp = tempDir("pg");
let server: StdioServer;
let admin: pg.Client;
/** Whether the Chamber's tables already existed in public before this file ran. */
let publicHadChamber = true;

const CHAMBER_TABLES = [
  "chamber_help",
  "chamber_events",
  "chamber_cards",
  "chamber_attempts",
  "scoreia_migrations",
  "scoreia_migrations_lock",
];

async function publicHasChamber(): Promise<boolean> {
  const r = await admin.query<{ t: string | null }>("SELECT to_regclass('public.scoreia_migrations')::text AS t");
  return Boolean(r.rows[0]?.t);
}

beforeAll(async () => {
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  publicHadChamber = await publicHasChamber();
  server = await startStdio(["--db", DB_URL, "--data-dir", tmp.dir], "scoreia-e2e-pg");
});

afterAll(async () => {
  const gone = await server?.stop();
  if (admin) {
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    // Should the URL's schema ever be ignored again, the binary migrates into public: undo that
    // when this run created those tables and they hold only its own attempts, so a regression
    // fails the test above without polluting the shared database.
    if (!publicHadChamber && (await publicHasChamber())) {
      const foreign = await admin
        .query("SELECT 1 FROM public.chamber_attempts WHERE seed NOT LIKE 'e2e-pg-%' LIMIT 1")
        .catch(() => ({ rowCount: 0 }));
      if (foreign.rowCount === 0) {
        await admin.query(`DROP TABLE IF EXISTS ${CHAMBER_TABLES.map((t) => `public.${t}`).join(", ")}`);
      }
    }
    const left = await admin.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [SCHEMA]);
    await admin.end();
    expect(left.rowCount, "the test schema is dropped").toBe(0);
  }
  tmp.remove();
  expect(gone, "the server process is gone after stdin closes").toBe(true);
});

async function readPgCard(cardId: string): Promise<CardRowAtRest> {
  const r = await admin.query<CardRowAtRest>(
    `SELECT card_id, handle, body_json, signature_json, evidence_status FROM ${SCHEMA}.chamber_cards WHERE card_id = $1`,
    [cardId],
  );
  const row = r.rows[0];
  if (!row) throw new Error(`card ${cardId} is not in schema ${SCHEMA}`);
  return row;
}

describe("scoreia serve --db postgres://…?schema=NAME", () => {
  it("opens PostgreSQL in the schema named by the URL, and reports it without the query parameter", async () => {
    expect(DB_URL).toContain(`?schema=${SCHEMA}`);
    await vi.waitFor(() => expect(server.stderr()).toContain(`(schema ${SCHEMA})`));
    expect(server.stderr()).not.toContain("?schema=");
    const tables = await admin.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [SCHEMA],
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        "chamber_attempts",
        "chamber_cards",
        "chamber_events",
        "chamber_help",
        "scoreia_migrations",
      ]),
    );
  });

  const cards: string[] = [];
  for (const [i, suite] of SUITE_IDS.entries()) {
    it(`runs a full attempt on ${suite} and stores the signed card in that schema`, async () => {
      const seed = `e2e-pg-${i}`;
      const out = await fullAttempt(server.session, suite, seed);
      const body = checkCardAtRest(await readPgCard(out.cardId), tmp.dir, {
        handle: out.handle,
        suite,
        seed,
        actions: out.actions,
      });
      expect(body.observed_client).toEqual({ name: "scoreia-e2e-pg", version: "1.0.0" });
      const events = await admin.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.chamber_events WHERE handle = $1`, [
        out.handle,
      ]);
      // enter + one event per action + seal
      expect(events.rows[0].n).toBe(out.actions + 2);
      cards.push(out.cardId);
    });
  }

  it("wrote nothing to the public schema", async () => {
    expect(cards).toHaveLength(SUITE_IDS.length);
    if (!publicHadChamber) expect(await publicHasChamber(), "no Chamber tables appeared in public").toBe(false);
    const pub = await admin.query<{ t: string | null }>("SELECT to_regclass('public.chamber_cards')::text AS t");
    if (pub.rows[0]?.t) {
      const r = await admin.query("SELECT 1 FROM public.chamber_cards WHERE card_id = ANY($1)", [cards]);
      expect(r.rowCount).toBe(0);
    }
  });

  it("validated every structuredContent against its tool's outputSchema", () => {
    expectAllValidated(server.session, 2 * 4 + 2);
  });
});
