import { randomUUID } from "node:crypto";
import { getTask } from "../../tasks/store/tasks.ts";
import type { IssueRow } from "../schema/tables.ts";
import { chunks, facts, issueByKey, issues, putIssue } from "../store.ts";
import { SOURCE_TASK, syncChunk, taskText } from "./chunks.ts";
import { contradictsOf, openContradictions, refreshCounts } from "./facts.ts";
import { event, recordRun, type W } from "./write.ts";

export const AUDIT_VERSION = "memory_audit_v2";
/** Rows of each kind one audit looks at: bounded, so one call stays bounded. */
const SCAN = 5000;

export const ISSUE_KINDS = [
  "missing_provenance",
  "contradiction_count_drift",
  "pack_summary_missing",
  "task_materialization_drift",
  "stale_sync",
] as const;

interface Finding {
  kind: (typeof ISSUE_KINDS)[number];
  target_kind: string;
  target_id: string;
  project: string | null;
  detail: string;
  /** Reconciles it (repair mode); true when it was repaired. */
  repair?: () => Promise<boolean>;
}

export function issueView(i: IssueRow) {
  return {
    issue_id: i.issue_id,
    kind: i.kind,
    target_kind: i.target_kind,
    target_id: i.target_id,
    project: i.project,
    detail: i.detail,
    status: i.status,
    first_seen_at: i.first_seen_at,
    last_seen_at: i.last_seen_at,
    resolved_at: i.resolved_at,
  };
}

async function findings(w: W, staleMinutes: number): Promise<Finding[]> {
  const out: Finding[] = [];
  const profile = w.ctx.caller.profile;
  const fs = await facts(w.trx, w.scope).selectAll().orderBy("fact_id").limit(SCAN).execute();
  const withProv = new Set(
    (
      await w.trx
        .selectFrom("governance_provenance")
        .select("target_id")
        .where("profile", "=", profile)
        .where("target_kind", "=", "fact")
        .execute()
    ).map((r) => r.target_id),
  );
  const status = new Map(fs.map((f) => [f.fact_id, f.status]));
  for (const f of fs) {
    if (!withProv.has(f.fact_id)) {
      out.push({
        kind: "missing_provenance",
        target_kind: "fact",
        target_id: f.fact_id,
        project: f.project,
        detail: `fact ${f.fact_id} has no provenance`,
        repair: async () => {
          await w.trx
            .insertInto("governance_provenance")
            .values({
              provenance_id: randomUUID(),
              profile,
              target_kind: "fact",
              target_id: f.fact_id,
              source_kind: "claim",
              source_ref: f.source_claim_id,
              detail_json: JSON.stringify({ backfilled_by: AUDIT_VERSION }),
              created_at: w.at,
            })
            .execute();
          return true;
        },
      });
    }
    const partners = contradictsOf(f);
    const unknown = partners.filter((id) => !status.has(id));
    const live = openContradictions(
      f.status,
      partners.map((id) => status.get(id) ?? ""),
    );
    if (unknown.length === 0 && live !== f.contradiction_count) {
      out.push({
        kind: "contradiction_count_drift",
        target_kind: "fact",
        target_id: f.fact_id,
        project: f.project,
        detail: `contradiction_count ${f.contradiction_count}, live contradictions ${live}`,
        repair: async () => (await refreshCounts(w, [f.fact_id])) > 0,
      });
    }
  }
  const packs = await w.trx
    .selectFrom("shampoo_context_packs as p")
    .leftJoin("governance_pack_summaries as s", "s.pack_id", "p.pack_id")
    .selectAll("p")
    .where("p.profile", "=", profile)
    .where("p.lifecycle", "=", "live")
    .where("p.created_by", "=", w.ctx.caller.principal)
    .where("s.pack_id", "is", null)
    .orderBy("p.pack_id")
    .limit(SCAN)
    .execute();
  for (const p of packs) {
    out.push({
      kind: "pack_summary_missing",
      target_kind: "pack",
      target_id: p.pack_id,
      project: p.project,
      detail: `${p.pack_type} pack ${p.pack_id} has no summary artifact`,
      repair: async () => {
        await w.trx
          .insertInto("governance_pack_summaries")
          .values({
            pack_id: p.pack_id,
            profile,
            pack_type: p.pack_type,
            target_ref: null,
            session_id: p.session_id,
            relevance_score: 0,
            quality_score: 0,
            items_included: (JSON.parse(p.items_json) as unknown[]).length,
            sections_json: "[]",
            summary: `${p.pack_type} pack: ${p.token_usage} tokens (summary materialized by ${AUDIT_VERSION})`,
            created_at: w.at,
          })
          .execute();
        return true;
      },
    });
  }
  const cs = await chunks(w.trx, w.scope).selectAll().orderBy("chunk_id").limit(SCAN).execute();
  for (const c of cs) {
    if (c.source_kind === SOURCE_TASK) {
      const t = await getTask(w.trx, w.scope, c.source_ref);
      if (!t || taskText(t) !== c.source_text || t.title !== c.title || t.project !== c.project) {
        out.push({
          kind: "task_materialization_drift",
          target_kind: "chunk",
          target_id: c.chunk_id,
          project: c.project,
          detail: t ? `chunk ${c.chunk_id} differs from task ${t.id}` : `chunk ${c.chunk_id}: its task is not visible`,
          repair: async () => (t ? (await syncChunk(w, c, t)) !== c : false),
        });
      }
    }
    const changedSince = c.assessed_at === null || c.assessed_at < c.updated_at;
    if (c.state !== "frozen" && changedSince && w.now - Date.parse(c.updated_at) > staleMinutes * 60_000) {
      out.push({
        kind: "stale_sync",
        target_kind: "chunk",
        target_id: c.chunk_id,
        project: c.project,
        detail: `chunk ${c.chunk_id} changed at ${c.updated_at} and is not assessed since (over ${staleMinutes} min)`,
      });
    }
  }
  return out;
}

const REPAIR_COUNTER: Record<string, string> = {
  missing_provenance: "provenance_backfilled",
  contradiction_count_drift: "contradiction_counts_refreshed",
  pack_summary_missing: "pack_summaries_materialized",
  task_materialization_drift: "task_materializations_reconciled",
};

async function saveIssue(w: W, old: IssueRow | null, row: IssueRow, action: string) {
  row.last_event_id = await event(w, "memory_issue", row.issue_id, action, old, row);
  await putIssue(w.trx, row, old === null);
}

/**
 * One audit, all-or-nothing. Each finding is repaired when `repair` (and repairable), else
 * recorded as an open issue (a resolved one reopens); open issues no longer found, or repaired
 * now, are resolved. The run-history entry is written whenever anything was found, resolved or
 * repaired (emit_event).
 */
export async function auditMemory(w: W, repair: boolean, staleMinutes: number, input: unknown) {
  const repairs = {
    provenance_backfilled: 0,
    contradiction_counts_refreshed: 0,
    pack_summaries_materialized: 0,
    task_materializations_reconciled: 0,
    issues_resolved: 0,
  };
  const profile = w.ctx.caller.profile;
  const found = await findings(w, staleMinutes);
  const stillOpen = new Set<string>();
  let resolved = 0;
  const resolve = async (i: IssueRow) => {
    await saveIssue(w, i, { ...i, status: "resolved", resolved_at: w.at, last_seen_at: w.at }, "resolve");
    resolved++;
  };
  for (const f of found) {
    const existing = await issueByKey(w.trx, profile, f.kind, f.target_kind, f.target_id);
    const fixed = repair && f.repair ? await f.repair() : false;
    if (fixed) {
      const counter = REPAIR_COUNTER[f.kind] as keyof typeof repairs;
      repairs[counter]++;
      if (existing?.status === "open") {
        await resolve(existing);
        repairs.issues_resolved++;
      }
      continue;
    }
    stillOpen.add(`${f.kind}/${f.target_kind}/${f.target_id}`);
    if (existing?.status === "open") continue;
    const row: IssueRow = existing
      ? { ...existing, status: "open", detail: f.detail, last_seen_at: w.at, resolved_at: null }
      : {
          issue_id: randomUUID(),
          profile,
          project: f.project,
          kind: f.kind,
          target_kind: f.target_kind,
          target_id: f.target_id,
          detail: f.detail,
          status: "open",
          first_seen_at: w.at,
          last_seen_at: w.at,
          resolved_at: null,
          last_event_id: "",
        };
    await saveIssue(w, existing ?? null, row, existing ? "reopen" : "open");
  }
  // Open issues the scan no longer finds are resolved (only those the caller can see).
  for (const i of await issues(w.trx, w.scope).selectAll().where("status", "=", "open").orderBy("issue_id").execute()) {
    if (!stillOpen.has(`${i.kind}/${i.target_kind}/${i.target_id}`)) await resolve(i);
  }
  const open = await issues(w.trx, w.scope)
    .selectAll()
    .where("status", "=", "open")
    .orderBy("first_seen_at")
    .orderBy("issue_id")
    .limit(100)
    .execute();
  const repaired = Object.values(repairs).reduce((a, b) => a + b, 0);
  const emit = found.length > 0 || resolved > 0 || repaired > 0;
  const openCount = await issues(w.trx, w.scope)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "open")
    .executeTakeFirstOrThrow();
  const result = {
    audit_version: AUDIT_VERSION,
    repair,
    emit_event: emit,
    open_issue_count: Number(openCount.n),
    resolved_issue_count: resolved,
    issues: open.map(issueView),
    repairs,
  };
  if (emit) await recordRun(w, "audit_memory", input, { ...result, issues: open.length });
  return result;
}
