import { type Kysely, sql } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";
import type { ReferenceRule } from "../hooks.ts";

/**
 * The doctor's reads of the domain tables and the history (invariants section). Tables are named
 * at run time (found in the engine's catalog, store/catalog.ts), so these are plain SQL with
 * quoted identifiers; they only read. PostgreSQL counts arrive as text.
 */
const n = (v: unknown): number => Number(v ?? 0);
const t = (name: string) => sql.table(name);
const c = (name: string) => sql.ref(name);

/** Audited rows of `table` whose last event is missing, or belongs to another profile. */
export async function eventless(
  db: Kysely<ShampooDB>,
  table: string,
  profile: string,
): Promise<{ missing: number; foreign: number }> {
  const r = await sql<{ missing: unknown; foreign: unknown }>`
    SELECT sum(CASE WHEN h.event_id IS NULL THEN 1 ELSE 0 END) AS missing,
           sum(CASE WHEN h.event_id IS NOT NULL AND h.profile <> r.profile THEN 1 ELSE 0 END) AS "foreign"
    FROM ${t(table)} r LEFT JOIN shampoo_history h ON h.event_id = r.last_event_id
    WHERE r.profile = ${profile}`.execute(db);
  return { missing: n(r.rows[0]?.missing), foreign: n(r.rows[0]?.foreign) };
}

/**
 * Audited rows of `table` changed after their last event: `updated_at` later than the event's
 * time means a change reached the row without its history event.
 */
export async function changedSinceEvent(db: Kysely<ShampooDB>, table: string, profile: string): Promise<number> {
  const r = await sql<{ k: unknown }>`
    SELECT count(*) AS k FROM ${t(table)} r JOIN shampoo_history h ON h.event_id = r.last_event_id
    WHERE r.profile = ${profile} AND r.updated_at > h.at`.execute(db);
  return n(r.rows[0]?.k);
}

/** Each audited row's project beside the `new` view its last event recorded (JSON text). */
export async function projectsWithEvents(
  db: Kysely<ShampooDB>,
  table: string,
  profile: string,
): Promise<Array<{ project: string | null; new_json: string | null }>> {
  const r = await sql<{ project: string | null; new_json: string | null }>`
    SELECT r.project AS project, h.new_json AS new_json
    FROM ${t(table)} r JOIN shampoo_history h ON h.event_id = r.last_event_id
    WHERE r.profile = ${profile}`.execute(db);
  return r.rows;
}

/**
 * For one reference rule: the live source rows (lifecycle live, or every row of a table
 * without one) whose reference names no row, a void row, or a row of another profile.
 */
export async function referenceFaults(
  db: Kysely<ShampooDB>,
  rule: ReferenceRule,
  profile: string,
  sourceHasLifecycle: boolean,
  targetHasLifecycle: boolean,
): Promise<{ missing: number; void: number; foreign: number }> {
  const live = sourceHasLifecycle ? sql`AND s.lifecycle = 'live'` : sql``;
  const isVoid = targetHasLifecycle ? sql`x.lifecycle = 'void'` : sql`1 = 0`;
  const r = await sql<{ missing: unknown; void: unknown; foreign: unknown }>`
    SELECT sum(CASE WHEN x.${c(rule.key)} IS NULL THEN 1 ELSE 0 END) AS missing,
           sum(CASE WHEN x.${c(rule.key)} IS NOT NULL AND ${isVoid} THEN 1 ELSE 0 END) AS "void",
           sum(CASE WHEN x.${c(rule.key)} IS NOT NULL AND x.profile <> s.profile THEN 1 ELSE 0 END) AS "foreign"
    FROM ${t(rule.table)} s
    LEFT JOIN ${t(rule.target)} x ON x.${c(rule.key)} = s.${c(rule.column)}
    WHERE s.profile = ${profile} AND s.${c(rule.column)} IS NOT NULL ${live}`.execute(db);
  const row = r.rows[0];
  return { missing: n(row?.missing), void: n(row?.void), foreign: n(row?.foreign) };
}

export interface LeaseState {
  kind: string;
  resource_id: string;
  state: string;
  holder: string | null;
  fence: number;
  expires_ms: number | null;
}

/** The profile's leases (platform/leases/). */
export async function leases(db: Kysely<ShampooDB>, profile: string): Promise<LeaseState[]> {
  const rows = await db
    .selectFrom("shampoo_leases")
    .select(["kind", "resource_id", "state", "holder", "fence", "expires_ms"])
    .where("profile", "=", profile)
    .orderBy("kind")
    .orderBy("resource_id")
    .execute();
  return rows.map((r) => ({
    ...r,
    fence: n(r.fence),
    expires_ms: r.expires_ms === null ? null : n(r.expires_ms),
  }));
}

/** The profile's lease claim events, oldest first: the fences each claim handed out. */
export async function leaseClaims(
  db: Kysely<ShampooDB>,
  profile: string,
): Promise<Array<{ entity_kind: string; entity_id: string; new_json: string | null }>> {
  return db
    .selectFrom("shampoo_history")
    .select(["entity_kind", "entity_id", "new_json"])
    .where("profile", "=", profile)
    .where("entity_kind", "like", "lease:%")
    .where("action", "=", "claim")
    .orderBy("seq")
    .execute();
}

export interface FactVersion {
  fact_id: string;
  valid_from: string;
  valid_to: string | null;
  known_from: string;
  known_to: string | null;
}

/** Every version of the profile's facts, per fact in the order they became known. */
export async function factVersions(db: Kysely<ShampooDB>, profile: string): Promise<FactVersion[]> {
  const r = await sql<FactVersion>`
    SELECT fact_id, valid_from, valid_to, known_from, known_to FROM governance_fact_versions
    WHERE profile = ${profile} ORDER BY fact_id, known_from, version_id`.execute(db);
  return r.rows;
}
