import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type DialectName,
  type Kysely,
  migrate,
  openDatabase,
  SQLITE_BUSY_TIMEOUT_MS,
  SQLITE_MMAP_BYTES,
  sql,
} from "../src/store/db.ts";
import { DIALECTS, holdSqliteWriteLock, openTestDatabase, PG_URL, type TestDb } from "../src/store/testing.ts";

interface NotesDB {
  notes: { id: number; body: string; tag: string | null };
}

type MigrationFn = (db: Kysely<unknown>, dialect: DialectName) => Promise<void>;

/** Migrations that record each run and the dialect they were handed. */
function notesMigrations(runs: string[]): Record<string, MigrationFn> {
  return {
    "0001_notes": async (db, dialect) => {
      runs.push(`0001:${dialect}`);
      await db.schema
        .createTable("notes")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("body", "text", (c) => c.notNull())
        .execute();
    },
  };
}

const withTag = (runs: string[]): Record<string, MigrationFn> => ({
  ...notesMigrations(runs),
  "0002_tag": async (db, dialect) => {
    runs.push(`0002:${dialect}`);
    await db.schema.alterTable("notes").addColumn("tag", "text").execute();
  },
});

describe.each(DIALECTS)("openDatabase + migrate on %s", (dialect) => {
  let t: TestDb<NotesDB>;
  beforeEach(async () => {
    t = await openTestDatabase<NotesDB>(dialect);
  });
  afterEach(async () => {
    await t.drop();
  });

  it("opens the right dialect and runs migrations with it", async () => {
    expect(t.dialect).toBe(dialect);
    const runs: string[] = [];
    await migrate(t, "fixture_migrations", notesMigrations(runs));
    expect(runs).toEqual([`0001:${dialect}`]);
    await t.db.insertInto("notes").values({ id: 1, body: "hello" }).execute();
    const rows = await t.db.selectFrom("notes").select(["id", "body"]).execute();
    expect(rows).toEqual([{ id: 1, body: "hello" }]);
  });

  it("is idempotent: migrating twice runs each migration once and keeps the data", async () => {
    const runs: string[] = [];
    await migrate(t, "fixture_migrations", notesMigrations(runs));
    await t.db.insertInto("notes").values({ id: 1, body: "kept" }).execute();
    await migrate(t, "fixture_migrations", notesMigrations(runs));
    expect(runs).toEqual([`0001:${dialect}`]);
    expect(await t.db.selectFrom("notes").select("body").execute()).toEqual([{ body: "kept" }]);
  });

  it("is idempotent across handles: a restarted process migrates the same database again", async () => {
    const runs: string[] = [];
    await migrate(t, "fixture_migrations", notesMigrations(runs));
    const again = await openDatabase<NotesDB>(t.target, t.pgSchema ? { pgSchema: t.pgSchema } : {});
    try {
      await migrate(again, "fixture_migrations", notesMigrations(runs));
      expect(runs).toEqual([`0001:${dialect}`]);
    } finally {
      await again.close();
    }
  });

  it("runs only the new migrations when the list grows", async () => {
    const runs: string[] = [];
    await migrate(t, "fixture_migrations", notesMigrations(runs));
    await t.db.insertInto("notes").values({ id: 1, body: "before" }).execute();
    await migrate(t, "fixture_migrations", withTag(runs));
    expect(runs).toEqual([`0001:${dialect}`, `0002:${dialect}`]);
    await t.db.updateTable("notes").set({ tag: "new" }).where("id", "=", 1).execute();
    expect(await t.db.selectFrom("notes").selectAll().execute()).toEqual([{ id: 1, body: "before", tag: "new" }]);
  });

  it("refuses a database migrated by newer code (a migration this list does not have)", async () => {
    const runs: string[] = [];
    await migrate(t, "fixture_migrations", withTag(runs));
    await expect(migrate(t, "fixture_migrations", notesMigrations(runs))).rejects.toThrow(
      /previously executed migration 0002_tag is missing/,
    );
    expect(runs).toEqual([`0001:${dialect}`, `0002:${dialect}`]);
  });

  it("keeps each product's migration history in its own table", async () => {
    const a: string[] = [];
    const b: string[] = [];
    await migrate(t, "product_a_migrations", notesMigrations(a));
    await migrate(t, "product_b_migrations", {
      "0001_notes": async (db) => {
        // Same migration name, different product: it must still run.
        b.push("0001");
        await db.schema
          .createTable("b_things")
          .addColumn("id", "integer", (c) => c.primaryKey())
          .execute();
      },
    });
    expect(a).toEqual([`0001:${dialect}`]);
    expect(b).toEqual(["0001"]);
  });

  it("names the failing migration and stops there", async () => {
    const runs: string[] = [];
    const err = await migrate(t, "fixture_migrations", {
      ...notesMigrations(runs),
      "0002_broken": async (db) => {
        await sql`THIS IS NOT SQL`.execute(db);
      },
      "0003_after": async () => {
        runs.push("0003");
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("migration 0002_broken failed");
    expect(runs).toEqual([`0001:${dialect}`]);
  });
});

describe("openDatabase on SQLite files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kernel-db-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("puts the file in WAL mode, which persists for any later connection", async () => {
    const file = join(dir, "wal.db");
    const d = await openDatabase<NotesDB>(file);
    const { rows } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(d.db);
    expect(rows[0]?.journal_mode).toBe("wal");
    await migrate(d, "fixture_migrations", notesMigrations([]));
    await d.db.insertInto("notes").values({ id: 1, body: "x" }).execute();
    expect(existsSync(`${file}-wal`)).toBe(true);

    // An independent connection (another process, say) sees WAL mode from the file itself,
    // and reads the committed row while the first handle is still open.
    const other = new BetterSqlite3(file, { readonly: true });
    try {
      expect(other.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(other.prepare("SELECT body FROM notes").all()).toEqual([{ body: "x" }]);
    } finally {
      other.close();
    }
    await d.close();
  });

  it("reads the file through a memory map, and a write on another connection is seen at once", async () => {
    const file = join(dir, "mmap.db");
    const d = await openDatabase<NotesDB>(file);
    try {
      const { rows } = await sql<{ mmap_size: number }>`PRAGMA mmap_size`.execute(d.db);
      expect(rows[0]?.mmap_size).toBe(SQLITE_MMAP_BYTES);
      await migrate(d, "fixture_migrations", notesMigrations([]));
      await d.db.insertInto("notes").values({ id: 1, body: "before" }).execute();
      const other = new BetterSqlite3(file);
      try {
        other.prepare("UPDATE notes SET body = 'after' WHERE id = 1").run();
        other.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        other.close();
      }
      expect(await d.db.selectFrom("notes").select("body").execute()).toEqual([{ body: "after" }]);
    } finally {
      await d.close();
    }
  });

  it("enforces foreign keys", async () => {
    const d = await openDatabase<unknown>(join(dir, "fk.db"));
    try {
      const { rows } = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(d.db);
      expect(rows[0]?.foreign_keys).toBe(1);
    } finally {
      await d.close();
    }
  });

  it("reports the file path as its location", async () => {
    const file = join(dir, "loc.db");
    const d = await openDatabase<unknown>(file);
    expect(d).toMatchObject({ dialect: "sqlite", location: file });
    await d.close();
  });
});

describe("openDatabase on PostgreSQL URLs", () => {
  it("never shows the password in its location", async () => {
    const u = new URL(PG_URL);
    u.password = "s3cret-pw";
    const d = await openDatabase<unknown>(u.toString());
    try {
      expect(d.dialect).toBe("postgres");
      expect(d.location).not.toContain("s3cret-pw");
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(d.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await d.close();
    }
  });

  it("instances opening a fresh ?schema= at the same moment all start (no CREATE SCHEMA race)", async () => {
    const schema = `race_${process.pid}_${Date.now()}`;
    const url = new URL(PG_URL);
    url.searchParams.set("schema", schema);
    const opened = await Promise.allSettled(Array.from({ length: 12 }, () => openDatabase<unknown>(url.toString())));
    const failures = opened.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
    for (const o of opened) if (o.status === "fulfilled") await o.value.close();
    const admin = await openDatabase<unknown>(PG_URL);
    await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(admin.db);
    await admin.close();
    expect(failures).toEqual([]);
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    await expect(openDatabase<unknown>(PG_URL, { pgSchema: "x; DROP SCHEMA public" })).rejects.toThrow(/bad schema/);
  });
});

/** A second handle on the same database: what another process would do. */
interface Other {
  /** Inserts and commits a note. */
  insert(id: number, body: string): Promise<void>;
  close(): Promise<void>;
}

async function otherHandle(t: TestDb<NotesDB>): Promise<Other> {
  if (t.dialect === "sqlite") {
    const raw = new BetterSqlite3(t.target);
    raw.pragma("busy_timeout = 5000");
    return {
      insert: async (id, body) => {
        raw.prepare("INSERT INTO notes (id, body) VALUES (?, ?)").run(id, body);
      },
      close: async () => {
        raw.close();
      },
    };
  }
  const d = await openDatabase<NotesDB>(PG_URL, { pgSchema: t.pgSchema ?? "" });
  return {
    insert: async (id, body) => {
      await d.db.insertInto("notes").values({ id, body }).execute();
    },
    close: () => d.close(),
  };
}

const countNotes = async (db: Kysely<NotesDB>) =>
  Number(
    (
      await db
        .selectFrom("notes")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(DIALECTS)("Database.read on %s", (dialect) => {
  let t: TestDb<NotesDB>;
  beforeEach(async () => {
    t = await openTestDatabase<NotesDB>(dialect);
    await migrate(t, "fixture_migrations", notesMigrations([]));
    await t.db.insertInto("notes").values({ id: 1, body: "first" }).execute();
  });
  afterEach(async () => {
    await t.drop();
  });

  it("reads one snapshot: a write another connection commits meanwhile shows only after the read", async () => {
    const other = await otherHandle(t);
    try {
      const seen = await t.read(async (db) => {
        const before = await countNotes(db);
        // Another connection writes and commits while the read is open: it is not held up (on
        // SQLite a read used to take the write lock, and this insert waited, then failed).
        await other.insert(2, "meanwhile");
        return [before, await countNotes(db)];
      });
      expect(seen).toEqual([1, 1]);
      expect(await countNotes(t.db)).toBe(2);
    } finally {
      await other.close();
    }
  });

  it("a long write in this process never holds up a read: it answers the committed state at once (issue 23)", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let wrote!: () => void;
    const inside = new Promise<void>((r) => {
      wrote = r;
    });
    const writing = t.transaction(async (db) => {
      await db.insertInto("notes").values({ id: 5, body: "in flight" }).execute();
      wrote();
      await held; // the write stays open, as a long enrich_context does between its statements
    });
    await inside;
    const t0 = performance.now();
    const seen = await Promise.race([
      t.read(countNotes),
      new Promise<string>((r) => setTimeout(() => r("read waited for the write"), 1000)),
    ]);
    const waited = performance.now() - t0;
    release();
    await writing;
    expect(seen).toBe(1);
    expect(waited).toBeLessThan(1000);
    expect(await t.read(countNotes)).toBe(2);
  });

  it("gives back the connection when the read throws, and the error unchanged", async () => {
    await expect(
      t.read(async (db) => {
        await countNotes(db);
        throw new Error("reader gave up");
      }),
    ).rejects.toThrow("reader gave up");
    await t.transaction(async (db) => {
      await db.insertInto("notes").values({ id: 3, body: "after" }).execute();
    });
    expect(await t.read(countNotes)).toBe(2);
  });
});

describe("Database.read and transaction options on SQLite", () => {
  let t: TestDb<NotesDB>;
  let locker: BetterSqlite3.Database;
  beforeEach(async () => {
    t = await openTestDatabase<NotesDB>("sqlite");
    await migrate(t, "fixture_migrations", notesMigrations([]));
    await t.db.insertInto("notes").values({ id: 1, body: "committed" }).execute();
    // Another process in the middle of a long write (a bulk import, say): it holds the write
    // lock and has written a row it has not committed.
    locker = new BetterSqlite3(t.target);
    locker.exec("BEGIN IMMEDIATE");
    locker.prepare("INSERT INTO notes (id, body) VALUES (2, 'uncommitted')").run();
  });
  afterEach(async () => {
    if (locker.inTransaction) locker.exec("ROLLBACK");
    locker.close();
    await t.drop();
  });

  it("reads the committed state while another process holds the write lock, without waiting for it", async () => {
    const rows = await t.read((db) => db.selectFrom("notes").select(["id", "body"]).orderBy("id").execute());
    expect(rows).toEqual([{ id: 1, body: "committed" }]);
  });

  it("a write with busyTimeoutMs 0 fails at once with SQLITE_BUSY and changes nothing; later writes wait as usual", async () => {
    locker.exec("ROLLBACK"); // this test's lock is held by a child process, which lets go by itself
    const { exited } = await holdSqliteWriteLock(t.target, 1500, "INSERT INTO notes (id, body) VALUES (2, 'theirs')");
    // Waiting the usual busy timeout, this BEGIN would get the lock once the child commits, and
    // succeed: failing shows it did not wait.
    await expect(
      t.transaction(
        async (db) => {
          await db.insertInto("notes").values({ id: 3, body: "mine" }).execute();
        },
        { busyTimeoutMs: 0 },
      ),
    ).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    const { rows } = await sql<{ timeout: number }>`PRAGMA busy_timeout`.execute(t.db);
    expect(rows[0]?.timeout).toBe(SQLITE_BUSY_TIMEOUT_MS);
    await exited;
    await t.transaction(async (db) => {
      await db.insertInto("notes").values({ id: 3, body: "mine" }).execute();
    });
    expect(await t.read((db) => db.selectFrom("notes").select(["id", "body"]).orderBy("id").execute())).toEqual([
      { id: 1, body: "committed" },
      { id: 2, body: "theirs" },
      { id: 3, body: "mine" },
    ]);
  });
});

describe("Database.read on PostgreSQL", () => {
  it("refuses a write inside the read", async () => {
    const t = await openTestDatabase<NotesDB>("postgres");
    try {
      await migrate(t, "fixture_migrations", notesMigrations([]));
      await expect(
        t.read(async (db) => {
          await db.insertInto("notes").values({ id: 1, body: "sneaked" }).execute();
        }),
      ).rejects.toThrow(/read-only transaction/);
      expect(await countNotes(t.db)).toBe(0);
    } finally {
      await t.drop();
    }
  });
});
