import { type RawBuilder, sql } from "kernel";
import { projectCondition, type Scope } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ContextRunRow, NewContextPack } from "../../sessions/schema.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { LIVE_STATUS_SQL } from "../../tasks/store/ready-sql.ts";
import { scoped } from "../../tasks/store/tasks.ts";
import type { ClaimRow, FactRow, PackSummaryRow } from "../schema/tables.ts";
import { claims } from "./claims.ts";
import type { Db, Trx } from "./db.ts";
import { facts, naming } from "./facts.ts";

/**
 * What a pack reads and writes: its candidates (facts, claims, open tasks, a target's entity
 * names), the pack row (sessions' table), its summary artifact, and the caller's earlier packs.
 */

/** Literal conditions, as the partial indexes of migration 0002 are written (schema/migrations.ts). */
const LIVE_FACT = sql<boolean>`status = 'live'`;
const CANDIDATE_CLAIM = sql<boolean>`status = 'candidate'`;
const OPEN_TASK = sql.raw<boolean>(`status IN ${LIVE_STATUS_SQL}`);

/**
 * The target's project (untagged for an untagged task): where the facts and claims naming it are
 * looked for past the newest rows. Facts come from the chunks of the project's notes; searching
 * every project's text for the target's words would read every live row of the profile.
 */
function inProjectOf(project: string | null): RawBuilder<boolean> {
  return project === null ? sql<boolean>`project IS NULL` : sql<boolean>`project = ${project}`;
}

/** Where a pack looks past the newest rows: the target's project, for rows naming one of `terms`. */
export interface Naming {
  project: string | null;
  terms: string[];
  engine: Engine;
}

/** The newest visible live facts; with `named`, those of its project naming one of its terms. */
export async function packFacts(db: Db, scope: Scope, limit: number, named?: Naming): Promise<FactRow[]> {
  let q = facts(db, scope).selectAll().where(LIVE_FACT);
  if (named) q = q.where(inProjectOf(named.project)).where(naming(named.engine, named.terms));
  return q.orderBy("updated_at", "desc").orderBy("fact_id").limit(limit).execute();
}

/** The newest visible candidate claims; with `named`, those of its project naming one of its terms. */
export async function packClaims(db: Db, scope: Scope, limit: number, named?: Naming): Promise<ClaimRow[]> {
  let q = claims(db, scope).selectAll().where(CANDIDATE_CLAIM);
  if (named) q = q.where(inProjectOf(named.project)).where(naming(named.engine, named.terms));
  return q.orderBy("updated_at", "desc").orderBy("claim_id").limit(limit).execute();
}

/** The newest visible open tasks, of `project` when it is given (null: untagged). */
export async function packTasks(db: Db, scope: Scope, project: string | null | undefined, limit: number) {
  // Tasks only: a note is content, never an open task ([not_started · medium] on a note misleads).
  let q = scoped(db, scope).selectAll().where(OPEN_TASK).where("type", "=", "task");
  if (project !== undefined)
    q = q.where((eb) => (project === null ? eb("project", "is", null) : eb("project", "=", project)));
  return q.orderBy("updated_at", "desc").orderBy("id").limit(limit).execute();
}

/** The names of the live entities live-linked to a task. */
export async function linkedEntityNames(db: Db, profile: string, taskId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("shampoo_task_links as l")
    .innerJoin("shampoo_entities as e", "e.id", "l.entity_id")
    .select("e.name")
    .where("l.profile", "=", profile)
    .where("l.task_id", "=", taskId)
    .where("l.lifecycle", "=", "live")
    .where("e.lifecycle", "=", "live")
    .execute();
  return rows.map((r) => r.name);
}

/** The visible open tasks (not started, in progress), most recently changed first. */
export async function openTasksNewest(db: Db, scope: Scope, limit: number): Promise<TaskRow[]> {
  return db
    .selectFrom("shampoo_tasks")
    .selectAll()
    .where("profile", "=", scope.profile)
    .where(projectCondition(scope))
    .where("status", "in", ["not_started", "in_progress"])
    .orderBy("updated_at", "desc")
    .orderBy("id")
    .limit(limit)
    .execute();
}

export async function insertPack(trx: Trx, row: NewContextPack): Promise<void> {
  await trx.insertInto("shampoo_context_packs").values(row).execute();
}

export async function addPackSummary(trx: Trx, row: PackSummaryRow): Promise<void> {
  await trx.insertInto("governance_pack_summaries").values(row).execute();
}

/** The principal's live packs of one kind (type, session, target), by id. */
export async function livePacksOfKind(
  db: Db,
  k: { profile: string; principal: string; type: string; sessionId: string | null; targetRef: string | null },
) {
  return db
    .selectFrom("shampoo_context_packs as p")
    .leftJoin("governance_pack_summaries as s", "s.pack_id", "p.pack_id")
    .select(["p.pack_id", "p.last_event_id"])
    .where("p.profile", "=", k.profile)
    .where("p.pack_type", "=", k.type)
    .where("p.lifecycle", "=", "live")
    .where("p.created_by", "=", k.principal)
    .where((eb) => (k.sessionId === null ? eb("p.session_id", "is", null) : eb("p.session_id", "=", k.sessionId)))
    .where((eb) => (k.targetRef === null ? eb("s.target_ref", "is", null) : eb("s.target_ref", "=", k.targetRef)))
    .orderBy("p.pack_id")
    .execute();
}

/** Sets a pack's lifecycle columns and its event pointer. */
export async function setPackLifecycle(
  trx: Trx,
  packId: string,
  set: Partial<NewContextPack> & { last_event_id: string },
): Promise<void> {
  await trx.updateTable("shampoo_context_packs").set(set).where("pack_id", "=", packId).execute();
}

/** The principal's live packs without a summary artifact (audit_memory). */
export async function packsWithoutSummary(db: Db, profile: string, principal: string, limit: number) {
  return db
    .selectFrom("shampoo_context_packs as p")
    .leftJoin("governance_pack_summaries as s", "s.pack_id", "p.pack_id")
    .selectAll("p")
    .where("p.profile", "=", profile)
    .where("p.lifecycle", "=", "live")
    .where("p.created_by", "=", principal)
    .where("s.pack_id", "is", null)
    .orderBy("p.pack_id")
    .limit(limit)
    .execute();
}

export async function addRun(trx: Trx, row: ContextRunRow): Promise<void> {
  await trx.insertInto("shampoo_context_runs").values(row).execute();
}
