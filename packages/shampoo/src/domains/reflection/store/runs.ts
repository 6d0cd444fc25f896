import { type Kysely, sql, type Transaction } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { RunStatus } from "../rules/vocabulary.ts";
import type { ReflectionCandidateRow, ReflectionRunRow, ReflectionSnapshotRow } from "../schema.ts";

/**
 * Run, candidate and snapshot queries. The gates live in the WHERE clause, so a run or a
 * candidate the caller may not reach is never loaded: unknown and foreign read the same.
 * - Run gate: same profile, and the run's input project granted; unfiltered runs (project
 *   NULL) only with star. Run-centric reads see live runs only: a discarded run is retired and
 *   resolves as absent.
 * - Candidate gate: the run gate (retired runs included: review and decide keep working), the
 *   candidate's evidence project granted, and a private entity's candidate only for its creator.
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

function runGate(caller: Caller, alias = "r") {
  const col = sql.ref(`${alias}.project`);
  if (caller.star) return sql<boolean>`${sql.ref(`${alias}.profile`)} = ${caller.profile}`;
  const named = [...caller.projects];
  const inGrants = named.length > 0 ? sql<boolean>`${col} IN (${sql.join(named)})` : sql<boolean>`1 = 0`;
  return sql<boolean>`(${sql.ref(`${alias}.profile`)} = ${caller.profile} AND ${inGrants})`;
}

/** Can the caller reach a run of this input project? (The same rule as runGate, for arguments.) */
export function runProjectAllowed(caller: Caller, project: string | null): boolean {
  return project === null ? caller.star : caller.star || caller.projects.has(project);
}

/** A live run the caller may reach. `lock`: a row lock on PostgreSQL (SQLite serialises writers). */
export async function getRun(
  db: Db,
  caller: Caller,
  runId: string,
  opts: { lock?: boolean } = {},
): Promise<ReflectionRunRow | undefined> {
  let q = db
    .selectFrom("shampoo_reflection_runs as r")
    .selectAll("r")
    .where("r.run_id", "=", runId)
    .where(runGate(caller))
    .where("r.lifecycle", "=", "live");
  if (opts.lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** A run by id inside the profile, whatever the caller's grants: for the pass itself only. */
export async function runById(db: Db, profile: string, runId: string): Promise<ReflectionRunRow | undefined> {
  return db
    .selectFrom("shampoo_reflection_runs")
    .selectAll()
    .where("profile", "=", profile)
    .where("run_id", "=", runId)
    .executeTakeFirst();
}

/**
 * Compare-and-swap on a run's status: the change happens only if the run is still in `from`.
 * Returns whether it did (false: someone moved it first, e.g. a cancel during the pass).
 */
export async function casRun(
  trx: Transaction<ShampooDB>,
  runId: string,
  from: RunStatus[],
  set: Partial<ReflectionRunRow>,
): Promise<boolean> {
  const r = await trx
    .updateTable("shampoo_reflection_runs")
    .set(set)
    .where("run_id", "=", runId)
    .where("status", "in", from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function updateRun(
  trx: Transaction<ShampooDB>,
  runId: string,
  set: Partial<ReflectionRunRow>,
): Promise<void> {
  await trx.updateTable("shampoo_reflection_runs").set(set).where("run_id", "=", runId).execute();
}

export interface RunFilter {
  project: string | null;
  status: RunStatus | null;
  includeArchived: boolean;
  limit: number;
  offset: number;
}

/** Live runs the caller may reach, newest first; archived ones on request. */
export async function listRuns(
  db: Db,
  caller: Caller,
  f: RunFilter,
): Promise<{ rows: ReflectionRunRow[]; total: number }> {
  let q = db.selectFrom("shampoo_reflection_runs as r").where(runGate(caller)).where("r.lifecycle", "=", "live");
  if (f.project !== null) q = q.where("r.project", "=", f.project);
  if (f.status !== null) q = q.where("r.status", "=", f.status);
  if (!f.includeArchived) q = q.where("r.archived_at", "is", null);
  const total = await q.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow();
  const rows = await q
    .selectAll("r")
    .orderBy("r.created_at", "desc")
    .orderBy("r.run_id", "desc")
    .limit(f.limit)
    .offset(f.offset)
    .execute();
  return { rows, total: Number(total.n) };
}

// ------------------------------------------------------------------------------ candidates

/** SQLite binds at most 32,766 values a statement; 18 columns × 500 rows stays well below. */
const CANDIDATE_BATCH = 500;

export async function insertCandidates(trx: Transaction<ShampooDB>, rows: ReflectionCandidateRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CANDIDATE_BATCH) {
    await trx
      .insertInto("shampoo_reflection_candidates")
      .values(rows.slice(i, i + CANDIDATE_BATCH))
      .execute();
  }
}

function candidateGate(caller: Caller) {
  const s = scopeOf(caller);
  return sql<boolean>`(${projectCondition(s, "c.evidence_project")} AND (c.private_to IS NULL OR c.private_to = ${caller.principal}))`;
}

function visibleCandidates(db: Db, caller: Caller) {
  return db
    .selectFrom("shampoo_reflection_candidates as c")
    .innerJoin("shampoo_reflection_runs as r", "r.run_id", "c.run_id")
    .where("c.profile", "=", caller.profile)
    .where(runGate(caller))
    .where(candidateGate(caller));
}

/** Of the runs `runIds` (one page of reflect_history), the candidates the caller may see, by run and type. */
export async function visibleCandidateCounts(
  db: Db,
  caller: Caller,
  runIds: string[],
): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  if (runIds.length === 0) return out;
  const rows = await visibleCandidates(db, caller)
    .where("c.run_id", "in", runIds)
    .select(["c.run_id", "c.type", (eb) => eb.fn.countAll<number | string>().as("n")])
    .groupBy(["c.run_id", "c.type"])
    .execute();
  for (const r of rows) {
    const by = out.get(r.run_id) ?? {};
    by[r.type] = Number(r.n);
    out.set(r.run_id, by);
  }
  return out;
}

export async function getCandidate(
  db: Db,
  caller: Caller,
  candidateId: string,
  lock = false,
): Promise<ReflectionCandidateRow | undefined> {
  let q = visibleCandidates(db, caller).selectAll("c").where("c.candidate_id", "=", candidateId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function setDecision(
  trx: Transaction<ShampooDB>,
  candidateId: string,
  set: Pick<ReflectionCandidateRow, "decision" | "decided_by" | "decided_principal" | "decided_at">,
): Promise<void> {
  await trx.updateTable("shampoo_reflection_candidates").set(set).where("candidate_id", "=", candidateId).execute();
}

export interface CandidateFilter {
  decision: string; // "" | pending | accept | reject | defer
  type: string | null;
  limit: number;
  offset: number;
}

export type CandidateWithApplied = ReflectionCandidateRow & { applied: number | string | null };

/** A run's visible candidates in run order, with whether each was applied, and the visible total. */
export async function listCandidates(
  db: Db,
  caller: Caller,
  runId: string,
  f: CandidateFilter,
): Promise<{ rows: CandidateWithApplied[]; total: number }> {
  let q = visibleCandidates(db, caller).where("c.run_id", "=", runId);
  if (f.decision === "pending") q = q.where("c.decision", "is", null);
  else if (f.decision !== "") q = q.where("c.decision", "=", f.decision);
  if (f.type !== null) q = q.where("c.type", "=", f.type);
  const total = await q.select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow();
  const rows = await q
    .leftJoin("shampoo_reflection_snapshots as s", "s.candidate_id", "c.candidate_id")
    .selectAll("c")
    .select("s.applied_at as applied")
    .orderBy("c.ord")
    .limit(f.limit)
    .offset(f.offset)
    .execute();
  return { rows: rows as CandidateWithApplied[], total: Number(total.n) };
}

/** The accepted candidates of a run the caller may see, in run order, with their snapshot if any. */
export async function acceptedCandidates(
  db: Db,
  caller: Caller,
  runId: string,
): Promise<Array<ReflectionCandidateRow & { snapshot_at: string | null }>> {
  return visibleCandidates(db, caller)
    .leftJoin("shampoo_reflection_snapshots as s", "s.candidate_id", "c.candidate_id")
    .selectAll("c")
    .select("s.applied_at as snapshot_at")
    .where("c.run_id", "=", runId)
    .where("c.decision", "=", "accept")
    .orderBy("c.ord")
    .execute();
}

export async function insertSnapshot(trx: Transaction<ShampooDB>, row: ReflectionSnapshotRow): Promise<void> {
  await trx.insertInto("shampoo_reflection_snapshots").values(row).execute();
}
