import { type DialectName, engineOf, type Kysely, sql } from "kernel";
import { addToCodex, signatureVerifies } from "../evidence/codex.ts";
import { sha256Tagged } from "../evidence/jcs.ts";
import { appendLeaf, LEAF_TYPE } from "../evidence/log.ts";

/** Row types of the Chamber's tables. JSON columns hold RFC 8259 text on both dialects. */
export interface AttemptRow {
  handle: string;
  toolset_id: string;
  suite_id: string;
  suite_generation: string;
  manifest_hash: string;
  seed: string;
  seed_source: string;
  state: string;
  action_index: number;
  event_count: number;
  quarantine_reason: string | null;
  /** 32 random bytes (hex) salting the digests of private values in the public replay. */
  replay_salt: string;
  room_json: string;
  identity_json: string;
  observed_client_json: string | null;
  preflight_json: string | null;
  route_key: string | null;
  participation_class: string;
  assurance: string;
  channel: string;
  mcp_session: string | null;
  created_at: string;
  expires_at: string;
  updated_at: string;
  terminal_at: string | null;
  verdict: string | null;
  card_id: string | null;
  /**
   * Hash of the attempt's last event in its public replay chain (docs/evidence-0.2.md §Replay),
   * kept on every event write so the seal binds the chain without re-reading it. Null for
   * attempts entered before migration 002, whose seal rebuilds the chain from the stored events.
   */
  chain_head: string | null;
  /**
   * The attempt's number in this store (1, 2, …), given at enter; its events are keyed by it
   * (EventRow.id). Migration 003 numbered the attempts it found in order of creation. PostgreSQL
   * returns it as a string (bigint): read it through `attemptNo()`.
   */
  attempt_no: number;
  /** 1 when a card of the same suite generation and seed existed at entry (migration 005), else 0. */
  seed_sealed_before: number | null;
}

/** Events of one attempt occupy ids attempt_no × EVENT_KEY_SPAN + seq (seq < EVENT_KEY_SPAN). */
export const EVENT_KEY_SPAN = 2 ** 20;

export interface EventRow {
  /**
   * attempt_no × EVENT_KEY_SPAN + seq: one integer key, so an event is one row in one b-tree
   * (SQLite: the rowid) and an attempt's events are one contiguous key range.
   */
  id: number;
  handle: string;
  seq: number;
  kind: string;
  action_index: number | null;
  request_json: string;
  response_json: string;
  private_json: string | null;
  at: string;
  /** This event's hash in the public replay chain, computed as it is written (null before migration 002). */
  hash: string | null;
}

export interface CardRow {
  card_id: string;
  /** Null for imported historical cards, which have no attempt here. */
  handle: string | null;
  card_version: string;
  body_json: string;
  signature_json: string | null;
  evidence_status: string;
  created_at: string;
  signed_at: string | null;
}

export interface HelpRow {
  id: string;
  from_handle: string;
  ally: string;
  seed: string;
  suite_id: string;
  created_at: string;
  /** When the ally seed was first entered (migration 005); null while unused. */
  entered_at: string | null;
}

export interface KeyRow {
  key_id: string;
  alg: string;
  public_key: string;
  not_before: string;
  not_after: string | null;
}

/** The card transparency log (evidence/log.ts, docs/evidence-0.2.md §15). */
export interface LogLeafRow {
  idx: number;
  card_id: string;
  /** JCS of the leaf object; its RFC 6962 leaf hash is chamber_log_nodes (0, idx). */
  leaf_json: string;
  logged_at: string;
}

export interface LogNodeRow {
  /** Hash of the complete subtree of 2^level leaves starting at leaf idx × 2^level (hex). */
  level: number;
  idx: number;
  hash: string;
}

export interface LogHeadRow {
  tree_size: number;
  head_json: string;
}

export interface LogStateRow {
  id: number;
  size: number;
}

/** Suite generations with a room secret (suites/secrets.ts): public manifest; secret once revealed. */
export interface GenerationRow {
  suite_id: string;
  generation: string;
  manifest_json: string;
  manifest_hash: string;
  created_at: string;
  /** Null while the generation is current; its secret (hex) once revealed. */
  revealed_at: string | null;
  secret: string | null;
}

/** One Codex counter: per comparison key (scope "key") or per cell (scope "cell"); evidence/codex.ts. */
export interface CodexCounterRow {
  scope: string;
  /** RFC 8785 text of the comparison key, or of the cell's subject + suite + channel. */
  id: string;
  key_json: string;
  cards: number;
  distinct_seeds: number;
  solved: number;
  failed: number;
  exhausted: number;
  abandoned: number;
  /** Cards whose seed came from each source (migration 008). */
  seed_participant: number;
  seed_server: number;
  seed_ally: number;
  /** Cards that say `seed_sealed_before: true` (migration 008). */
  seed_sealed_before: number;
}

/** A seed already counted in a scope ("key:<id>" or "cell:<id>"): a repeated seed never raises a level. */
export interface CodexSeedRow {
  scope: string;
  seed: string;
}

export interface ChamberDB {
  chamber_generations: GenerationRow;
  chamber_log_leaves: LogLeafRow;
  chamber_log_nodes: LogNodeRow;
  chamber_log_heads: LogHeadRow;
  chamber_log_state: LogStateRow;
  chamber_codex: CodexCounterRow;
  chamber_codex_seeds: CodexSeedRow;
  chamber_keys: KeyRow;
  chamber_attempts: AttemptRow;
  chamber_events: EventRow;
  chamber_cards: CardRow;
  chamber_help: HelpRow;
}

/** Migrations per dialect (kernel `migrate`). Timestamps are ISO-8601 UTC text on both engines. */
export const chamberMigrations: Record<string, (db: Kysely<unknown>, dialect: DialectName) => Promise<void>> = {
  async "001_chamber"(db) {
    await db.schema
      .createTable("chamber_attempts")
      .addColumn("handle", "text", (c) => c.primaryKey())
      .addColumn("toolset_id", "text", (c) => c.notNull())
      .addColumn("suite_id", "text", (c) => c.notNull())
      .addColumn("suite_generation", "text", (c) => c.notNull())
      .addColumn("manifest_hash", "text", (c) => c.notNull())
      .addColumn("seed", "text", (c) => c.notNull())
      .addColumn("seed_source", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("action_index", "integer", (c) => c.notNull())
      .addColumn("event_count", "integer", (c) => c.notNull())
      .addColumn("quarantine_reason", "text")
      .addColumn("replay_salt", "text", (c) => c.notNull())
      .addColumn("room_json", "text", (c) => c.notNull())
      .addColumn("identity_json", "text", (c) => c.notNull())
      .addColumn("observed_client_json", "text")
      .addColumn("preflight_json", "text")
      .addColumn("route_key", "text")
      .addColumn("participation_class", "text", (c) => c.notNull())
      .addColumn("assurance", "text", (c) => c.notNull())
      .addColumn("channel", "text", (c) => c.notNull())
      .addColumn("mcp_session", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("expires_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("terminal_at", "text")
      .addColumn("verdict", "text")
      .addColumn("card_id", "text")
      .execute();
    await db.schema
      .createTable("chamber_events")
      .addColumn("handle", "text", (c) => c.notNull().references("chamber_attempts.handle"))
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("action_index", "integer")
      .addColumn("request_json", "text", (c) => c.notNull())
      .addColumn("response_json", "text", (c) => c.notNull())
      .addColumn("private_json", "text")
      .addColumn("at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("chamber_events_pk", ["handle", "seq"])
      .execute();
    await db.schema
      .createTable("chamber_cards")
      .addColumn("card_id", "text", (c) => c.primaryKey())
      .addColumn("handle", "text", (c) => c.unique().references("chamber_attempts.handle"))
      .addColumn("card_version", "text", (c) => c.notNull())
      .addColumn("body_json", "text", (c) => c.notNull())
      .addColumn("signature_json", "text")
      .addColumn("evidence_status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("signed_at", "text")
      .execute();
    await db.schema
      .createIndex("chamber_cards_created")
      .on("chamber_cards")
      .columns(["created_at", "card_id"])
      .execute();
    await db.schema
      .createTable("chamber_keys")
      .addColumn("key_id", "text", (c) => c.primaryKey())
      .addColumn("alg", "text", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("not_before", "text", (c) => c.notNull())
      .addColumn("not_after", "text")
      .execute();
    await db.schema
      .createTable("chamber_help")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("from_handle", "text", (c) => c.notNull().references("chamber_attempts.handle"))
      .addColumn("ally", "text", (c) => c.notNull())
      .addColumn("seed", "text", (c) => c.notNull())
      .addColumn("suite_id", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  },
  /** The replay chain is computed as events are written (AttemptRow.chain_head, EventRow.hash). */
  async "002_chain_head"(db) {
    await db.schema.alterTable("chamber_attempts").addColumn("chain_head", "text").execute();
    await db.schema.alterTable("chamber_events").addColumn("hash", "text").execute();
  },
  /**
   * Events keyed by one integer (EventRow.id) instead of (handle, seq): on SQLite the primary key
   * (handle, seq) was a second b-tree beside the table, so every event write dirtied two pages and
   * two WAL frames (docs/chamber.md, Performance). Attempts get a number; events are copied over
   * with their ids, nothing else changes.
   */
  async "003_event_keys"(db, dialect) {
    await db.schema.alterTable("chamber_attempts").addColumn("attempt_no", "bigint").execute();
    await sql`update chamber_attempts set attempt_no = n.no
      from (select handle, row_number() over (order by created_at, handle) as no from chamber_attempts) as n
      where n.handle = chamber_attempts.handle`.execute(db);
    await db.schema.createIndex("chamber_attempts_no").unique().on("chamber_attempts").column("attempt_no").execute();
    if (dialect === "postgres") {
      await sql`create sequence chamber_attempt_no_seq`.execute(db);
      await sql`select setval('chamber_attempt_no_seq', coalesce((select max(attempt_no) from chamber_attempts), 0) + 1, false)`.execute(
        db,
      );
    }
    await db.schema
      .createTable("chamber_events_keyed")
      // The columns of 001's chamber_events repeated on purpose: a migration is a frozen snapshot.
      // SQLite: "integer primary key" is the rowid itself, no separate index.
      .addColumn("id", dialect === "postgres" ? "bigint" : "integer", (c) => c.primaryKey())
      .addColumn("handle", "text", (c) => c.notNull().references("chamber_attempts.handle"))
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("action_index", "integer")
      .addColumn("request_json", "text", (c) => c.notNull())
      .addColumn("response_json", "text", (c) => c.notNull())
      .addColumn("private_json", "text")
      .addColumn("at", "text", (c) => c.notNull())
      .addColumn("hash", "text")
      .execute();
    await sql`insert into chamber_events_keyed
        (id, handle, seq, kind, action_index, request_json, response_json, private_json, at, hash)
      select a.attempt_no * ${sql.lit(EVENT_KEY_SPAN)} + e.seq, e.handle, e.seq, e.kind, e.action_index,
        e.request_json, e.response_json, e.private_json, e.at, e.hash
      from chamber_events e join chamber_attempts a on a.handle = e.handle`.execute(db);
    await db.schema.dropTable("chamber_events").execute();
    await db.schema.alterTable("chamber_events_keyed").renameTo("chamber_events").execute();
  },
  /**
   * The card transparency log. Cards signed before it existed are appended first, in the order
   * they were signed, with logged_at = signed_at (so a verifier's time check holds for them;
   * docs/evidence-0.2.md §15.2): every signed card is in the log, so a card that is not is forged.
   */
  async "004_card_log"(db, dialect) {
    await db.schema
      .createTable("chamber_log_leaves")
      .addColumn("idx", "bigint", (c) => c.primaryKey())
      .addColumn("card_id", "text", (c) => c.notNull().unique())
      .addColumn("leaf_json", "text", (c) => c.notNull())
      .addColumn("logged_at", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("chamber_log_nodes")
      .addColumn("level", "integer", (c) => c.notNull())
      .addColumn("idx", "bigint", (c) => c.notNull())
      .addColumn("hash", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("chamber_log_nodes_pk", ["level", "idx"])
      .execute();
    await db.schema
      .createTable("chamber_log_heads")
      .addColumn("tree_size", "bigint", (c) => c.primaryKey())
      .addColumn("head_json", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("chamber_log_state")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("size", "bigint", (c) => c.notNull())
      .execute();
    const cdb = db as unknown as Kysely<ChamberDB>;
    await cdb.insertInto("chamber_log_state").values({ id: 1, size: 0 }).execute();
    const signed = await cdb
      .selectFrom("chamber_cards")
      .select(["card_id", "body_json", "signed_at"])
      .where("evidence_status", "=", "signed")
      .orderBy("signed_at")
      .orderBy("card_id")
      .execute();
    for (const c of signed) {
      const at = c.signed_at as string;
      await appendLeaf(cdb, engineOf({ dialect }), {
        type: LEAF_TYPE,
        card_id: c.card_id,
        card_hash: sha256Tagged(c.body_json),
        signed_at: at,
        logged_at: at,
      });
    }
  },
  /** Room secrets per suite generation (issue 16 §1), and whether a seed was sealed before an entry. */
  async "005_suite_generations"(db) {
    await db.schema
      .createTable("chamber_generations")
      .addColumn("suite_id", "text", (c) => c.notNull())
      .addColumn("generation", "text", (c) => c.notNull())
      .addColumn("manifest_json", "text", (c) => c.notNull())
      .addColumn("manifest_hash", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("revealed_at", "text")
      .addColumn("secret", "text")
      .addPrimaryKeyConstraint("chamber_generations_pk", ["suite_id", "generation"])
      .execute();
    await db.schema.alterTable("chamber_attempts").addColumn("seed_sealed_before", "integer").execute();
    await db.schema.alterTable("chamber_help").addColumn("entered_at", "text").execute();
    await db.schema.createIndex("chamber_attempts_seed").on("chamber_attempts").columns(["suite_id", "seed"]).execute();
  },
  /**
   * The Codex kept as counters updated in the transaction that signs a card (evidence/codex.ts),
   * instead of a recomputation from every card on every request. The cards already signed are
   * counted by 008, which recounts every card (this migration once counted them with the
   * `addToCodex` of its day; today's writes the columns 008 adds, so the count moved there).
   */
  async "006_codex"(db) {
    const counter = (t: string) =>
      db.schema
        .createTable(t)
        .addColumn("scope", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("key_json", "text", (c) => c.notNull())
        .addColumn("cards", "integer", (c) => c.notNull())
        .addColumn("distinct_seeds", "integer", (c) => c.notNull())
        .addColumn("solved", "integer", (c) => c.notNull())
        .addColumn("failed", "integer", (c) => c.notNull())
        .addColumn("exhausted", "integer", (c) => c.notNull())
        .addColumn("abandoned", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint(`${t}_pk`, ["scope", "id"]);
    await counter("chamber_codex").execute();
    await db.schema
      .createTable("chamber_codex_seeds")
      .addColumn("scope", "text", (c) => c.notNull())
      .addColumn("seed", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("chamber_codex_seeds_pk", ["scope", "seed"])
      .execute();
  },
  /** Unsealed attempts past TTL + retention are found by expiry and deleted (ChamberService.purgeUnsealed). */
  async "007_expiry_index"(db) {
    await db.schema.createIndex("chamber_attempts_expiry").on("chamber_attempts").column("expires_at").execute();
  },
  /**
   * Each Codex counter also counts its cards' seed sources and the cards whose seed had been
   * sealed before (issue 16 §1). The counters are then recounted from every signed card by the
   * rule new seals follow: the signature verifies against the stored key record, at least one
   * action, one of the four outcomes (evidence/codex.ts). One pass over the cards, once.
   */
  async "008_codex_seed_sources"(db) {
    for (const column of ["seed_participant", "seed_server", "seed_ally", "seed_sealed_before"]) {
      await db.schema
        .alterTable("chamber_codex")
        .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    }
    const chamber = db as unknown as Kysely<ChamberDB>;
    await chamber.deleteFrom("chamber_codex").execute();
    await chamber.deleteFrom("chamber_codex_seeds").execute();
    const keys = (await chamber.selectFrom("chamber_keys").selectAll().execute()).map((k) => ({
      ...k,
      alg: "Ed25519" as const,
    }));
    const cards = await chamber
      .selectFrom("chamber_cards")
      .select(["body_json", "signature_json"])
      .where("card_version", "=", "0.2")
      .where("evidence_status", "=", "signed")
      .execute();
    for (const c of cards) {
      if (c.signature_json && signatureVerifies(c.body_json, JSON.parse(c.signature_json), keys)) {
        await addToCodex(chamber, JSON.parse(c.body_json));
      }
    }
  },
};
