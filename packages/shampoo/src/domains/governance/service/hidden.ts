import type { Scope } from "../../../access/caller.ts";
import type { HistoryRow } from "../../../store/schema.ts";
import type { FactRow } from "../schema/tables.ts";
import type { Db } from "../store/db.ts";
import { visibleIds } from "../store/provenance.ts";

/**
 * A fact may name facts of projects its reader cannot see (a contradiction or a supersession
 * declared by a caller holding both grants). Every read shows only the links its reader could
 * follow, as explain_impact does: the hidden partners' ids, the rationale naming them and their
 * share of contradiction counts are left out.
 */

const ids = (json: unknown): string[] => (typeof json === "string" ? (JSON.parse(json) as string[]) : []);

/** The visible live contradictions of each fact: its count less the partners the reader cannot see. */
export async function visibleContradictionCounts(db: Db, scope: Scope, facts: FactRow[]): Promise<Map<string, number>> {
  const linked = facts.filter((f) => f.contradiction_count > 0);
  const seen = new Set(
    await visibleIds(db, scope, "fact", [...new Set(linked.flatMap((f) => ids(f.contradicts_json)))]),
  );
  const out = new Map<string, number>();
  for (const f of facts) {
    const partners = ids(f.contradicts_json);
    const hidden = partners.filter((p) => !seen.has(p)).length;
    out.set(f.fact_id, Math.max(0, Math.min(f.contradiction_count, partners.length - hidden)));
  }
  return out;
}

type Json = Record<string, unknown>;
const parse = (s: string | null): Json | null => (s === null ? null : (JSON.parse(s) as Json));

/** The fact ids a fact event's values and payload name. */
function named(old: Json | null, next: Json | null, payload: Json | null): string[] {
  const out: string[] = [];
  for (const v of [old, next]) {
    if (!v) continue;
    out.push(...ids(v.contradicts_json));
    if (typeof v.superseded_by === "string") out.push(v.superseded_by);
  }
  for (const k of ["with", "target_fact_id"]) if (typeof payload?.[k] === "string") out.push(payload[k] as string);
  return out;
}

/** A fact row as an event recorded it, less the partners `hidden` names. */
function redactRow(v: Json | null, hidden: Set<string>): Json | null {
  if (!v) return v;
  const r = { ...v };
  if (typeof r.contradicts_json === "string") {
    const all = ids(r.contradicts_json);
    const kept = all.filter((p) => !hidden.has(p));
    r.contradicts_json = JSON.stringify(kept);
    if (typeof r.contradiction_count === "number")
      r.contradiction_count = Math.min(
        r.contradiction_count,
        Math.max(0, r.contradiction_count - (all.length - kept.length)),
      );
  }
  if (typeof r.superseded_by === "string" && hidden.has(r.superseded_by)) r.superseded_by = null;
  return r;
}

/** The fact events of `rows` with every hidden partner (id, rationale, count) left out. */
export async function redactFactEvents(db: Db, scope: Scope, rows: HistoryRow[]): Promise<HistoryRow[]> {
  const facts = rows.filter((h) => h.entity_kind === "fact");
  const parsed = new Map(
    facts.map((h) => [h.event_id, { old: parse(h.old_json), next: parse(h.new_json), payload: parse(h.payload_json) }]),
  );
  const all = [...new Set([...parsed.values()].flatMap((e) => named(e.old, e.next, e.payload)))];
  if (all.length === 0) return rows;
  const seen = new Set(await visibleIds(db, scope, "fact", all));
  const hidden = new Set(all.filter((id) => !seen.has(id)));
  if (hidden.size === 0) return rows;
  return rows.map((h) => {
    const e = parsed.get(h.event_id);
    if (!e || named(e.old, e.next, e.payload).every((id) => !hidden.has(id))) return h;
    const next = redactRow(e.next, hidden);
    let payload = e.payload;
    if (payload) {
      payload = { ...payload };
      if (typeof payload.with === "string" && hidden.has(payload.with))
        Object.assign(payload, { with: null, why: null });
      if (typeof payload.target_fact_id === "string" && hidden.has(payload.target_fact_id))
        Object.assign(payload, { target_fact_id: null, rationale: null });
      if (typeof payload.live_contradictions === "number" && typeof next?.contradiction_count === "number")
        payload.live_contradictions = next.contradiction_count;
    }
    const str = (v: Json | null) => (v === null ? null : JSON.stringify(v));
    return { ...h, old_json: str(redactRow(e.old, hidden)), new_json: str(next), payload_json: str(payload) };
  });
}
