import { type Kysely, sql, type Transaction } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";
import type { HistoryRow, ShampooDB } from "../../../store/schema.ts";

export const REPLAY_CONTRACT = "memory_replay_v1";
export const REPLAY_DEFAULT = 100;
export const REPLAY_MAX = 500;

/**
 * The aggregate kinds replay_memory reads, each with the table that says who may see it: an
 * event is returned only while its aggregate is visible to the caller (its project in the
 * grants; sessions also owned by the caller unless star), so history never leaks what the
 * current tables hide. Other kinds (graph, links) are not replayed here.
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

const parse = (s: string | null): unknown => (s === null ? null : JSON.parse(s));

/** One event with its 20 fields (catalog: identity, clock, timestamp, old/new, payload, parent, source span). */
export function eventView(h: HistoryRow) {
  const source = parse(h.source_json) as { tool?: string; session?: string; request?: string } | null;
  const oldV = parse(h.old_json);
  const newV = parse(h.new_json);
  const keys = new Set([...Object.keys((oldV as object) ?? {}), ...Object.keys((newV as object) ?? {})]);
  const changed = [...keys]
    .filter(
      (k) =>
        JSON.stringify((oldV as Record<string, unknown> | null)?.[k]) !==
        JSON.stringify((newV as Record<string, unknown> | null)?.[k]),
    )
    .sort();
  return {
    seq: Number(h.seq),
    event_id: h.event_id,
    profile: h.profile,
    principal: h.principal,
    role: h.role,
    session_id: h.session_id,
    clock: Number(h.clock),
    at: h.at,
    aggregate_kind: h.entity_kind,
    aggregate_id: h.entity_id,
    action: h.action,
    old_value: oldV,
    new_value: newV,
    changed_fields: changed,
    payload: parse(h.payload_json),
    parent_event_id: h.parent_event_id,
    source,
    source_tool: source?.tool ?? null,
    source_session: source?.session ?? null,
    source_request: source?.request ?? null,
  };
}

export interface ReplayArgs {
  aggregate_kind?: string;
  aggregate_id?: string;
  since?: string;
  limit: number;
}

/** Newest first (by the history's sequence), every entry with nulls preserved. Pure read. */
export async function replay(db: Kysely<ShampooDB> | Transaction<ShampooDB>, caller: Caller, a: ReplayArgs) {
  const scope = scopeOf(caller);
  const kinds = a.aggregate_kind === undefined ? REPLAY_KINDS : REPLAY_KINDS.filter((k) => k === a.aggregate_kind);
  const rows: HistoryRow[] = [];
  for (const kind of kinds) {
    const k = KINDS[kind] as (typeof KINDS)[string];
    const where = [
      sql<boolean>`h.profile = ${scope.profile}`,
      sql<boolean>`t.profile = h.profile`,
      sql<boolean>`h.entity_kind = ${kind}`,
      projectCondition(scope, "t.project"),
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
  const events = rows.slice(0, a.limit).map(eventView);
  return { count: events.length, events, contract_version: REPLAY_CONTRACT };
}
