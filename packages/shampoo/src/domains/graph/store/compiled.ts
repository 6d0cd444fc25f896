import { directStatements, type Kysely, type Prepared, prepared, type RawBuilder } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";
import type { Db, GraphScope } from "./rows.ts";

/**
 * Search statements compiled once per shape (kernel store/prepared.ts). Building a raw `sql`
 * template and compiling it costs Kysely a tree walk and a freeze per node on every call, and the
 * new SQL text is hashed again by the statement cache: about a tenth of search_nodes' CPU at
 * 1,000 entities. A statement's shape — how many probes, seeds or granted projects it has — is
 * its key; the values (match expressions, limits, ids, the caller's scope) are bound.
 */

type Values = Record<string, unknown>;
/** A marker for each value name: what the builder puts where a bound value goes. */
export type Marks = Record<string, unknown>;

const MAX_SHAPES = 256;
const shapes = new Map<string, Prepared<ShampooDB, Values, unknown>>();

function statement(key: string, build: (m: Marks) => RawBuilder<unknown>): Prepared<ShampooDB, Values, unknown> {
  let p = shapes.get(key);
  if (p) return p;
  p = prepared<ShampooDB, Values, unknown>((db, m) => {
    const raw = build(m as Marks);
    return { compile: () => raw.compile(db) };
  });
  shapes.set(key, p);
  // Shapes are few (probe counts, seed counts, grant list lengths); bound the map all the same.
  if (shapes.size > MAX_SHAPES) shapes.delete(shapes.keys().next().value as string);
  return p;
}

/**
 * A statement run on better-sqlite3 directly, rows fetched as arrays (`raw`) and turned into
 * objects by a function made for its columns: better-sqlite3 builds each row object key by key
 * in C++, which costs about 1 µs a row of a search statement more than a JavaScript object
 * literal (measured on the observation probe: 75 → 56 µs for 22 rows).
 */
interface Direct {
  sql: string;
  /** For each SQL parameter: the name of the value to bind, or a literal. */
  slots: Array<{ name: string } | { literal: unknown }>;
  row?: (a: unknown[]) => unknown;
}

const MARK = "\u0000graph:";
const markers = new Proxy({} as Marks, {
  get: (_t, name) => (typeof name === "string" ? `${MARK}${name}` : undefined),
});
const directs = new Map<string, Direct>();

function directFor(db: Db, key: string, build: (m: Marks) => RawBuilder<unknown>): Direct {
  let d = directs.get(key);
  if (d) return d;
  const q = build(markers).compile(db as Kysely<ShampooDB>);
  if (q.sql.includes(MARK)) throw new Error(`graph statement inlines a marker: ${q.sql}`);
  d = {
    sql: q.sql,
    slots: q.parameters.map((v) =>
      typeof v === "string" && v.startsWith(MARK) ? { name: v.slice(MARK.length) } : { literal: v },
    ),
  };
  directs.set(key, d);
  if (directs.size > MAX_SHAPES) directs.delete(directs.keys().next().value as string);
  return d;
}

/** Rows of the statement of shape `key`, built by `build` with markers, run with `values`. */
export async function compiledRows<R>(
  db: Db,
  key: string,
  build: (m: Marks) => RawBuilder<unknown>,
  values: Values,
): Promise<R[]> {
  // Inside Database.transaction on SQLite (search always is): better-sqlite3 directly, raw rows.
  const sqlite = directStatements(db as Kysely<unknown>);
  if (!sqlite) return (await statement(key, build).rows(db, values)) as R[];
  const d = directFor(db, key, build);
  const args = d.slots.map((slot) => {
    if ("literal" in slot) return slot.literal;
    const v = values[slot.name];
    if (v === undefined) throw new Error(`graph statement: no value for ${slot.name}`);
    return v;
  });
  const stmt = sqlite.prepare(d.sql) as unknown as RawStatement;
  if (!d.row) {
    const names = stmt.columns().map((c) => c.name);
    d.row = new Function("a", `return {${names.map((n, i) => `${JSON.stringify(n)}: a[${i}]`).join(", ")}};`) as (
      a: unknown[],
    ) => unknown;
  }
  stmt.raw(true);
  let arrays: unknown[][];
  try {
    arrays = stmt.all(args);
  } finally {
    stmt.raw(false);
  }
  const row = d.row;
  return arrays.map((a) => row(a) as R);
}

/** The parts of a better-sqlite3 statement used here (the kernel types it as Kysely's SqliteStatement). */
interface RawStatement {
  raw(on: boolean): RawStatement;
  all(args: unknown[]): unknown[][];
  columns(): Array<{ name: string }>;
}

/** The caller's scope with markers in place of its values (its shape: grant count, star, untagged). */
export function scopeMarks(s: GraphScope, m: Marks): GraphScope {
  return {
    profile: m.profile as string,
    principal: m.principal as string,
    projects: s.projects === null ? null : s.projects.map((_, i) => m[`project${i}`] as string),
    untagged: s.untagged,
  };
}

/** The shape key part and the values of a scope. */
export function scopeShape(s: GraphScope): { key: string; values: Values } {
  const values: Values = { profile: s.profile, principal: s.principal };
  (s.projects ?? []).forEach((p, i) => {
    values[`project${i}`] = p;
  });
  return { key: `${s.projects === null ? "*" : s.projects.length}:${s.untagged ? 1 : 0}`, values };
}
