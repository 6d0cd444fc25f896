import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail } from "../../../platform/errors.ts";
import { recordChange } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import type { AuditMemoryInput, ListMemoryIssuesInput } from "../inputs.gen.ts";
import { historyView, issueView } from "../model.ts";
import type { IssueRow } from "../schema/tables.ts";
import { chunksById } from "../store/chunks.ts";
import { factsById } from "../store/facts.ts";
import { issueByKey, issuePage, openIssuesById, putIssue } from "../store/issues.ts";
import { addPackSummary, packsWithoutSummary } from "../store/packs.ts";
import { addProvenance, withProvenance } from "../store/provenance.ts";
import { SOURCE_TASK, syncChunk, taskText } from "./chunks.ts";
import { contradictsOf, openContradictions, refreshCounts } from "./facts.ts";
import { recordRun } from "./runs.ts";

export const AUDIT_VERSION = "memory_audit_v2";
/** Rows of each kind one audit looks at: bounded, so one call stays bounded. */
const SCAN = 5000;
/** list_memory_issues' page size: default and most. */
export const LIST_DEFAULT = 20;
export const LIST_MAX = 100;
/** The largest page offset: past it no page exists (1e300 once reached SQL and crashed). */
export const MAX_OFFSET = 1_000_000;

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

async function findings(w: WriteScope, staleMinutes: number): Promise<Finding[]> {
  const out: Finding[] = [];
  const profile = w.ctx.caller.profile;
  const scope = scopeOf(w.ctx.caller);
  const at = iso(w.now);
  const fs = await factsById(w.trx, scope, SCAN);
  const withProv = await withProvenance(w.trx, profile, "fact");
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
          await addProvenance(w.trx, {
            provenance_id: randomUUID(),
            profile,
            target_kind: "fact",
            target_id: f.fact_id,
            source_kind: "claim",
            source_ref: f.source_claim_id,
            detail_json: JSON.stringify({ backfilled_by: AUDIT_VERSION }),
            created_at: at,
          });
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
        repair: async () => (await refreshCounts(w, [f.fact_id])).length > 0,
      });
    }
  }
  const packs = await packsWithoutSummary(w.trx, profile, w.ctx.caller.principal, SCAN);
  for (const p of packs) {
    out.push({
      kind: "pack_summary_missing",
      target_kind: "pack",
      target_id: p.pack_id,
      project: p.project,
      detail: `${p.pack_type} pack ${p.pack_id} has no summary artifact`,
      repair: async () => {
        await addPackSummary(w.trx, {
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
          created_at: at,
        });
        return true;
      },
    });
  }
  const cs = await chunksById(w.trx, scope, SCAN);
  for (const c of cs) {
    if (c.source_kind === SOURCE_TASK) {
      const t = await getTask(w.trx, scope, c.source_ref);
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

async function saveIssue(w: WriteScope, old: IssueRow | null, row: IssueRow, action: string) {
  row.last_event_id = await recordChange(w, {
    kind: "memory_issue",
    id: row.issue_id,
    action,
    old,
    next: row,
    view: historyView,
  });
  await putIssue(w.trx, row, old === null);
}

/**
 * One audit, all-or-nothing. Each finding is repaired when `repair` (and repairable), else
 * recorded as an open issue (a resolved one reopens); open issues no longer found, or repaired
 * now, are resolved. The run-history entry is written whenever anything was found, resolved or
 * repaired (emit_event).
 */
export function auditMemory(ctx: ShampooCtx, a: AuditMemoryInput) {
  const staleMinutes = typeof a.stale_sync_minutes === "number" ? a.stale_sync_minutes : 120;
  return write(ctx, (w) => audit(w, a.repair !== false, staleMinutes, a));
}

async function audit(w: WriteScope, repair: boolean, staleMinutes: number, input: AuditMemoryInput) {
  const at = iso(w.now);
  const scope = scopeOf(w.ctx.caller);
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
    await saveIssue(w, i, { ...i, status: "resolved", resolved_at: at, last_seen_at: at }, "resolve");
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
      ? { ...existing, status: "open", detail: f.detail, last_seen_at: at, resolved_at: null }
      : {
          issue_id: randomUUID(),
          profile,
          project: f.project,
          kind: f.kind,
          target_kind: f.target_kind,
          target_id: f.target_id,
          detail: f.detail,
          status: "open",
          first_seen_at: at,
          last_seen_at: at,
          resolved_at: null,
          last_event_id: "",
        };
    await saveIssue(w, existing ?? null, row, existing ? "reopen" : "open");
  }
  // Open issues the scan no longer finds are resolved (only those the caller can see).
  for (const i of await openIssuesById(w.trx, scope)) {
    if (!stillOpen.has(`${i.kind}/${i.target_kind}/${i.target_id}`)) await resolve(i);
  }
  const { rows: open, total: openCount } = await issuePage(w.trx, scope, { status: "open", limit: 100, offset: 0 });
  const repaired = Object.values(repairs).reduce((a, b) => a + b, 0);
  const emit = found.length > 0 || resolved > 0 || repaired > 0;
  const result = {
    audit_version: AUDIT_VERSION,
    repair,
    emit_event: emit,
    open_issue_count: openCount,
    resolved_issue_count: resolved,
    issues: open.map(issueView),
    repairs,
  };
  if (emit) await recordRun(w, "audit_memory", input, { ...result, issues: open.length });
  return result;
}

/** list_memory_issues: one page of the issues the caller can see, oldest first. Pure read. */
export function listMemoryIssues(ctx: ShampooCtx, a: ListMemoryIssuesInput) {
  const limit = Math.max(1, Math.min(LIST_MAX, typeof a.limit === "number" ? a.limit : LIST_DEFAULT));
  const offset = Math.max(0, Math.trunc(typeof a.offset === "number" ? a.offset : 0));
  if (offset > MAX_OFFSET) throw fail("validation", `offset must be an integer from 0 to ${MAX_OFFSET}`);
  const status = typeof a.status === "string" ? a.status : "open";
  const kind = typeof a.kind === "string" ? a.kind : undefined;
  return read(ctx, async (db) => {
    const { rows, total } = await issuePage(db, scopeOf(ctx.caller), { status, kind, limit, offset });
    return {
      issues: rows.map(issueView),
      count: rows.length,
      total,
      limit,
      offset,
      next_offset: offset + rows.length < total ? offset + rows.length : null,
    };
  });
}
