import { type Generated, sql } from "kernel";
import { adoptLifecycle, type LifecycleColumns } from "../../platform/lifecycle.ts";
import type { Up } from "../../store/schema.ts";
import { mentionWords } from "./model.ts";

/**
 * Knowledge-graph tables. Nothing is ever physically deleted: entities, observations, relations
 * and aliases carry the never-delete vocabulary (platform/lifecycle.ts): `lifecycle` live | void
 * and the audit columns of each move. delete_* void a row (voided_at / voided_by / void_reason)
 * and re-creating it revives the same id (revived_at / revived_by), the void stamps kept as
 * last-void evidence. No graph row is retired, so retired_* stay null. Entity names are unique per
 * profile (name_norm), across projects: a name resolves to one identity.
 *
 * Entities and observations also have an integer column `rid`, absent from the row types (it is
 * generated and only raw search SQL uses it): on SQLite it is the rowid (INTEGER PRIMARY KEY),
 * which the external-content FTS5 tables point at and which VACUUM never renumbers; on
 * PostgreSQL it is a plain bigserial kept for the same table shape.
 */

/** The lifecycle columns of a graph row: live or void (nothing in the graph is retired). */
export type GraphLifecycle = LifecycleColumns<"live" | "void">;

export interface EntityRow extends GraphLifecycle {
  id: string;
  profile: string;
  project: string | null;
  name: string;
  /** NFKC, trimmed, inner whitespace collapsed, lowercased: the identity key within a profile. */
  name_norm: string;
  entity_type: string;
  /** The entity's aliases, one per line (search surface; the rows live in shampoo_aliases). */
  alias_text: string;
  /** shared: everyone with the project grant; private: its creator only (within the grant). */
  visibility: "shared" | "private";
  created_at: string;
  created_by: string;
  updated_at: string;
  last_event_id: string;
}

export interface ObservationRow extends GraphLifecycle {
  id: string;
  entity_id: string;
  profile: string;
  content: string;
  /** sha256 hex of the content: duplicate text is the same observation identity. */
  content_hash: string;
  /** Order within the entity (creation order; a revived observation keeps its place). */
  ord: number;
  created_at: string;
  created_by: string;
  last_event_id: string;
}

export interface RelationRow extends GraphLifecycle {
  id: string;
  profile: string;
  from_id: string;
  to_id: string;
  relation_type: string;
  created_at: string;
  created_by: string;
  last_event_id: string;
}

/** No tool voids an alias yet; the row carries the vocabulary like the other graph tables. */
export interface AliasRow extends GraphLifecycle {
  id: string;
  entity_id: string;
  profile: string;
  alias: string;
  alias_norm: string;
  created_at: string;
  created_by: string;
}

/**
 * The best-effort access note of knowledge-graph reads: append-only, queued after the read and
 * written with others in one transaction, never allowed to fail or change the read (store/access.ts).
 */
export interface GraphAccessRow {
  seq: Generated<number>;
  profile: string;
  principal: string;
  session_id: string | null;
  tool: string;
  at: string;
  /** JSON array of the entity ids the read returned. */
  entity_ids: string;
}

/** Rows as read back. */
export type Entity = EntityRow;
export type Observation = ObservationRow;

/**
 * The phrase index of entity names and aliases (012): one row per (entity, phrase key) of its
 * name and each alias (model.ts phraseKey; `words` counts its words). Task writes find the
 * entities their text mentions through it (links/service.ts discoverLinks) instead of reading
 * every entity. Rows are only added (names never change, aliases are only added): a row whose
 * alias is gone is a harmless extra candidate, the scorer re-checks every mention.
 */
export interface EntityPhraseRow {
  profile: string;
  phrase: string;
  words: number;
  entity_id: string;
}

export interface GraphDB {
  shampoo_entity_phrases: EntityPhraseRow;
  shampoo_entities: EntityRow;
  shampoo_observations: ObservationRow;
  shampoo_relations: RelationRow;
  shampoo_aliases: AliasRow;
  shampoo_graph_access: GraphAccessRow;
}

export const graphMigrations: Record<string, Up> = {
  async "0001_graph"(db, dialect) {
    const pg = dialect === "postgres";
    let entities = db.schema.createTable("shampoo_entities");
    entities = pg
      ? entities
          .addColumn("rid", "bigserial", (c) => c.notNull().unique())
          .addColumn("id", "text", (c) => c.primaryKey())
      : entities
          .addColumn("rid", "integer", (c) => c.primaryKey())
          .addColumn("id", "text", (c) => c.notNull().unique());
    await entities
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("name_norm", "text", (c) => c.notNull())
      .addColumn("entity_type", "text", (c) => c.notNull())
      .addColumn("alias_text", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("visibility", "text", (c) => c.notNull().defaultTo("shared"))
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("voided_at", "text")
      .addColumn("voided_by", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    // One identity per name in a profile, whatever its project or status.
    await db.schema
      .createIndex("shampoo_entities_name")
      .on("shampoo_entities")
      .columns(["profile", "name_norm"])
      .unique()
      .execute();
    // read_graph pages in name order over the live entities of a profile.
    await db.schema
      .createIndex("shampoo_entities_page")
      .on("shampoo_entities")
      .columns(["profile", "status", "name"])
      .execute();
    // search_by_project, export and per-project listing.
    await db.schema
      .createIndex("shampoo_entities_project")
      .on("shampoo_entities")
      .columns(["profile", "project", "status", "name"])
      .execute();

    let observations = db.schema.createTable("shampoo_observations");
    observations = pg
      ? observations
          .addColumn("rid", "bigserial", (c) => c.notNull().unique())
          .addColumn("id", "text", (c) => c.primaryKey())
      : observations
          .addColumn("rid", "integer", (c) => c.primaryKey())
          .addColumn("id", "text", (c) => c.notNull().unique());
    await observations
      .addColumn("entity_id", "text", (c) => c.notNull())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("content_hash", "text", (c) => c.notNull())
      .addColumn("ord", "integer", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("voided_at", "text")
      .addColumn("voided_by", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_observations_identity")
      .on("shampoo_observations")
      .columns(["entity_id", "content_hash"])
      .unique()
      .execute();
    await db.schema
      .createIndex("shampoo_observations_order")
      .on("shampoo_observations")
      .columns(["entity_id", "status", "ord"])
      .execute();

    await db.schema
      .createTable("shampoo_relations")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("from_id", "text", (c) => c.notNull())
      .addColumn("to_id", "text", (c) => c.notNull())
      .addColumn("relation_type", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("voided_at", "text")
      .addColumn("voided_by", "text")
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_relations_triple")
      .on("shampoo_relations")
      .columns(["profile", "from_id", "to_id", "relation_type"])
      .unique()
      .execute();
    await db.schema
      .createIndex("shampoo_relations_from")
      .on("shampoo_relations")
      .columns(["from_id", "status"])
      .execute();
    await db.schema.createIndex("shampoo_relations_to").on("shampoo_relations").columns(["to_id", "status"]).execute();

    await db.schema
      .createTable("shampoo_aliases")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("entity_id", "text", (c) => c.notNull())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("alias", "text", (c) => c.notNull())
      .addColumn("alias_norm", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_aliases_identity")
      .on("shampoo_aliases")
      .columns(["entity_id", "alias_norm"])
      .unique()
      .execute();

    let access = db.schema.createTable("shampoo_graph_access");
    access = pg
      ? access.addColumn("seq", "bigserial", (c) => c.primaryKey())
      : access.addColumn("seq", "integer", (c) => c.primaryKey().autoIncrement());
    await access
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("principal", "text", (c) => c.notNull())
      .addColumn("session_id", "text")
      .addColumn("tool", "text", (c) => c.notNull())
      .addColumn("at", "text", (c) => c.notNull())
      .addColumn("entity_ids", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_graph_access_at")
      .on("shampoo_graph_access")
      .columns(["profile", "at"])
      .execute();

    if (dialect === "sqlite") await sqliteSearch(db);
    else await postgresSearch(db);
  },
  /**
   * SQLite, the word indexes of search_nodes:
   * - read-only fts5vocab views (no storage of their own), from which search_nodes reads the
   *   words a prefix term covers (store/probes.ts prefixWords);
   * - usermerge 2, so that an explicit 'merge' (store/merge.ts tidySearchIndexes) leaves at most one
   *   segment per level: every term lookup probes each segment, so fewer segments make every
   *   search cheaper (13–21 segments at 100,000 entities cost 3–6× more per term than one).
   */
  async "0002_search_vocab"(db, dialect) {
    if (dialect !== "sqlite") return;
    for (const t of ["shampoo_entities_fts", "shampoo_observations_fts"]) {
      await sql.raw(`CREATE VIRTUAL TABLE ${t}_vocab USING fts5vocab(${t}, row)`).execute(db);
      await sql.raw(`INSERT INTO ${t}(${t}, rank) VALUES ('usermerge', 2)`).execute(db);
    }
  },
  async "0003_entity_phrases"(db) {
    await db.schema
      .createTable("shampoo_entity_phrases")
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("phrase", "text", (c) => c.notNull())
      .addColumn("words", "integer", (c) => c.notNull())
      .addColumn("entity_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_entity_phrases_key")
      .on("shampoo_entity_phrases")
      .columns(["profile", "phrase", "entity_id"])
      .unique()
      .execute();
    // The longest phrase of a profile (how long a run of task words can name an entity).
    await db.schema
      .createIndex("shampoo_entity_phrases_words")
      .on("shampoo_entity_phrases")
      .columns(["profile", "words"])
      .execute();
    // Entities written before this migration.
    let after = -1;
    for (;;) {
      const page = (
        await sql<{ rid: number; id: string; profile: string; name: string; alias_text: string }>`
        SELECT rid, id, profile, name, alias_text FROM shampoo_entities WHERE rid > ${after} ORDER BY rid LIMIT 1000`.execute(
          db,
        )
      ).rows;
      if (page.length === 0) break;
      after = Number(page[page.length - 1]?.rid);
      const rows = page.flatMap((e) => phraseRows(e.profile, e.id, [e.name, ...e.alias_text.split("\n")]));
      for (let i = 0; i < rows.length; i += 500) {
        await db
          .insertInto("shampoo_entity_phrases" as never)
          .values(rows.slice(i, i + 500) as never)
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    }
  },
  /**
   * The graph's four tables onto the never-delete vocabulary (platform/lifecycle.ts): `status`
   * active | voided becomes `lifecycle` live | void, voided_at / voided_by keep their names and
   * the other audit columns are added. The indexes on status (entity pages and project lists,
   * observation order, relation ends) follow the rename; none names a status value, and the
   * SQLite FTS triggers never read the column.
   */
  async "0004_lifecycle"(db, dialect) {
    for (const table of ["shampoo_entities", "shampoo_observations", "shampoo_relations", "shampoo_aliases"]) {
      await adoptLifecycle(db, dialect, { table, state: { column: "status", map: { voided: "void" } } });
    }
  },
};

/** The phrase rows of an entity's name and aliases (texts without a word make none). */
export function phraseRows(profile: string, entityId: string, texts: string[]): EntityPhraseRow[] {
  const out = new Map<string, EntityPhraseRow>();
  for (const t of texts) {
    const words = mentionWords(t);
    if (words.length === 0) continue;
    const phrase = words.join(" ");
    out.set(phrase, { profile, phrase, words: words.length, entity_id: entityId });
  }
  return [...out.values()];
}

/**
 * SQLite: four external-content FTS5 tables kept in sync by triggers (so every write path,
 * present or future, keeps them right), each O(1) per changed row.
 * - word indexes (unicode61, diacritics folded) rank search_nodes with bm25;
 * - trigram indexes give search_by_project its substring pool.
 * Entity documents are name, aliases, type; an entity's FTS row only changes when one of those
 * does (AFTER UPDATE OF …), not on every touch. Observation text never changes after insert.
 */
async function sqliteSearch(db: Parameters<Up>[0]): Promise<void> {
  const words = "tokenize='unicode61 remove_diacritics 2'";
  const tri = "tokenize='trigram remove_diacritics 1'";
  const ent = "content='shampoo_entities', content_rowid='rid'";
  const obs = "content='shampoo_observations', content_rowid='rid'";
  await sql
    .raw(`CREATE VIRTUAL TABLE shampoo_entities_fts USING fts5(name, alias_text, entity_type, ${ent}, ${words})`)
    .execute(db);
  await sql
    .raw(`CREATE VIRTUAL TABLE shampoo_entities_tri USING fts5(name, alias_text, entity_type, ${ent}, ${tri})`)
    .execute(db);
  await sql.raw(`CREATE VIRTUAL TABLE shampoo_observations_fts USING fts5(content, ${obs}, ${words})`).execute(db);
  await sql.raw(`CREATE VIRTUAL TABLE shampoo_observations_tri USING fts5(content, ${obs}, ${tri})`).execute(db);
  for (const t of ["shampoo_entities_fts", "shampoo_entities_tri"]) {
    await sql
      .raw(`CREATE TRIGGER ${t}_ai AFTER INSERT ON shampoo_entities BEGIN
        INSERT INTO ${t}(rowid, name, alias_text, entity_type) VALUES (new.rid, new.name, new.alias_text, new.entity_type);
      END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${t}_au AFTER UPDATE OF name, alias_text, entity_type ON shampoo_entities BEGIN
        INSERT INTO ${t}(${t}, rowid, name, alias_text, entity_type) VALUES ('delete', old.rid, old.name, old.alias_text, old.entity_type);
        INSERT INTO ${t}(rowid, name, alias_text, entity_type) VALUES (new.rid, new.name, new.alias_text, new.entity_type);
      END`)
      .execute(db);
  }
  for (const t of ["shampoo_observations_fts", "shampoo_observations_tri"]) {
    await sql
      .raw(`CREATE TRIGGER ${t}_ai AFTER INSERT ON shampoo_observations BEGIN
        INSERT INTO ${t}(rowid, content) VALUES (new.rid, new.content);
      END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER ${t}_au AFTER UPDATE OF content ON shampoo_observations BEGIN
        INSERT INTO ${t}(${t}, rowid, content) VALUES ('delete', old.rid, old.content);
        INSERT INTO ${t}(rowid, content) VALUES (new.rid, new.content);
      END`)
      .execute(db);
  }
}

/**
 * Accent folding for PostgreSQL, which has no immutable unaccent built in: `translate()` with a
 * map from every Latin letter with diacritics (U+00C0–U+024F, U+1E00–U+1EFF) whose canonical
 * decomposition is an ASCII letter plus marks, to that letter — the same folding as model.ts
 * fold() and SQLite's remove_diacritics. Canonical decompositions are frozen by Unicode's
 * stability policy, so this map (and every index built on it) never changes.
 */
function foldMap(): { from: string; to: string } {
  let from = "";
  let to = "";
  for (const [lo, hi] of [
    [0xc0, 0x24f],
    [0x1e00, 0x1eff],
  ] as const) {
    for (let cp = lo; cp <= hi; cp++) {
      const ch = String.fromCodePoint(cp);
      const base = ch.normalize("NFD").replace(/\p{M}/gu, "");
      if (base !== ch && /^[A-Za-z]$/.test(base)) {
        from += ch;
        to += base;
      }
    }
  }
  return { from, to };
}

const FOLD = foldMap();

/** The folded, lowercased SQL expression of a text column (PostgreSQL). */
export function pgFold(col: string): string {
  return `translate(lower(${col}), '${FOLD.from}', '${FOLD.to.toLowerCase()}')`;
}

/** The entity search document (PostgreSQL expression): name, aliases and type. */
export const PG_ENTITY_DOC = "(name || E'\\n' || alias_text || E'\\n' || entity_type)";

/**
 * Every GIN index keeps its pending list at the minimum (gin_pending_list_limit = 64 kB): every
 * search scans the not-yet-merged entries linearly, and with the default 4 MB that cost about
 * 5 ms per probe at 500,000 observations; with 64 kB a search reads at most 8 pending pages,
 * while inserts still batch their merges (fastupdate = off made bulk writes markedly slower).
 *
 * PostgreSQL: generated tsvector columns ('simple' configuration: lowercased words, no stemming,
 * like the SQLite word index) with GIN indexes for search_nodes; entity documents weight name A,
 * aliases B, type C. The substring pool of search_by_project is `ILIKE '%term%'`, which a
 * pg_trgm GIN index accelerates when the extension can be had (trusted since PostgreSQL 13;
 * installed in schema public, so dropping a SHAMPOO schema never drops it). Without it the same
 * queries run, just without the accelerator: the index is an optimisation, never a dependency.
 */
async function postgresSearch(db: Parameters<Up>[0]): Promise<void> {
  const f = (col: string) => sql.raw(pgFold(col));
  await sql`ALTER TABLE shampoo_entities ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', ${f("name")}), 'A') ||
    setweight(to_tsvector('simple', ${f("alias_text")}), 'B') ||
    setweight(to_tsvector('simple', ${f("entity_type")}), 'C')
  ) STORED`.execute(db);
  await sql`CREATE INDEX shampoo_entities_search ON shampoo_entities USING gin (search) WITH (gin_pending_list_limit = 64)`.execute(
    db,
  );
  await sql`ALTER TABLE shampoo_observations ADD COLUMN search tsvector GENERATED ALWAYS AS (
    to_tsvector('simple', ${f("content")})
  ) STORED`.execute(db);
  await sql`CREATE INDEX shampoo_observations_search ON shampoo_observations USING gin (search) WITH (gin_pending_list_limit = 64)`.execute(
    db,
  );
  // The DO block's exception handler is a subtransaction: a refused extension (no privilege, a
  // concurrent installer, an install in another schema) leaves the migration intact.
  await sql`DO $do$
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
    CREATE INDEX shampoo_entities_trgm ON shampoo_entities
      USING gin ((${f(PG_ENTITY_DOC)}) public.gin_trgm_ops) WITH (gin_pending_list_limit = 64);
    CREATE INDEX shampoo_observations_trgm ON shampoo_observations
      USING gin ((${f("content")}) public.gin_trgm_ops) WITH (gin_pending_list_limit = 64);
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm unavailable (%): search_by_project runs without its trigram index', SQLERRM;
  END $do$`.execute(db);
}

/** The names these had in the pre-module ledger (platform/migrate.ts adoptLegacy). */
export const graphLegacy: Record<string, string[]> = {
  "0001_graph": ["002_graph"],
  "0002_search_vocab": ["007_graph_search_vocab"],
};
