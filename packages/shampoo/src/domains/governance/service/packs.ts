import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { type Caller, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, notFound } from "../../../platform/errors.ts";
import { lifecycleSet, stampOf } from "../../../platform/lifecycle.ts";
import { recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { SessionRow } from "../../sessions/schema.ts";
import { namedSession } from "../../sessions/service.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import type { BuildContextPackInput } from "../inputs.gen.ts";
import { budgetOf, type Candidate, CONTRACT_VERSION, type Pack, type PackType, pack, ROLES } from "../rules/packing.ts";
import { norm } from "../rules/text.ts";
import type { ClaimRow, FactRow } from "../schema/tables.ts";
import { unfrozenChunks, visibleOpenQuestions } from "../store/chunks.ts";
import {
  addPackSummary,
  insertPack,
  linkedEntityNames,
  livePacksOfKind,
  packClaims,
  packFacts,
  packTasks,
  setPackLifecycle,
} from "../store/packs.ts";
import { addProvenance } from "../store/provenance.ts";
import { impactLink } from "./facts.ts";
import { visibleContradictionCounts } from "./hidden.ts";
import { recordRun } from "./runs.ts";

/**
 * How many rows of each kind a pack considers (most recently changed first). A targeted pack
 * also considers up to as many facts and claims of its target's project that name it, however old.
 */
const LIMITS = { facts: 300, claims: 200, questions: 100, chunks: 100, tasks: 200 };
const PRIORITY_QUALITY: Record<string, number> = { critical: 1, high: 0.85, medium: 0.6, low: 0.4 };
export const SELECTION_POLICY = "greedy_by_score_v1";

/** Words of a target task and its linked entities: facts and claims naming one are relevant. */
async function targetTerms(w: WriteScope, target: TaskRow): Promise<string[]> {
  const names = await linkedEntityNames(w.trx, w.ctx.caller.profile, target.id);
  return [target.title, ...names].map(norm).filter((s) => s.length >= 3);
}

/**
 * Everything a pack may include, visible to the caller: live facts, candidate claims, open
 * questions, chunks, open tasks (of the target's or session's project when one is given).
 */
export async function candidates(
  w: WriteScope,
  target: TaskRow | null,
  session: SessionRow | null,
): Promise<Candidate[]> {
  const scope = scopeOf(w.ctx.caller);
  const out: Candidate[] = [];
  const terms = target ? await targetTerms(w, target) : [];
  const relevant = (...texts: string[]) => {
    if (!target) return 0.5;
    const t = texts.map(norm).join(" ");
    return terms.some((x) => t.includes(x) || x.includes(t)) ? 1 : 0.5;
  };
  // Past the newest rows: those of the target's project naming one of its terms.
  const named = target && terms.length > 0 ? { project: target.project, terms, engine: w.engine } : undefined;
  const fs = union<FactRow>(
    "fact_id",
    await packFacts(w.trx, scope, LIMITS.facts),
    named ? await packFacts(w.trx, scope, LIMITS.facts, named) : [],
  );
  const contradicted = await visibleContradictionCounts(w.trx, scope, fs);
  for (const f of fs) {
    const n = contradicted.get(f.fact_id) ?? 0;
    const c = n > 0 ? `; contradicted by ${n}` : "";
    out.push({
      kind: "fact",
      ref: f.fact_id,
      text: `${f.subject} ${f.predicate} ${f.object} [${f.scope}; confidence ${f.confidence}; valid from ${f.valid_from}${c}] (fact ${f.fact_id})`,
      at: f.updated_at,
      quality: n > 0 ? f.confidence * 0.7 : f.confidence,
      relevance: relevant(f.subject, f.object),
      scope: f.scope,
    });
  }
  const cs = union<ClaimRow>(
    "claim_id",
    await packClaims(w.trx, scope, LIMITS.claims),
    named ? await packClaims(w.trx, scope, LIMITS.claims, named) : [],
  );
  for (const c of cs) {
    out.push({
      kind: "claim",
      ref: c.claim_id,
      text: `${c.subject} ${c.predicate} ${c.object} [${c.scope}; confidence ${c.confidence}; ${c.evidence_count} evidence${c.requires_human ? "; needs a human" : ""}] (claim ${c.claim_id})`,
      at: c.updated_at,
      quality: c.confidence,
      relevance: relevant(c.subject, c.object),
      scope: c.scope,
    });
  }
  for (const q of await visibleOpenQuestions(w.trx, scope, LIMITS.questions)) {
    out.push({
      kind: "question",
      ref: q.question_id,
      text: `[${q.type} · ${q.priority}] ${q.text} (chunk "${q.chunk_title}", question ${q.question_id})`,
      at: q.created_at,
      quality: q.priority === "high" ? 0.9 : 0.6,
      relevance: relevant(q.chunk_title),
    });
  }
  const ks = await unfrozenChunks(w.trx, scope, LIMITS.chunks);
  for (const k of ks) {
    out.push({
      kind: "chunk",
      ref: k.chunk_id,
      text: `${k.title} [${k.state}; materiality ${k.materiality}; uncertainty ${k.uncertainty}] (chunk ${k.chunk_id})`,
      at: k.updated_at,
      quality: k.materiality,
      relevance: target && k.source_ref === target.id ? 1 : relevant(k.title),
    });
  }
  const project = target ? target.project : session ? session.project : undefined;
  for (const t of await packTasks(w.trx, scope, project, LIMITS.tasks)) {
    const who = t.assignee ? `; assigned to ${t.assignee}` : "";
    const desc = t.description ? ` — ${t.description.slice(0, 200)}` : "";
    out.push({
      kind: "task",
      ref: t.id,
      text: `[${t.status} · ${t.priority} · ${t.section}${who}] ${t.title}${desc} (task ${t.id})`,
      at: t.updated_at,
      quality: PRIORITY_QUALITY[t.priority] ?? 0.5,
      relevance: target && (t.id === target.id || t.parent_id === target.id) ? 1 : relevant(t.title),
    });
  }
  if (session) {
    out.push({
      kind: "session",
      ref: session.session_id,
      text: `Session ${session.session_id}: ${session.summary ?? "(no summary saved)"} (last saved ${session.ended_at})`,
      at: session.ended_at,
      quality: 1,
      relevance: 1,
    });
  }
  return out;
}

/** The rows of both reads, each once (the pack's order does not depend on the input's). */
function union<R>(key: keyof R, a: R[], b: R[]): R[] {
  const seen = new Set(a.map((r) => r[key]));
  return a.concat(b.filter((r) => !seen.has(r[key])));
}

/** A pack's session: a UUID (session_save's vocabulary), visible to the caller, else "session not found". */
async function packSession(w: WriteScope, v: string | null | undefined): Promise<SessionRow | null> {
  return namedSession(w.trx, w.ctx.caller, v);
}

/** A pack's target task, visible to the caller, else "Task not found". */
async function packTarget(w: WriteScope, v: string | null | undefined): Promise<TaskRow | null> {
  const ref = given(v);
  if (ref === undefined) return null;
  const t = await getTask(w.trx, scopeOf(w.ctx.caller), ref);
  if (!t) throw notFound("Task");
  return t;
}

/** build_context_pack: resolves its session and target, then compiles the pack (compilePack). */
export function buildContextPack(ctx: ShampooCtx, a: BuildContextPackInput) {
  return write(ctx, async (w) => {
    const session = await packSession(w, a.session_id);
    const target = await packTarget(w, a.target_ref);
    const type: PackType = typeof a.pack_type === "string" ? a.pack_type : "planner";
    return compilePack(w, { pack_type: type, session, target, token_budget: a.token_budget, input: a });
  });
}

export interface BuildArgs {
  pack_type: PackType;
  session: SessionRow | null;
  target: TaskRow | null;
  token_budget: number | null | undefined;
  /** The tool's input, as the run-history entry records it. */
  input: unknown;
  /** enrich_context's untargeted pack: answered but not kept when it has no home (packHome). */
  unsavedWithoutHome?: boolean;
}

/**
 * Where a pack lives: its target's or session's project; an untargeted, sessionless pack lives
 * in the untagged enclave only for an author holding the "" grant, else in the author's one
 * project. An author of several projects without the "" grant has no single place they may both
 * read and write it (undefined): build_context_pack asks for a target or session.
 */
export function packHome(
  caller: Caller,
  target: TaskRow | null,
  session: SessionRow | null,
): { project: string | null } | undefined {
  if (target) return { project: target.project };
  if (session) return { project: session.project };
  if (caller.untagged) return { project: null };
  if (!caller.star && caller.projects.size === 1) return { project: [...caller.projects][0] as string };
  return undefined;
}

/**
 * Builds, persists and reports one pack. Persisted only when something was selected (an empty
 * pack has pack_id null); a new pack retires the caller's earlier live packs of the same kind
 * (type, session, target), each retirement stamped (retired_at/by, "superseded by pack <id>")
 * and a history event. The summary artifact and the
 * provenance of every included item are written beside it, and a run-history entry.
 */
export async function compilePack(w: WriteScope, a: BuildArgs) {
  const at = iso(w.now);
  const home = packHome(w.ctx.caller, a.target, a.session);
  if (!home && !a.unsavedWithoutHome)
    throw fail(
      "validation",
      'a pack without target_ref or session_id lives in the untagged enclave (needs the "" grant) or in your only project; name a target_ref or session_id',
    );
  const budget = budgetOf(a.token_budget);
  const p: Pack = pack(a.pack_type, await candidates(w, a.target, a.session), w.now, budget);
  const targetRef = a.target?.id ?? null;
  const sessionId = a.session?.session_id ?? null;
  let packId: string | null = null;
  if (p.items.length > 0 && home) {
    packId = randomUUID();
    const row = {
      pack_id: packId,
      profile: w.ctx.caller.profile,
      pack_type: a.pack_type,
      session_id: sessionId,
      project: home.project,
      token_budget: budget,
      token_usage: p.token_usage,
      freshness_score: p.freshness_score,
      body: p.body,
      items_json: JSON.stringify(p.items.map((i) => ({ kind: i.kind, ref: i.ref, at: i.at, score: i.score }))),
      lifecycle: "live" as const,
      created_by: w.ctx.caller.principal,
      created_at: at,
      last_event_id: "",
    };
    await retireStale(w, a.pack_type, sessionId, targetRef, packId);
    row.last_event_id = await recordChange(w, {
      kind: "context_pack",
      id: packId,
      action: "create",
      old: null,
      next: row,
      // History records the pack's metadata and target, not its body or items.
      view: ({ body: _b, items_json: _i, profile: _p, last_event_id: _l, ...meta }) => ({
        ...meta,
        target_ref: targetRef,
      }),
    });
    await insertPack(w.trx, row);
    await addPackSummary(w.trx, {
      pack_id: packId,
      profile: row.profile,
      pack_type: a.pack_type,
      target_ref: targetRef,
      session_id: sessionId,
      relevance_score: p.relevance_score,
      quality_score: p.quality_score,
      items_included: p.items.length,
      sections_json: JSON.stringify(p.sections),
      summary: summaryOf(a.pack_type, p),
      created_at: at,
    });
    for (const i of p.items) {
      await addProvenance(w.trx, {
        provenance_id: randomUUID(),
        profile: row.profile,
        target_kind: "pack",
        target_id: packId,
        source_kind: i.kind,
        source_ref: i.ref,
        detail_json: JSON.stringify({ score: i.score, at: i.at }),
        created_at: at,
      });
      if (i.kind === "fact") await impactLink(w, "fact", i.ref, "pack", packId, 0.6, "included in pack");
    }
    if (sessionId) await impactLink(w, "pack", packId, "session", sessionId, 0.9, "handed to session");
  }
  const preview = Math.min(5, p.items.length);
  const result = {
    pack_id: packId,
    pack_type: a.pack_type,
    token_budget: budget,
    token_usage: p.token_usage,
    items_included: p.items.length,
    preview_items_included: preview,
    task_scoped: a.target !== null,
    persisted: packId !== null,
    freshness_score: p.freshness_score,
    relevance_score: p.relevance_score,
    quality_score: p.quality_score,
    previewable: preview > 0,
    contract_version: CONTRACT_VERSION,
    selection_policy: { name: SELECTION_POLICY, weights: ROLES[a.pack_type] },
    advanced_context: {
      contradicted_facts: p.items.filter((i) => i.kind === "fact" && i.text.includes("contradicted by")).length,
      open_questions: p.items.filter((i) => i.kind === "question").length,
      claims_needing_human: p.items.filter((i) => i.kind === "claim" && i.text.includes("needs a human")).length,
    },
    sections: p.sections,
    body: p.body,
  };
  const { body: _b, ...logged } = result;
  await recordRun(w, "build_context_pack", a.input, logged, { session_id: sessionId, pack_id: packId });
  return result;
}

function summaryOf(type: PackType, p: Pack): string {
  return `${type} pack: ${p.items.length} items (${p.sections.map((s) => `${s.items} ${s.name.toLowerCase()}`).join(", ")}), ${p.token_usage} tokens`;
}

async function retireStale(
  w: WriteScope,
  type: PackType,
  sessionId: string | null,
  targetRef: string | null,
  supersededBy: string,
) {
  const stale = await livePacksOfKind(w.trx, {
    profile: w.ctx.caller.profile,
    principal: w.ctx.caller.principal,
    type,
    sessionId,
    targetRef,
  });
  const retire = lifecycleSet("retire", stampOf(w, `superseded by pack ${supersededBy}`));
  for (const s of stale) {
    const eventId = await recordChange(w, {
      kind: "context_pack",
      id: s.pack_id,
      action: "retire",
      // History records the lifecycle move only: live before, the retire columns after.
      old: { lifecycle: "live", last_event_id: s.last_event_id },
      next: { ...retire, last_event_id: s.last_event_id },
      view: ({ last_event_id: _l, ...move }) => move,
    });
    await setPackLifecycle(w.trx, s.pack_id, { ...retire, last_event_id: eventId });
  }
  return stale.length;
}
