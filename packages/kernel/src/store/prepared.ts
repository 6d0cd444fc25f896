import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from "kysely";
import { directStatements } from "./db.ts";

/**
 * A query built once with Kysely's builder and compiled once per database, then run many times
 * with new values. Building and compiling cost more than running a small statement on SQLite
 * (measured on the Chamber's action path: three statements in a transaction, 223 µs of CPU through
 * the builder vs 107 µs compiled once; bench/results/chamber-latest.md), so hot paths use this.
 *
 * The builder receives named markers instead of values; after compiling, each SQL parameter is
 * mapped back to its name, so the query stays type-checked and dialect-neutral (each database
 * compiles its own SQL text) while a run only binds values:
 *
 *   const bump = prepared<DB, { handle: string; n: number }>((db, p) =>
 *     db.updateTable("t").set({ n: p.n }).where("handle", "=", p.handle));
 *   await bump.run(trx, { handle, n: 3 });
 *
 * Every marker must reach the SQL as a bound parameter (not inlined, not transformed); a value
 * in the compiled parameters that is not a marker is a literal of the query and is kept as is.
 */
export interface Prepared<DB, P, R> {
  /** Runs the query on `db` (a Kysely instance or a transaction) with these values. */
  run(db: Kysely<DB>, params: P): Promise<QueryResult<R>>;
  /** The rows of a select (or a returning clause). */
  rows(db: Kysely<DB>, params: P): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Kysely<DB>, params: P): Promise<R | undefined>;
}

const MARK = "\u0000prepared:";

interface Compiled {
  sql: string;
  /** For each SQL parameter: the name of the value to bind, or a literal. */
  slots: Array<{ name: string } | { literal: unknown }>;
}

export function prepared<DB, P extends object, R = Record<string, unknown>>(
  build: (db: Kysely<DB>, p: P) => Compilable<R>,
): Prepared<DB, P, R> {
  // One compilation per database: SQLite and PostgreSQL write different SQL text. Each Kysely
  // instance has its own dialect adapter and its transactions share it, so the adapter is the key.
  const byAdapter = new WeakMap<object, Compiled>();
  const markers = new Proxy({} as P, {
    get: (_t, key) => (typeof key === "string" ? `${MARK}${key}` : undefined),
  });

  function compiledFor(db: Kysely<DB>): Compiled {
    const adapter = db.getExecutor().adapter;
    const hit = byAdapter.get(adapter);
    if (hit) return hit;
    const query = build(db, markers).compile();
    const slots = query.parameters.map((v) =>
      typeof v === "string" && v.startsWith(MARK) ? { name: v.slice(MARK.length) } : { literal: v },
    );
    if (query.sql.includes(MARK)) {
      throw new Error(`prepared query inlines a marker instead of binding it: ${query.sql}`);
    }
    const c = { sql: query.sql, slots };
    byAdapter.set(adapter, c);
    return c;
  }

  async function run(db: Kysely<DB>, params: P): Promise<QueryResult<R>> {
    const c = compiledFor(db);
    const values = c.slots.map((s) => {
      if ("literal" in s) return s.literal;
      const v = (params as Record<string, unknown>)[s.name];
      if (v === undefined) throw new Error(`prepared query: no value for ${s.name}`);
      return v;
    });
    // Inside Database.transaction on SQLite: straight to better-sqlite3, as Kysely's driver would
    // run it (same statement, same values), without its executor layers.
    const direct = directStatements(db as Kysely<unknown>);
    if (direct) {
      const stmt = direct.prepare(c.sql);
      if (stmt.reader) return { rows: stmt.all(values) as R[] };
      const { changes, lastInsertRowid } = stmt.run(values);
      return {
        rows: [],
        numAffectedRows: BigInt(changes),
        insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      };
    }
    return db.executeQuery(CompiledQuery.raw(c.sql, values) as CompiledQuery<R>);
  }

  return {
    run,
    rows: async (db, params) => (await run(db, params)).rows,
    first: async (db, params) => (await run(db, params)).rows[0],
  };
}
