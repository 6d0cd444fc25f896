import { sql } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";
import type { HistoryRow } from "../../../store/schema.ts";
import type { Db } from "./db.ts";

/**
 * The aggregate kinds replay_memory reads, each with the table that says who may see it. An
 * event is returned only to a caller who could read its row when the event happened: the
 * project the event records (history `project`, platform migration 0003) in the grants; for an
 * event recorded before that column (NULL), the row's current project, as before. Sessions are
 * also owned by the caller unless star. Other kinds (graph, links) are not replayed here.
 */
const KINDS: Record<string, { table: string; id: string; owner?: string }> = {
  task: { table: "shampoo_tasks", id: "id" },
  chunk: { table: "governance_chunks", id: "chunk_id" },
  question: { table: "governance_questions", id: "question_id" },
  claim: { table: "governance_claims", id: "claim_id" },
  fact: { table: "governance_facts", id: "fact_id" },
  memory_issue: { table: "governance_issues", id: "issue_id" },
  context_pack: { table: "shampoo_context_packs", id: "pack_id" },
  session: { table: "shampoo_sessions", id: "session_id", owner: "owner" },
};
export const REPLAY_KINDS = Object.keys(KINDS);

/** The project an event was readable in: its own, else (older events) its row's today. */
const EVENT_PROJECT = sql`(CASE WHEN h.project IS NULL THEN t.project WHEN h.project = '' THEN NULL ELSE h.project END)`;

export interface ReplayArgs {
  aggregate_kind?: string;
  aggregate_id?: string;
  since?: string;
  limit: number;
}

/** The history events of the aggregates the caller can see now, newest first (by sequence), at most `limit`. */
export async function visibleEvents(db: Db, caller: Caller, a: ReplayArgs): Promise<HistoryRow[]> {
  const scope = scopeOf(caller);
  const kinds = a.aggregate_kind === undefined ? REPLAY_KINDS : REPLAY_KINDS.filter((k) => k === a.aggregate_kind);
  const rows: HistoryRow[] = [];
  for (const kind of kinds) {
    const k = KINDS[kind] as (typeof KINDS)[string];
    const where = [
      sql<boolean>`h.profile = ${scope.profile}`,
      sql<boolean>`t.profile = h.profile`,
      sql<boolean>`h.entity_kind = ${kind}`,
      projectCondition(scope, EVENT_PROJECT),
    ];
    if (k.owner && !caller.star) where.push(sql<boolean>`t.${sql.ref(k.owner)} = ${caller.principal}`);
    if (a.aggregate_id !== undefined) where.push(sql<boolean>`h.entity_id = ${a.aggregate_id}`);
    if (a.since !== undefined) where.push(sql<boolean>`h.at >= ${a.since}`);
    const r =
      await sql<HistoryRow>`SELECT h.* FROM shampoo_history h JOIN ${sql.table(k.table)} t ON t.${sql.ref(k.id)} = h.entity_id WHERE ${sql.join(where, sql` AND `)} ORDER BY h.seq DESC LIMIT ${a.limit}`.execute(
        db,
      );
    rows.push(...r.rows);
  }
  rows.sort((x, y) => Number(y.seq) - Number(x.seq));
  return rows.slice(0, a.limit);
}
