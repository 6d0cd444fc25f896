import { isDeepStrictEqual } from "node:util";
import { sessionEventView } from "../../src/domains/sessions/model.ts";
import type { SessionRow } from "../../src/domains/sessions/schema.ts";
import type { Harness } from "./shampoo.ts";

/** Helpers shared by the session suites (test/sessions*.test.ts). */

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MISSING_SESSION = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
export const SESSION_NOT_FOUND = { error: "session not found", error_type: "not_found" };
export const MALFORMED = { error: "session_id must be a UUID returned by session_save", error_type: "validation" };
export const SCOPE_DENIED = { error: "Project not in scope", error_type: "scope" };

let n = 0;
/** A fresh name, so tests sharing one database never see each other's rows. */
export function uniq(prefix = "p"): string {
  return `${prefix}-${++n}-${Math.random().toString(36).slice(2, 7)}`;
}

export async function sessionRow(h: Harness, id: string, profile = "default"): Promise<SessionRow | undefined> {
  return h.db.db
    .selectFrom("shampoo_sessions")
    .selectAll()
    .where("profile", "=", profile)
    .where("session_id", "=", id)
    .executeTakeFirst();
}

export async function eventsOf(h: Harness, entityId: string) {
  return h.db.db.selectFrom("shampoo_history").selectAll().where("entity_id", "=", entityId).orderBy("seq").execute();
}

/** Row counts of every table a session tool could write. */
const COUNTED = ["shampoo_history", "shampoo_sessions", "shampoo_context_packs", "shampoo_context_runs"] as const;
export async function counts(h: Harness): Promise<Record<(typeof COUNTED)[number], number>> {
  const out = { shampoo_history: 0, shampoo_sessions: 0, shampoo_context_packs: 0, shampoo_context_runs: 0 };
  for (const t of COUNTED) {
    const r = await h.db.db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

/**
 * The session half of "atomic and audited", checked over the whole database: every session's
 * latest event is its last_event_id and records exactly the row (sessionEventView); the events
 * of one session chain by parent_event_id; every session event names an existing session; every
 * pack has exactly its one create event.
 */
export async function sessionInvariants(h: Harness): Promise<string[]> {
  const problems: string[] = [];
  const events = await h.db.db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("entity_kind", "in", ["session", "context_pack"])
    .orderBy("seq")
    .execute();
  const sessions = await h.db.db.selectFrom("shampoo_sessions").selectAll().execute();
  const key = (profile: string, id: string) => `${profile}/${id}`;
  const chains = new Map<string, typeof events>();
  for (const e of events.filter((x) => x.entity_kind === "session")) {
    const k = key(e.profile, e.entity_id);
    chains.set(k, [...(chains.get(k) ?? []), e]);
  }
  for (const s of sessions) {
    const chain = chains.get(key(s.profile, s.session_id)) ?? [];
    chains.delete(key(s.profile, s.session_id));
    const last = chain.at(-1);
    if (!last) {
      problems.push(`session ${s.session_id} has no event`);
      continue;
    }
    if (last.event_id !== s.last_event_id)
      problems.push(`session ${s.session_id}: last_event_id is not its latest event`);
    if (!isDeepStrictEqual(JSON.parse(last.new_json ?? "null"), sessionEventView(s)))
      problems.push(`session ${s.session_id}: latest event differs from the row`);
    chain.forEach((e, i) => {
      if ((e.parent_event_id ?? null) !== (i === 0 ? null : chain[i - 1]?.event_id))
        problems.push(`session ${s.session_id}: broken chain at ${e.event_id}`);
    });
  }
  for (const k of chains.keys()) problems.push(`events for missing session ${k}`);
  const packs = await h.db.db.selectFrom("shampoo_context_packs").select(["pack_id", "last_event_id"]).execute();
  const packEvents = events.filter((e) => e.entity_kind === "context_pack");
  for (const p of packs) {
    const mine = packEvents.filter((e) => e.entity_id === p.pack_id);
    if (mine.length !== 1 || mine[0]?.event_id !== p.last_event_id) problems.push(`pack ${p.pack_id}: not one event`);
  }
  if (packEvents.length !== packs.length) problems.push("pack events without packs");
  return problems;
}
