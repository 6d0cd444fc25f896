import { randomUUID } from "node:crypto";
import { fail, notFound } from "../../../platform/errors.ts";
import { contradicts, type FactAction, type FactState, type FactStatus, govern, isRefusal } from "../rules/facts.ts";
import type { FactRow } from "../schema/tables.ts";
import { casFact, closeVersion, factById, factsByIds, liveByKey } from "../store.ts";
import { event, type W } from "./write.ts";

/**
 * Truth maintenance on stored facts. Every change goes through saveFact: compare-and-swap on the
 * row's last event (so of eight concurrent supersedes of one fact exactly one wins; PostgreSQL
 * also holds the row lock taken when the fact was read), one history event, and — when status or
 * validity moved — a new bi-temporal version (the old one closed at this transaction's time).
 */
export async function saveFact(w: W, old: FactRow | null, row: FactRow, action: string, payload?: unknown) {
  const expected = old?.last_event_id ?? "";
  row.last_event_id = await event(w, "fact", row.fact_id, action, old, row, payload);
  if (old === null) await w.trx.insertInto("governance_facts").values(row).execute();
  else if (!(await casFact(w.trx, row, expected))) throw fail("conflict", "fact changed concurrently; read it again");
  const moved =
    old === null || old.status !== row.status || old.valid_to !== row.valid_to || old.valid_from !== row.valid_from;
  if (moved) {
    if (old !== null) await closeVersion(w.trx, row.profile, row.fact_id, w.at);
    await w.trx
      .insertInto("governance_fact_versions")
      .values({
        version_id: randomUUID(),
        profile: row.profile,
        fact_id: row.fact_id,
        status: row.status,
        valid_from: row.valid_from,
        valid_to: row.valid_to,
        known_from: w.at,
        known_to: null,
        event_id: row.last_event_id,
      })
      .execute();
  }
  return row;
}

export const contradictsOf = (f: FactRow): string[] => JSON.parse(f.contradicts_json) as string[];

/** Adds contradiction links (both ways) between `f` and `others`, writing each changed fact. */
async function link(w: W, f: FactRow, others: FactRow[], why: string): Promise<FactRow> {
  let cur = f;
  for (const o of others) {
    if (!contradictsOf(cur).includes(o.fact_id)) {
      const ids = [...contradictsOf(cur), o.fact_id].sort();
      cur = await saveFact(w, cur, { ...cur, contradicts_json: JSON.stringify(ids), updated_at: w.at }, "contradict", {
        with: o.fact_id,
        why,
      });
    }
    if (!contradictsOf(o).includes(cur.fact_id)) {
      const ids = [...contradictsOf(o), cur.fact_id].sort();
      await saveFact(w, o, { ...o, contradicts_json: JSON.stringify(ids), updated_at: w.at }, "contradict", {
        with: cur.fact_id,
        why,
      });
    }
    await impactLink(w, "fact", cur.fact_id, "fact", o.fact_id, 0.8, "contradicts");
    await impactLink(w, "fact", o.fact_id, "fact", cur.fact_id, 0.8, "contradicts");
  }
  return cur;
}

/**
 * A fact's open contradictions: the live facts it contradicts while it is live itself (a retired
 * fact contradicts nothing any more).
 */
export function openContradictions(status: string, partnerStatuses: string[]): number {
  return status === "live" ? partnerStatuses.filter((s) => s === "live").length : 0;
}

/**
 * Refreshes contradiction_count (openContradictions) for `ids`: called
 * whenever a fact's status moves, for it and for every fact it is linked with.
 */
export async function refreshCounts(w: W, ids: string[]): Promise<number> {
  const rows = await factsByIds(w.trx, w.ctx.caller.profile, [...new Set(ids)]);
  let changed = 0;
  for (const r of rows) {
    const partners = await factsByIds(w.trx, r.profile, contradictsOf(r));
    const n = openContradictions(
      r.status,
      partners.map((p) => p.status),
    );
    if (n !== r.contradiction_count) {
      await saveFact(w, r, { ...r, contradiction_count: n, updated_at: w.at }, "refresh_contradictions", {
        live_contradictions: n,
      });
      changed++;
    }
  }
  return changed;
}

/** Structural contradictions of a live fact: same project, subject, single-valued predicate, scope. */
export async function linkStructural(w: W, f: FactRow): Promise<FactRow> {
  const rivals = (await liveByKey(w.trx, f)).filter((o) => contradicts(f, o));
  if (rivals.length === 0) return f;
  const linked = await link(w, f, rivals, "structural: same subject, predicate and scope");
  await refreshCounts(w, [linked.fact_id, ...rivals.map((r) => r.fact_id)]);
  return (await factsByIds(w.trx, f.profile, [f.fact_id]))[0] as FactRow;
}

export async function impactLink(
  w: W,
  fromKind: string,
  fromId: string,
  toKind: string,
  toId: string,
  weight: number,
  rationale: string,
): Promise<void> {
  await w.trx
    .insertInto("governance_impact_links")
    .values({
      profile: w.ctx.caller.profile,
      from_kind: fromKind,
      from_id: fromId,
      to_kind: toKind,
      to_id: toId,
      weight,
      rationale,
      created_at: w.at,
    })
    .onConflict((oc) => oc.columns(["profile", "from_kind", "from_id", "to_kind", "to_id"]).doNothing())
    .execute();
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

/**
 * govern_fact. Shape checks first (missing or self target), then the fact and target through
 * scoped reads ("fact not found" for unknown and invisible alike), then the pure rule, then the
 * writes: the fact, its decision artifact, links, refreshed contradiction counts.
 */
export async function governFact(w: W, a: GovernArgs) {
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
    const r = await factById(w.trx, w.scope, id, lock);
    if (!r) throw notFound("fact");
    rows.set(id, r);
  }
  const old = rows.get(a.fact_id) as FactRow;
  const target = needsTarget ? (rows.get(a.target_fact_id as string) as FactRow) : null;
  const change = govern(a.action, state(old), target ? state(target) : null, a.effective_at);
  if (isRefusal(change)) throw fail(change.type, change.message);

  const decisionId = randomUUID();
  const payload = {
    decision_id: decisionId,
    rationale: a.rationale ?? null,
    effective_at: a.effective_at,
    target_fact_id: target?.fact_id ?? null,
  };
  let fact = old;
  if (a.action === "contradict" && target) {
    fact = await link(w, old, [target], a.rationale ?? "declared by govern_fact");
    await refreshCounts(w, [old.fact_id, target.fact_id]);
  } else {
    fact = await saveFact(w, old, { ...old, ...change.fact, updated_at: w.at }, a.action, payload);
    if (a.action === "supersede" && target)
      await impactLink(w, "fact", old.fact_id, "fact", target.fact_id, 1, "superseded by");
    const touched = [fact.fact_id, ...contradictsOf(fact)];
    if (a.action === "revalidate") {
      fact = await linkStructural(w, fact);
      touched.push(...contradictsOf(fact));
    }
    await refreshCounts(w, touched);
  }
  await w.trx
    .insertInto("governance_decisions")
    .values({
      decision_id: decisionId,
      profile: old.profile,
      fact_id: old.fact_id,
      action: a.action,
      target_fact_id: target?.fact_id ?? null,
      rationale: a.rationale ?? null,
      effective_at: a.effective_at,
      decided_by: w.ctx.caller.principal,
      decided_at: w.at,
      event_id: w.lastEventId,
    })
    .execute();
  return {
    fact_id: old.fact_id,
    action: a.action,
    target_fact_id: target?.fact_id ?? null,
    effective_at: a.effective_at,
    changed: true,
  };
}
