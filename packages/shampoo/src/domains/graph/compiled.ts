import { type Prepared, prepared, type RawBuilder } from "kernel";
import type { ShampooDB } from "../../store/schema.ts";
import type { Db, GraphScope } from "./store.ts";

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

/** Rows of the statement of shape `key`, built by `build` with markers, run with `values`. */
export async function compiledRows<R>(
  db: Db,
  key: string,
  build: (m: Marks) => RawBuilder<unknown>,
  values: Values,
): Promise<R[]> {
  return (await statement(key, build).rows(db, values)) as R[];
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
