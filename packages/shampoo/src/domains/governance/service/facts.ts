import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, notFound } from "../../../platform/errors.ts";
import { recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { GovernFactInput } from "../inputs.gen.ts";
import { historyView } from "../model.ts";
import { contradicts, type FactAction, type FactState, type FactStatus, govern, isRefusal } from "../rules/facts.ts";
import { isoArg } from "../rules/text.ts";
import type { FactRow } from "../schema/tables.ts";
import {
  addDecision,
  addFactVersion,
  casFact,
  closeVersion,
  factById,
  factsByIds,
  insertFact,
  liveByKey,
  undatedClaim,
} from "../store/facts.ts";
import { addImpactLink } from "../store/provenance.ts";
import { recordRun } from "./runs.ts";

/**
 * Truth maintenance on stored facts. Every change goes through saveFact: compare-and-swap on the
 * row's last event (so of eight concurrent supersedes of one fact exactly one wins; PostgreSQL
 * also holds the row lock taken when the fact was read), one history event, and — when status or
 * validity moved — a new bi-temporal version (the old one closed at this transaction's time).
 */
export async function saveFact(
  w: WriteScope,
  old: FactRow | null,
  row: FactRow,
  action: string,
  payload?: unknown,
): Promise<FactRow> {
  const expected = old?.last_event_id ?? "";
  const at = iso(w.now);
  row.last_event_id = await recordChange(w, {
    kind: "fact",
    id: row.fact_id,
    action,
    old,
    next: row,
    view: historyView,
    payload,
  });
  if (old === null) await insertFact(w.trx, row);
  else if (!(await casFact(w.trx, row, expected))) throw fail("conflict", "fact changed concurrently; read it again");
  const moved =
    old === null || old.status !== row.status || old.valid_to !== row.valid_to || old.valid_from !== row.valid_from;
  if (moved) {
    if (old !== null) await closeVersion(w.trx, row.profile, row.fact_id, at);
    await addFactVersion(w.trx, {
      version_id: randomUUID(),
      profile: row.profile,
      fact_id: row.fact_id,
      status: row.status,
      valid_from: row.valid_from,
      valid_to: row.valid_to,
      known_from: at,
      known_to: null,
      event_id: row.last_event_id,
    });
  }
  return row;
}

export const contradictsOf = (f: FactRow): string[] => JSON.parse(f.contradicts_json) as string[];

/**
 * The facts a step changed: the fact it is about as it now stands, and the ids of the history
 * events it recorded, in order (govern_fact's decision artifact names the last one).
 */
export interface Linked {
  fact: FactRow;
  events: string[];
}

/** Adds contradiction links (both ways) between `f` and `others`, writing each changed fact. */
async function link(w: WriteScope, f: FactRow, others: FactRow[], why: string): Promise<Linked> {
  const at = iso(w.now);
  const events: string[] = [];
  let cur = f;
  for (const o of others) {
    if (!contradictsOf(cur).includes(o.fact_id)) {
      const ids = [...contradictsOf(cur), o.fact_id].sort();
      cur = await saveFact(w, cur, { ...cur, contradicts_json: JSON.stringify(ids), updated_at: at }, "contradict", {
        with: o.fact_id,
        why,
      });
      events.push(cur.last_event_id);
    }
    if (!contradictsOf(o).includes(cur.fact_id)) {
      const ids = [...contradictsOf(o), cur.fact_id].sort();
      const other = await saveFact(
        w,
        o,
        { ...o, contradicts_json: JSON.stringify(ids), updated_at: at },
        "contradict",
        { with: cur.fact_id, why },
      );
      events.push(other.last_event_id);
    }
    await impactLink(w, "fact", cur.fact_id, "fact", o.fact_id, 0.8, "contradicts");
    await impactLink(w, "fact", o.fact_id, "fact", cur.fact_id, 0.8, "contradicts");
  }
  return { fact: cur, events };
}

/**
 * A fact's open contradictions: the live facts it contradicts while it is live itself (a retired
 * fact contradicts nothing any more).
 */
export function openContradictions(status: string, partnerStatuses: string[]): number {
  return status === "live" ? partnerStatuses.filter((s) => s === "live").length : 0;
}

/**
 * Refreshes contradiction_count (openContradictions) for `ids`: called whenever a fact's status
 * moves, for it and for every fact it is linked with. Returns the ids of the events it recorded,
 * one per fact whose count changed.
 */
export async function refreshCounts(w: WriteScope, ids: string[]): Promise<string[]> {
  const rows = await factsByIds(w.trx, w.ctx.caller.profile, [...new Set(ids)]);
  const events: string[] = [];
  for (const r of rows) {
    const partners = await factsByIds(w.trx, r.profile, contradictsOf(r));
    const n = openContradictions(
      r.status,
      partners.map((p) => p.status),
    );
    if (n !== r.contradiction_count) {
      const row = await saveFact(
        w,
        r,
        { ...r, contradiction_count: n, updated_at: iso(w.now) },
        "refresh_contradictions",
        {
          live_contradictions: n,
        },
      );
      events.push(row.last_event_id);
    }
  }
  return events;
}

/** Structural contradictions of a live fact: same project, subject, single-valued predicate, scope. */
export async function linkStructural(w: WriteScope, f: FactRow): Promise<Linked> {
  const rivals = (await liveByKey(w.trx, f)).filter((o) => contradicts(f, o));
  if (rivals.length === 0) return { fact: f, events: [] };
  const linked = await link(w, f, rivals, "structural: same subject, predicate and scope");
  const refreshed = await refreshCounts(w, [linked.fact.fact_id, ...rivals.map((r) => r.fact_id)]);
  const fact = (await factsByIds(w.trx, f.profile, [f.fact_id]))[0] as FactRow;
  return { fact, events: [...linked.events, ...refreshed] };
}

/** Records one impact edge (once: a repeated edge is kept as first written). */
export async function impactLink(
  w: WriteScope,
  fromKind: string,
  fromId: string,
  toKind: string,
  toId: string,
  weight: number,
  rationale: string,
): Promise<void> {
  await addImpactLink(w.trx, {
    profile: w.ctx.caller.profile,
    from_kind: fromKind,
    from_id: fromId,
    to_kind: toKind,
    to_id: toId,
    weight,
    rationale,
    created_at: iso(w.now),
  });
}

const state = (f: FactRow): FactState => ({
  fact_id: f.fact_id,
  status: f.status as FactStatus,
  valid_from: f.valid_from,
  valid_to: f.valid_to,
  superseded_by: f.superseded_by,
});

export interface GovernArgs {
  fact_id: string;
  action: FactAction;
  target_fact_id?: string;
  rationale?: string;
  effective_at: string;
}

/** govern_fact: a malformed effective_at fails before the write; decides and records the run. */
export function governFact(ctx: ShampooCtx, a: GovernFactInput) {
  const eff = given(a.effective_at);
  const effective = eff === undefined ? undefined : isoArg("effective_at", eff);
  return write(ctx, async (w) => {
    const r = await decideFact(w, {
      fact_id: a.fact_id,
      action: a.action,
      target_fact_id: given(a.target_fact_id),
      rationale: given(a.rationale),
      effective_at: effective ?? iso(w.now),
    });
    await recordRun(w, "govern_fact", a, r);
    return r;
  });
}

/**
 * One fact decision. Shape checks first (missing or self target), then the fact and target through
 * scoped reads ("fact not found" for unknown and invisible alike), then the pure rule, then the
 * writes: the fact, its decision artifact, links, refreshed contradiction counts.
 */
async function decideFact(w: WriteScope, a: GovernArgs) {
  const at = iso(w.now);
  const scope = scopeOf(w.ctx.caller);
  const needsTarget = a.action === "supersede" || a.action === "contradict";
  if (needsTarget && a.target_fact_id === undefined)
    throw fail("validation", `target_fact_id is required for ${a.action}`);
  if (needsTarget && a.target_fact_id === a.fact_id)
    throw fail("validation", "target_fact_id must differ from fact_id");
  const lock = w.engine.caps.rowLock;
  // Lock in id order so two supersedes naming each other cannot deadlock on PostgreSQL.
  const ids = needsTarget ? [a.fact_id, a.target_fact_id as string].sort() : [a.fact_id];
  const rows = new Map<string, FactRow>();
  for (const id of ids) {
    const r = await factById(w.trx, scope, id, lock);
    if (!r) throw notFound("fact");
    rows.set(id, r);
  }
  const old = rows.get(a.fact_id) as FactRow;
  const target = needsTarget ? (rows.get(a.target_fact_id as string) as FactRow) : null;
  const change = govern(a.action, state(old), target ? state(target) : null, a.effective_at, {
    now: at,
    undated: await undatedClaim(w.trx, old.profile, old.source_claim_id),
  });
  if (isRefusal(change)) throw fail(change.type, change.message);

  const decisionId = randomUUID();
  const payload = {
    decision_id: decisionId,
    rationale: a.rationale ?? null,
    effective_at: a.effective_at,
    target_fact_id: target?.fact_id ?? null,
  };
  // The decision names the last history event this decision recorded ("" when none).
  const events: string[] = [];
  if (a.action === "contradict" && target) {
    const linked = await link(w, old, [target], a.rationale ?? "declared by govern_fact");
    events.push(...linked.events, ...(await refreshCounts(w, [old.fact_id, target.fact_id])));
  } else {
    let fact = await saveFact(w, old, { ...old, ...change.fact, updated_at: at }, a.action, payload);
    events.push(fact.last_event_id);
    if (a.action === "supersede" && target)
      await impactLink(w, "fact", old.fact_id, "fact", target.fact_id, 1, "superseded by");
    const touched = [fact.fact_id, ...contradictsOf(fact)];
    if (a.action === "revalidate") {
      const linked = await linkStructural(w, fact);
      fact = linked.fact;
      events.push(...linked.events);
      touched.push(...contradictsOf(fact));
    }
    events.push(...(await refreshCounts(w, touched)));
  }
  await addDecision(w.trx, {
    decision_id: decisionId,
    profile: old.profile,
    fact_id: old.fact_id,
    action: a.action,
    target_fact_id: target?.fact_id ?? null,
    rationale: a.rationale ?? null,
    effective_at: a.effective_at,
    decided_by: w.ctx.caller.principal,
    decided_at: at,
    event_id: events.at(-1) ?? "",
  });
  return {
    fact_id: old.fact_id,
    action: a.action,
    target_fact_id: target?.fact_id ?? null,
    effective_at: a.effective_at,
    changed: true,
  };
}
