import { type DialectName, sql } from "kernel";
import type { Up } from "../../store/schema.ts";
import { finishedTestSql, heatSql, LIVE_STATUS_SQL, rankSql } from "./store/ready-sql.ts";

/** Row types. Timestamps are ISO-8601 UTC text; both dialects alike. */
export interface TaskRow {
  id: string;
  profile: string;
  project: string | null;
  title: string;
  title_norm: string;
  type: string;
  status: string;
  priority: string;
  section: string;
  description: string | null;
  notes: string | null;
  due_date: string | null;
  parent_id: string | null;
  recurring: string | null;
  reminder_at: string | null;
  assignee: string | null;
  shared_by: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  last_event_id: string;
}

/**
 * SQLite only (008): a narrow copy of the columns full-text reads filter and order by, keyed by
 * the task's rowid (the FTS table's key), kept by triggers in the statement of every write.
 */
export type TaskFacetRow = Pick<
  TaskRow,
  | "id"
  | "profile"
  | "project"
  | "title_norm"
  | "type"
  | "status"
  | "priority"
  | "section"
  | "due_date"
  | "parent_id"
  | "created_at"
  | "updated_at"
> & { rid: number };

/**
 * SQLite only (010): the numbers of a profile (project "", jno 0: also its untagged enclave) and
 * of each project inside it that has had live content; the key of shampoo_tasks_live_fts.
 */
export interface TaskScopeRow {
  profile: string;
  project: string;
  pno: number;
  jno: number;
}

export interface TasksDB {
  shampoo_tasks: TaskRow;
  shampoo_tasks_facets: TaskFacetRow;
  shampoo_task_scopes: TaskScopeRow;
}

/** The columns of shampoo_tasks_facets besides its key (008). */
export const FACET_COLUMNS = [
  "id",
  "profile",
  "project",
  "title_norm",
  "type",
  "status",
  "priority",
  "section",
  "due_date",
  "parent_id",
  "created_at",
  "updated_at",
] as const;

/**
 * The key of a live task in shampoo_tasks_live_fts (010): its scope's numbers and its rowid,
 * `pno << 52 | jno << 32 | rowid`, for a row alias of shampoo_tasks (`new`, `old`, `t`).
 */
export const LIVE_KEY_SQL = (row: string) =>
  `((SELECT (pno << 52) | (jno << 32) FROM shampoo_task_scopes WHERE profile = ${row}.profile AND project = coalesce(${row}.project, '')) | ${row}.rowid)`;

/**
 * The tasks module's migrations (`tasks/0001_…`). `tasksLegacy` maps each to the name it had in
 * the single pre-module ledger (shampoo_migrations), so an existing database upgrades in place.
 */
export const tasksMigrations: Record<string, Up> = {
  async "0001_tasks"(db, dialect: DialectName) {
    await db.schema
      .createTable("shampoo_tasks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("profile", "text", (c) => c.notNull())
      .addColumn("project", "text")
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("title_norm", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("priority", "text", (c) => c.notNull())
      .addColumn("section", "text", (c) => c.notNull())
      .addColumn("description", "text")
      .addColumn("notes", "text")
      .addColumn("due_date", "text")
      .addColumn("parent_id", "text")
      .addColumn("recurring", "text")
      .addColumn("reminder_at", "text")
      .addColumn("assignee", "text")
      .addColumn("shared_by", "text")
      .addColumn("created_by", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addColumn("last_event_id", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("shampoo_tasks_scope")
      .on("shampoo_tasks")
      .columns(["profile", "project", "status"])
      .execute();
    await db.schema
      .createIndex("shampoo_tasks_title")
      .on("shampoo_tasks")
      .columns(["profile", "title_norm", "project"])
      .execute();
    await db.schema.createIndex("shampoo_tasks_due").on("shampoo_tasks").columns(["profile", "due_date"]).execute();

    // Full-text search differs per engine: FTS5 (external content, kept in sync by triggers) on
    // SQLite, a generated tsvector with a GIN index on PostgreSQL.
    if (dialect === "sqlite") {
      await sql`CREATE VIRTUAL TABLE shampoo_tasks_fts USING fts5(title, description, notes, project, content='shampoo_tasks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`.execute(
        db,
      );
      await sql`CREATE TRIGGER shampoo_tasks_ai AFTER INSERT ON shampoo_tasks BEGIN
        INSERT INTO shampoo_tasks_fts(rowid, title, description, notes, project) VALUES (new.rowid, new.title, new.description, new.notes, new.project);
      END`.execute(db);
      await sql`CREATE TRIGGER shampoo_tasks_au AFTER UPDATE ON shampoo_tasks BEGIN
        INSERT INTO shampoo_tasks_fts(shampoo_tasks_fts, rowid, title, description, notes, project) VALUES ('delete', old.rowid, old.title, old.description, old.notes, old.project);
        INSERT INTO shampoo_tasks_fts(rowid, title, description, notes, project) VALUES (new.rowid, new.title, new.description, new.notes, new.project);
      END`.execute(db);
    } else {
      await sql`ALTER TABLE shampoo_tasks ADD COLUMN search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce(title, '')), 'A') ||
        setweight(to_tsvector('simple', coalesce(description, '')), 'B') ||
        setweight(to_tsvector('simple', coalesce(notes, '') || ' ' || coalesce(project, '')), 'C')
      ) STORED`.execute(db);
      await sql`CREATE INDEX shampoo_tasks_search ON shampoo_tasks USING gin (search)`.execute(db);
    }
  },
  // Measured on 100,000 tasks (bench/results/shampoo-latest.md): the default views filter by
  // section and by priority+due date; without these they scan every live row.
  async "0002_read_indexes"(db) {
    await db.schema
      .createIndex("shampoo_tasks_section")
      .on("shampoo_tasks")
      .columns(["profile", "section", "status"])
      .execute();
    await db.schema
      .createIndex("shampoo_tasks_priority_due")
      .on("shampoo_tasks")
      .columns(["profile", "priority", "due_date"])
      .execute();
  },
  /**
   * The default order of task lists as one index (domains/tasks/read.ts DEFAULT_ORDER: priority
   * rank, due date with empty dates last, created_at, id), so a page is read in order and stops
   * after `offset + limit` rows instead of sorting every match; ready_context reads its first
   * 5000 live rows the same way. The rank is an expression, not a column: nothing has to keep it
   * in sync, and the queries use the identical expression (the planner matches it textually on
   * SQLite; test/tasks-read-plan.test.ts checks that it does). The trailing columns are what the
   * filters test and what ready_context scores, so a walk never leaves the index for rows it
   * rejects and ready_context reads only the rows it shows from the table.
   */
  async "0003_order_index"(db) {
    await sql`CREATE INDEX shampoo_tasks_order ON shampoo_tasks (
      profile,
      (CASE priority WHEN 'critical' THEN 3 WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END) DESC,
      (due_date IS NULL), due_date, created_at, id,
      status, type, section, project, priority, parent_id, updated_at, reminder_at
    )`.execute(db);
    // The section, due date and priority + due date indexes again, each with the columns their
    // readers test beside it (status, type, project: the scope of a caller with named grants),
    // so counts and filters read the index alone instead of a table row per entry.
    const widened: Array<[string, string[]]> = [
      ["shampoo_tasks_section", ["profile", "section", "status", "type", "project"]],
      ["shampoo_tasks_due", ["profile", "due_date", "status", "type", "project"]],
      ["shampoo_tasks_priority_due", ["profile", "priority", "due_date", "status", "type", "project"]],
    ];
    for (const [name, columns] of widened) {
      await db.schema.dropIndex(name).execute();
      await db.schema.createIndex(name).on("shampoo_tasks").columns(columns).execute();
    }
    // Status, then most recently updated (ready_context prime's recently finished tasks; the
    // count of every live row in a profile: two ranges instead of a test on every entry).
    await db.schema
      .createIndex("shampoo_tasks_status_updated")
      .on("shampoo_tasks")
      .columns(["profile", "status", "updated_at", "type"])
      .execute();
  },
  /**
   * ready_context's top of the list (domains/tasks/read.ts readyTop) without scoring every live
   * row: four partial indexes over live rows only (not_started, in_progress; the predicate is
   * written with literals so PostgreSQL can prove it from the query). Nothing is stored beside
   * the row: the indexes hold expressions of its own columns, kept by the engine in the same
   * statement as every write.
   * - live_order: the default order (006's keys) of live rows, narrow: where the 5000-row window
   *   ends, and how many rows it holds, from about 5000 small entries.
   * - live_heat: live rows by their date-independent points (ready-sql.ts heatSql), highest
   *   first: the best rows of a wide due-date band (long past due, not due soon) come first.
   * - live_due: live rows of one due date by those points: the best rows of a one-day band.
   * - live_kids: live subtasks by parent, with the default-order keys: "has an open subtask in
   *   the window" is one index probe.
   * Plus shampoo_tasks_due_order for query_tasks and, on SQLite, shampoo_tasks_facets (below).
   * On PostgreSQL the tie-break text columns of the two band indexes are COLLATE "C", the order
   * the bands are read in (byte order, as ready.ts compares them).
   */
  async "0004_ready_indexes"(db, dialect) {
    const c = (col: string) => (dialect === "postgres" ? `${col} COLLATE "C"` : col);
    const live = `WHERE status IN ${LIVE_STATUS_SQL}`;
    const indexes: Array<[string, string]> = [
      [
        "shampoo_tasks_live_order",
        `profile, ${rankSql()} DESC, (due_date IS NULL), due_date, created_at, id, type, project`,
      ],
      [
        "shampoo_tasks_live_heat",
        `profile, ${heatSql()} DESC, (due_date IS NULL), ${c("due_date")}, ${c("created_at")}, ${c("id")}, type, section, status, priority, project, parent_id`,
      ],
      [
        "shampoo_tasks_live_due",
        `profile, due_date, ${heatSql()} DESC, ${c("created_at")}, ${c("id")}, type, section, status, priority, project, parent_id`,
      ],
      [
        "shampoo_tasks_live_kids",
        `profile, parent_id, type, project, ${rankSql()} DESC, (due_date IS NULL), due_date, created_at, id`,
      ],
    ];
    for (const [name, columns] of indexes) {
      await sql.raw(`CREATE INDEX ${name} ON shampoo_tasks (${columns}) ${live}`).execute(db);
    }
    // query_tasks sorted by due date, soonest first (empty dates last), then the default order,
    // over live content: a page of a large match is read in that order instead of sorting every
    // match (the filters' columns follow, as in shampoo_tasks_order). Partial like the others,
    // so only a query that writes the live predicate literally can use it: the planner (without
    // statistics for it) cannot pick it for another order.
    // SQLite: full text joins every match to its task for the scope, status and other filters and
    // the order's keys; a row of the task table is wide (bodies inline) and scattered, so the
    // join reads a narrow copy instead: shampoo_tasks_facets, keyed by the same rowid as the FTS
    // table and kept by triggers like it (same statement, same transaction as every write).
    if (dialect === "sqlite") {
      const cols = FACET_COLUMNS.join(", ");
      const from = (row: string) => FACET_COLUMNS.map((c) => `${row}.${c}`).join(", ");
      await sql
        .raw(`CREATE TABLE shampoo_tasks_facets (rid INTEGER PRIMARY KEY, ${FACET_COLUMNS.join(" TEXT, ")} TEXT)`)
        .execute(db);
      await sql
        .raw(`INSERT INTO shampoo_tasks_facets (rid, ${cols}) SELECT rowid, ${cols} FROM shampoo_tasks`)
        .execute(db);
      await sql
        .raw(`CREATE TRIGGER shampoo_tasks_facets_ai AFTER INSERT ON shampoo_tasks BEGIN
          INSERT INTO shampoo_tasks_facets (rid, ${cols}) VALUES (new.rowid, ${from("new")});
        END`)
        .execute(db);
      await sql
        .raw(`CREATE TRIGGER shampoo_tasks_facets_au AFTER UPDATE ON shampoo_tasks BEGIN
          DELETE FROM shampoo_tasks_facets WHERE rid = old.rowid;
          INSERT INTO shampoo_tasks_facets (rid, ${cols}) VALUES (new.rowid, ${from("new")});
        END`)
        .execute(db);
      await sql
        .raw(`CREATE TRIGGER shampoo_tasks_facets_ad AFTER DELETE ON shampoo_tasks BEGIN
          DELETE FROM shampoo_tasks_facets WHERE rid = old.rowid;
        END`)
        .execute(db);
    }
    await sql
      .raw(
        `CREATE INDEX shampoo_tasks_due_order ON shampoo_tasks (profile, (due_date IS NULL), due_date, ${rankSql()} DESC, created_at, id, status, type, project, section, priority, parent_id) ${live}`,
      )
      .execute(db);
  },
  /**
   * find_by_title's title stages (domains/tasks/lookup.ts, read.ts taskSource.wordStage) on
   * SQLite: an FTS5 index of the title alone, shampoo_tasks_title_fts (external content: the task
   * table, same rowid, same tokenizer as shampoo_tasks_fts), kept by triggers like it: on insert,
   * on a change of the title, on delete. With prefix indexes for prefixes of 1 to 12 characters,
   * so a word typed in full also matches as a prefix (the last word of a fragment) by reading one
   * doclist; without them FTS5 merges the doclists of every word the prefix starts, first, which
   * for a frequent word costs milliseconds. A title stage is then a walk of short title-only
   * doclists, newest row first (rowid order), that stops once the pool is full. PostgreSQL: a
   * GIN index of to_tsvector('simple', title), the words of the tsvector's weight A.
   */
  async "0005_title_index"(db, dialect) {
    if (dialect === "postgres") {
      // The same words from the title alone: the tsvector's weight A is not something GIN can
      // test, so a weight-restricted query rechecks every row with the word anywhere.
      await sql`CREATE INDEX shampoo_tasks_title_search ON shampoo_tasks USING gin (to_tsvector('simple', title))`.execute(
        db,
      );
      return;
    }
    await sql`CREATE VIRTUAL TABLE shampoo_tasks_title_fts USING fts5(title, prefix='1 2 3 4 5 6 7 8 9 10 11 12', content='shampoo_tasks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')`.execute(
      db,
    );
    await sql`INSERT INTO shampoo_tasks_title_fts(shampoo_tasks_title_fts) VALUES ('rebuild')`.execute(db);
    await sql`CREATE TRIGGER shampoo_tasks_title_ai AFTER INSERT ON shampoo_tasks BEGIN
      INSERT INTO shampoo_tasks_title_fts(rowid, title) VALUES (new.rowid, new.title);
    END`.execute(db);
    await sql`CREATE TRIGGER shampoo_tasks_title_au AFTER UPDATE OF title ON shampoo_tasks BEGIN
      INSERT INTO shampoo_tasks_title_fts(shampoo_tasks_title_fts, rowid, title) VALUES ('delete', old.rowid, old.title);
      INSERT INTO shampoo_tasks_title_fts(rowid, title) VALUES (new.rowid, new.title);
    END`.execute(db);
    await sql`CREATE TRIGGER shampoo_tasks_title_ad AFTER DELETE ON shampoo_tasks BEGIN
      INSERT INTO shampoo_tasks_title_fts(shampoo_tasks_title_fts, rowid, title) VALUES ('delete', old.rowid, old.title);
    END`.execute(db);
  },
  /**
   * query_tasks full text over live content (the default view: no status, no include_completed)
   * on SQLite: shampoo_tasks_live_fts, an FTS5 index of the live rows only (contentless, so its
   * rowid is free) whose rowid carries the row's scope, `pno << 52 | jno << 32 | task rowid`:
   * pno numbers the profile, jno the project inside it (0 = the untagged enclave), both from
   * shampoo_task_scopes. A caller's scope is then one rowid range per run of visible projects,
   * which FTS5 seeks inside its doclists: no row outside the scope or not live is ever ranked,
   * joined or counted (live-search.ts liveSearchPage). Kept by triggers in the statement of every write:
   * a row enters when it becomes live, leaves when it stops being live, and is re-keyed when its
   * project or text changes. Limits (a write past them fails): 2,048 profiles, 1,048,575 projects per
   * profile, task rowids below 2³². PostgreSQL: nothing (its search is one GIN index over every row).
   */
  async "0006_live_search"(db, dialect) {
    if (dialect === "postgres") return;
    await sql`CREATE TABLE shampoo_task_scopes (
      profile TEXT NOT NULL,
      project TEXT NOT NULL,
      pno INTEGER NOT NULL CONSTRAINT shampoo_task_scopes_profile_limit CHECK (pno BETWEEN 0 AND 2047),
      jno INTEGER NOT NULL CONSTRAINT shampoo_task_scopes_project_limit CHECK (jno BETWEEN 0 AND 1048575),
      PRIMARY KEY (profile, project),
      UNIQUE (pno, jno)
    )`.execute(db);
    await sql`CREATE VIRTUAL TABLE shampoo_tasks_live_fts USING fts5(title, description, notes, project, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`.execute(
      db,
    );
    const live = `status IN ${LIVE_STATUS_SQL}`;
    // Existing content: profiles numbered in name order, their projects in name order.
    await sql
      .raw(`INSERT INTO shampoo_task_scopes (profile, project, pno, jno)
        SELECT profile, '', row_number() OVER (ORDER BY profile) - 1, 0 FROM (SELECT DISTINCT profile FROM shampoo_tasks WHERE ${live})`)
      .execute(db);
    await sql
      .raw(`INSERT INTO shampoo_task_scopes (profile, project, pno, jno)
        SELECT t.profile, t.project, s.pno, row_number() OVER (PARTITION BY t.profile ORDER BY t.project)
        FROM (SELECT DISTINCT profile, project FROM shampoo_tasks WHERE ${live} AND project IS NOT NULL) t
        JOIN shampoo_task_scopes s ON s.profile = t.profile AND s.project = ''`)
      .execute(db);
    await sql
      .raw(`INSERT INTO shampoo_tasks_live_fts (rowid, title, description, notes, project)
        SELECT ${LIVE_KEY_SQL("t")}, t.title, t.description, t.notes, t.project FROM shampoo_tasks t WHERE t.${live} ORDER BY 1`)
      .execute(db);
    const scopeFor = (row: string) => `
      INSERT INTO shampoo_task_scopes (profile, project, pno, jno)
        SELECT ${row}.profile, '', coalesce((SELECT max(pno) FROM shampoo_task_scopes), -1) + 1, 0
        WHERE ${row}.${live} AND NOT EXISTS (SELECT 1 FROM shampoo_task_scopes WHERE profile = ${row}.profile AND project = '');
      INSERT INTO shampoo_task_scopes (profile, project, pno, jno)
        SELECT ${row}.profile, ${row}.project, s.pno, (SELECT max(jno) FROM shampoo_task_scopes WHERE pno = s.pno) + 1
        FROM shampoo_task_scopes s
        WHERE ${row}.${live} AND ${row}.project IS NOT NULL AND s.profile = ${row}.profile AND s.project = ''
          AND NOT EXISTS (SELECT 1 FROM shampoo_task_scopes WHERE profile = ${row}.profile AND project = ${row}.project);`;
    const enter = (row: string) => `
      SELECT RAISE(ABORT, 'shampoo_tasks_live_fts: task rowids from 2^32 on do not fit its key') WHERE ${row}.rowid >= 4294967296;
      INSERT INTO shampoo_tasks_live_fts (rowid, title, description, notes, project)
        SELECT ${LIVE_KEY_SQL(row)}, ${row}.title, ${row}.description, ${row}.notes, ${row}.project WHERE ${row}.${live};`;
    await sql
      .raw(`CREATE TRIGGER shampoo_tasks_live_ai AFTER INSERT ON shampoo_tasks WHEN new.${live} BEGIN
        ${scopeFor("new")}
        ${enter("new")}
      END`)
      .execute(db);
    // Only when the row's place in the index changes: it becomes or stops being live, or its
    // project or any indexed text changes (a move between live statuses changes nothing here).
    await sql
      .raw(`CREATE TRIGGER shampoo_tasks_live_au AFTER UPDATE OF status, profile, project, title, description, notes ON shampoo_tasks
        WHEN (old.${live}) IS NOT (new.${live}) OR old.profile IS NOT new.profile OR old.project IS NOT new.project
          OR old.title IS NOT new.title OR old.description IS NOT new.description OR old.notes IS NOT new.notes
        BEGIN
        DELETE FROM shampoo_tasks_live_fts WHERE old.${live} AND rowid = ${LIVE_KEY_SQL("old")};
        ${scopeFor("new")}
        ${enter("new")}
      END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER shampoo_tasks_live_ad AFTER DELETE ON shampoo_tasks WHEN old.${live} BEGIN
        DELETE FROM shampoo_tasks_live_fts WHERE rowid = ${LIVE_KEY_SQL("old")};
      END`)
      .execute(db);
  },
  /**
   * find_by_title's full-scan fallback (a fragment no index stage answers confidently) reads the
   * caller's most recent `LOOKUP_SCAN_CAP` entries, live first, then most recently updated:
   * without an index in that order the engine sorted every row of the profile, bodies included
   * (240 ms at 100,000 tasks). Both engines; the key's first expression is the query's own text
   * (ready-sql.ts finishedTestSql), which SQLite matches to it.
   */
  async "0007_lookup_scan_index"(db) {
    await sql
      .raw(
        `CREATE INDEX shampoo_tasks_lookup_scan ON shampoo_tasks (profile, ${finishedTestSql()}, updated_at DESC, id)`,
      )
      .execute(db);
  },
};

export const tasksLegacy: Record<string, string[]> = {
  "0001_tasks": ["001_history_and_tasks"],
  "0002_read_indexes": ["005_task_read_indexes"],
  "0003_order_index": ["006_task_order_index"],
  "0004_ready_indexes": ["008_task_ready_indexes"],
  "0005_title_index": ["009_task_title_index"],
  "0006_live_search": ["010_task_live_search"],
  "0007_lookup_scan_index": ["011_task_lookup_scan_index"],
};
