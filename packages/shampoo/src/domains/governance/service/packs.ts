import { randomUUID } from "node:crypto";
import { sql } from "kernel";
import { lifecycleSet, stampOf } from "../../../platform/lifecycle.ts";
import type { SessionRow } from "../../sessions/schema.ts";
import { LIVE_STATUS_SQL } from "../../tasks/store/ready-sql.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { scoped } from "../../tasks/store/tasks.ts";
import { budgetOf, type Candidate, CONTRACT_VERSION, type Pack, type PackType, pack, ROLES } from "../rules/packing.ts";
import { norm } from "../rules/text.ts";
import type { ClaimRow, FactRow } from "../schema/tables.ts";
import { chunks, claims, facts, naming, visibleOpenQuestions } from "../store.ts";
import { impactLink } from "./facts.ts";
import { record, recordRun, type W } from "./write.ts";

/**
 * How many rows of each kind a pack considers (most recently changed first). A targeted pack
 * also considers up to as many facts and claims of its target's project that name it, however old.
 */
const LIMITS = { facts: 300, claims: 200, questions: 100, chunks: 100, tasks: 200 };
const PRIORITY_QUALITY: Record<string, number> = { critical: 1, high: 0.85, medium: 0.6, low: 0.4 };
export const SELECTION_POLICY = "greedy_by_score_v1";

/** Literal conditions, as the partial indexes of migration 0002 are written (schema/migrations.ts). */
const LIVE_FACT = sql<boolean>`status = 'live'`;
const CANDIDATE_CLAIM = sql<boolean>`status = 'candidate'`;
const OPEN_TASK = sql.raw<boolean>(`status IN ${LIVE_STATUS_SQL}`);

/**
 * The target's project (untagged for an untagged task): where the facts and claims naming it are
 * looked for past the newest rows. Facts come from the chunks of the project's notes; searching
 * every project's text for the target's words would read every live row of the profile.
 */
function inProjectOf(target: TaskRow | null) {
  return target?.project == null ? sql<boolean>`project IS NULL` : sql<boolean>`project = ${target.project}`;
}

/** Words of a target task and its linked entities: facts and claims naming one are relevant. */
async function targetTerms(w: W, target: TaskRow): Promise<string[]> {
  const names = await w.trx
    .selectFrom("shampoo_task_links as l")
    .innerJoin("shampoo_entities as e", "e.id", "l.entity_id")
    .select("e.name")
    .where("l.profile", "=", w.ctx.caller.profile)
    .where("l.task_id", "=", target.id)
    .where("l.lifecycle", "=", "live")
    .where("e.lifecycle", "=", "live")
    .execute();
  return [target.title, ...names.map((n) => n.name)].map(norm).filter((s) => s.length >= 3);
}

/**
 * Everything a pack may include, visible to the caller: live facts, candidate claims, open
 * questions, chunks, open tasks (of the target's or session's project when one is given).
 */
export async function candidates(w: W, target: TaskRow | null, session: SessionRow | null): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const terms = target ? await targetTerms(w, target) : [];
  const relevant = (...texts: string[]) => {
    if (!target) return 0.5;
    const t = texts.map(norm).join(" ");
    return terms.some((x) => t.includes(x) || x.includes(t)) ? 1 : 0.5;
  };
  const dialect = w.engine.dialect;
  const liveFacts = () => facts(w.trx, w.scope).selectAll().where(LIVE_FACT);
  const fs = union<FactRow>(
    "fact_id",
    await liveFacts().orderBy("updated_at", "desc").orderBy("fact_id").limit(LIMITS.facts).execute(),
    terms.length === 0
      ? []
      : await liveFacts()
          .where(inProjectOf(target))
          .where(naming(dialect, terms))
          .orderBy("updated_at", "desc")
          .orderBy("fact_id")
          .limit(LIMITS.facts)
          .execute(),
  );
  for (const f of fs) {
    const c = f.contradiction_count > 0 ? `; contradicted by ${f.contradiction_count}` : "";
    out.push({
      kind: "fact",
      ref: f.fact_id,
      text: `${f.subject} ${f.predicate} ${f.object} [${f.scope}; confidence ${f.confidence}; valid from ${f.valid_from}${c}] (fact ${f.fact_id})`,
      at: f.updated_at,
      quality: f.contradiction_count > 0 ? f.confidence * 0.7 : f.confidence,
      relevance: relevant(f.subject, f.object),
      scope: f.scope,
    });
  }
  const candidateClaims = () => claims(w.trx, w.scope).selectAll().where(CANDIDATE_CLAIM);
  const cs = union<ClaimRow>(
    "claim_id",
    await candidateClaims().orderBy("updated_at", "desc").orderBy("claim_id").limit(LIMITS.claims).execute(),
    terms.length === 0
      ? []
      : await candidateClaims()
          .where(inProjectOf(target))
          .where(naming(dialect, terms))
          .orderBy("updated_at", "desc")
          .orderBy("claim_id")
          .limit(LIMITS.claims)
          .execute(),
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
  for (const q of await visibleOpenQuestions(w.trx, w.scope, LIMITS.questions)) {
    out.push({
      kind: "question",
      ref: q.question_id,
      text: `[${q.type} · ${q.priority}] ${q.text} (chunk "${q.chunk_title}", question ${q.question_id})`,
      at: q.created_at,
      quality: q.priority === "high" ? 0.9 : 0.6,
      relevance: relevant(q.chunk_title),
    });
  }
  const ks = await chunks(w.trx, w.scope)
    .selectAll()
    .where("state", "!=", "frozen")
    .orderBy("updated_at", "desc")
    .orderBy("chunk_id")
    .limit(LIMITS.chunks)
    .execute();
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
  let tq = scoped(w.trx, w.scope).selectAll().where(OPEN_TASK);
  if (project !== undefined)
    tq = tq.where((eb) => (project === null ? eb("project", "is", null) : eb("project", "=", project)));
  for (const t of await tq.orderBy("updated_at", "desc").orderBy("id").limit(LIMITS.tasks).execute()) {
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

export interface BuildArgs {
  pack_type: PackType;
  session: SessionRow | null;
  target: TaskRow | null;
  token_budget: unknown;
  input: unknown;
}

/**
 * Builds, persists and reports one pack. Persisted only when something was selected (an empty
 * pack has pack_id null); a new pack retires the caller's earlier live packs of the same kind
 * (type, session, target), each retirement stamped (retired_at/by, "superseded by pack <id>")
 * and a history event. The summary artifact and the
 * provenance of every included item are written beside it, and a run-history entry.
 */
export async function buildContextPack(w: W, a: BuildArgs) {
  const budget = budgetOf(a.token_budget);
  const p: Pack = pack(a.pack_type, await candidates(w, a.target, a.session), w.now, budget);
  const targetRef = a.target?.id ?? null;
  const sessionId = a.session?.session_id ?? null;
  let packId: string | null = null;
  if (p.items.length > 0) {
    packId = randomUUID();
    const row = {
      pack_id: packId,
      profile: w.ctx.caller.profile,
      pack_type: a.pack_type,
      session_id: sessionId,
      project: a.target?.project ?? a.session?.project ?? null,
      token_budget: budget,
      token_usage: p.token_usage,
      freshness_score: p.freshness_score,
      body: p.body,
      items_json: JSON.stringify(p.items.map((i) => ({ kind: i.kind, ref: i.ref, at: i.at, score: i.score }))),
      lifecycle: "live" as const,
      created_by: w.ctx.caller.principal,
      created_at: w.at,
      last_event_id: "",
    };
    await retireStale(w, a.pack_type, sessionId, targetRef, packId);
    const { body: _b, items_json: _i, profile: _p, last_event_id: _l, ...meta } = row;
    row.last_event_id = await record(w, {
      entityKind: "context_pack",
      entityId: packId,
      action: "create",
      old: null,
      new: { ...meta, target_ref: targetRef },
    });
    await w.trx.insertInto("shampoo_context_packs").values(row).execute();
    await w.trx
      .insertInto("governance_pack_summaries")
      .values({
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
        created_at: w.at,
      })
      .execute();
    for (const i of p.items) {
      await w.trx
        .insertInto("governance_provenance")
        .values({
          provenance_id: randomUUID(),
          profile: row.profile,
          target_kind: "pack",
          target_id: packId,
          source_kind: i.kind,
          source_ref: i.ref,
          detail_json: JSON.stringify({ score: i.score, at: i.at }),
          created_at: w.at,
        })
        .execute();
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
  w: W,
  type: PackType,
  sessionId: string | null,
  targetRef: string | null,
  supersededBy: string,
) {
  const stale = await w.trx
    .selectFrom("shampoo_context_packs as p")
    .leftJoin("governance_pack_summaries as s", "s.pack_id", "p.pack_id")
    .select(["p.pack_id", "p.last_event_id"])
    .where("p.profile", "=", w.ctx.caller.profile)
    .where("p.pack_type", "=", type)
    .where("p.lifecycle", "=", "live")
    .where("p.created_by", "=", w.ctx.caller.principal)
    .where((eb) => (sessionId === null ? eb("p.session_id", "is", null) : eb("p.session_id", "=", sessionId)))
    .where((eb) => (targetRef === null ? eb("s.target_ref", "is", null) : eb("s.target_ref", "=", targetRef)))
    .orderBy("p.pack_id")
    .execute();
  const retire = lifecycleSet("retire", stampOf(w, `superseded by pack ${supersededBy}`));
  for (const s of stale) {
    const eventId = await record(w, {
      entityKind: "context_pack",
      entityId: s.pack_id,
      action: "retire",
      old: { lifecycle: "live" },
      new: retire,
      parentEventId: s.last_event_id,
    });
    await w.trx
      .updateTable("shampoo_context_packs")
      .set({ ...retire, last_event_id: eventId })
      .where("pack_id", "=", s.pack_id)
      .execute();
  }
  return stale.length;
}
