import { type Predicate, SINGLE_VALUED } from "./claims.ts";
import { norm } from "./text.ts";

/**
 * Truth maintenance without a language model: supersede, contradict, invalidate, revalidate.
 * Facts are never edited in place or removed; each change closes the fact's current version and
 * opens the next, so a read can ask what memory knew at any time (bi-temporal: valid_from /
 * valid_to say when the fact held in the world, known_from / known_to when memory held that
 * version).
 */
export const FACT_ACTIONS = ["supersede", "contradict", "invalidate", "revalidate"] as const;
export type FactAction = (typeof FACT_ACTIONS)[number];
export type FactStatus = "live" | "superseded" | "invalidated";

export interface FactState {
  fact_id: string;
  status: FactStatus;
  valid_from: string;
  valid_to: string | null;
  superseded_by: string | null;
}

export type GovernRefusal = { message: string; type: "validation" | "invalid_state" };

/** What an action does to the fact (and, for supersede, nothing to the target but a link). */
export interface GovernChange {
  fact: FactState;
  /** Links to write: supersedes (target → fact), contradicts (both ways). */
  links: Array<{ from: string; to: string; kind: "supersedes" | "contradicts" }>;
}

/**
 * The start of validity of a fact whose sentence named none, once a retirement is back-dated
 * before its extraction: "true since an unknown time" (valid time), never the time memory
 * learned it (transaction time).
 */
export const UNKNOWN_START = "0001-01-01T00:00:00.000Z";

/** When govern_fact runs, and whether the fact's start of validity was stated or only its extraction time. */
export interface GovernContext {
  now: string;
  /** The fact's valid_from is its claim's extraction time, not a date its text named. */
  undated: boolean;
}

/**
 * The pure part of govern_fact: checks and the new state. `target` is the live row named by
 * target_fact_id (already checked visible). effectiveAt is an ISO instant. Valid time and
 * transaction time stay separate (with `at`): a supersede or invalidate effective in the future
 * ends the fact's validity then and leaves it live until then; one back-dated before an undated
 * fact's extraction time is recorded (its start becomes UNKNOWN_START); before a stated
 * valid_from it is refused.
 */
export function govern(
  action: FactAction,
  fact: FactState,
  target: FactState | null,
  effectiveAt: string,
  at?: GovernContext,
): GovernChange | GovernRefusal {
  const needsTarget = action === "supersede" || action === "contradict";
  if (needsTarget && target === null)
    return { message: `target_fact_id is required for ${action}`, type: "validation" };
  if (needsTarget && target?.fact_id === fact.fact_id)
    return { message: "target_fact_id must differ from fact_id", type: "validation" };
  if (action === "revalidate") {
    if (fact.status === "live")
      return { message: "fact is live; only a retired fact can be revalidated", type: "invalid_state" };
    return { fact: { ...fact, status: "live", valid_to: null, superseded_by: null }, links: [] };
  }
  if (fact.status !== "live")
    return { message: `fact is ${fact.status}; only a live fact can be changed by ${action}`, type: "invalid_state" };
  if (needsTarget && target?.status !== "live")
    return { message: `target fact is ${target?.status}; it must be live`, type: "invalid_state" };
  if (action === "contradict") {
    const t = (target as FactState).fact_id;
    return {
      fact,
      links: [
        { from: fact.fact_id, to: t, kind: "contradicts" },
        { from: t, to: fact.fact_id, kind: "contradicts" },
      ],
    };
  }
  let validFrom = fact.valid_from;
  if (Date.parse(effectiveAt) < Date.parse(fact.valid_from)) {
    if (!at?.undated)
      return { message: "effective_at is before the fact's validity start (valid_from)", type: "validation" };
    validFrom = UNKNOWN_START;
  }
  const future = at !== undefined && Date.parse(effectiveAt) > Date.parse(at.now);
  const ended = { ...fact, valid_from: validFrom, valid_to: effectiveAt };
  if (action === "invalidate") return { fact: { ...ended, status: future ? "live" : "invalidated" }, links: [] };
  const t = (target as FactState).fact_id;
  return {
    fact: { ...ended, status: future ? "live" : "superseded", superseded_by: t },
    links: [{ from: t, to: fact.fact_id, kind: "supersedes" }],
  };
}

export function isRefusal(x: GovernChange | GovernRefusal): x is GovernRefusal {
  return "message" in x;
}

/**
 * Structural contradiction: the same project, subject, predicate and scope, for a predicate that
 * holds one value. null for multi-valued predicates (they never contradict structurally), so a
 * fact about a neighbouring entity, or another predicate, can never retire or flag this one.
 */
export function contradictionKey(f: {
  project: string | null;
  subject: string;
  predicate: string;
  scope: string;
}): string | null {
  if (!SINGLE_VALUED.has(f.predicate as Predicate)) return null;
  return `${f.project ?? ""}\u0000${norm(f.subject)}\u0000${f.predicate}\u0000${f.scope}`;
}

export function contradicts(
  a: { project: string | null; subject: string; predicate: string; scope: string; object: string },
  b: { project: string | null; subject: string; predicate: string; scope: string; object: string },
): boolean {
  const k = contradictionKey(a);
  return k !== null && k === contradictionKey(b) && norm(a.object) !== norm(b.object);
}

/** One version of a fact: what memory held from known_from until known_to (null: still). */
export interface FactVersion {
  fact_id: string;
  status: FactStatus;
  valid_from: string;
  valid_to: string | null;
  known_from: string;
  known_to: string | null;
}

/**
 * "As known at K, true at W": the facts whose version memory held at K says they held in the
 * world at W (valid_from ≤ W < valid_to). A retired fact still answers for the time it held.
 * Sorted by fact id.
 */
export function trueAt(versions: FactVersion[], knownAt: string, validAt: string): string[] {
  const k = Date.parse(knownAt);
  const w = Date.parse(validAt);
  const out = new Set<string>();
  for (const v of versions) {
    const held = Date.parse(v.known_from) <= k && (v.known_to === null || k < Date.parse(v.known_to));
    const valid = Date.parse(v.valid_from) <= w && (v.valid_to === null || w < Date.parse(v.valid_to));
    if (held && valid) out.add(v.fact_id);
  }
  return [...out].sort();
}
