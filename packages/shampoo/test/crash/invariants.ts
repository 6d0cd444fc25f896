/**
 * What "atomic and audited" means, checked against a whole database after the fact (crash test,
 * end-to-end runs, the bench seed):
 *
 * 1. every task has at least one history event, its latest event is the task's last_event_id, and
 *    that event's new_json is exactly the task's current public view (taskView);
 * 2. every task event's entity exists (no event without its change);
 * 3. the events of one entity form a chain: each names the previous one as parent_event_id;
 * 4. per profile, the clock runs 1, 2, 3, … in seq order (strictly increasing, no gaps), and
 *    shampoo_clocks holds its last value.
 *
 * Returns the problems found (empty when all hold), at most `max` of them, plus counts.
 */
import { isDeepStrictEqual } from "node:util";
import type { Kysely } from "kernel";
import { taskView } from "../../src/domains/tasks/model.ts";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import type { HistoryRow, ShampooDB } from "../../src/store/schema.ts";

export interface InvariantReport {
  tasks: number;
  events: number;
  profiles: Record<string, number>;
  /** Event kinds this checker knows nothing about (counted, not checked beyond clocks). */
  unchecked: Record<string, number>;
  problems: string[];
}

type Event = Pick<
  HistoryRow,
  "event_id" | "profile" | "clock" | "entity_kind" | "entity_id" | "new_json" | "parent_event_id"
> & { seq: number };

export async function checkInvariants(db: Kysely<ShampooDB>, max = 20): Promise<InvariantReport> {
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < max) problems.push(p);
    else if (problems.length === max) problems.push("… more problems not shown");
  };
  const tasks = (await db.selectFrom("shampoo_tasks").selectAll().execute()) as TaskRow[];
  const events = (
    await db
      .selectFrom("shampoo_history")
      .select(["seq", "event_id", "profile", "clock", "entity_kind", "entity_id", "new_json", "parent_event_id"])
      .orderBy("seq")
      .execute()
  ).map((e) => ({ ...e, seq: Number(e.seq), clock: Number(e.clock) })) as Event[];
  const clocks = await db.selectFrom("shampoo_clocks").selectAll().execute();

  const byEntity = new Map<string, Event[]>();
  const unchecked: Record<string, number> = {};
  for (const e of events) {
    if (e.entity_kind !== "task") {
      unchecked[e.entity_kind] = (unchecked[e.entity_kind] ?? 0) + 1;
      continue;
    }
    const list = byEntity.get(e.entity_id) ?? [];
    list.push(e);
    byEntity.set(e.entity_id, list);
  }

  const taskIds = new Set<string>();
  for (const t of tasks) {
    taskIds.add(t.id);
    const chain = byEntity.get(t.id);
    if (!chain || chain.length === 0) {
      problem(`task ${t.id} has no history event`);
      continue;
    }
    const last = chain[chain.length - 1] as Event;
    if (last.event_id !== t.last_event_id) {
      problem(`task ${t.id}: last_event_id ${t.last_event_id} but its latest event is ${last.event_id}`);
    }
    if (last.profile !== t.profile) problem(`task ${t.id}: its latest event is in profile ${last.profile}`);
    const view = taskView(t);
    const recorded = last.new_json === null ? null : JSON.parse(last.new_json);
    if (!isDeepStrictEqual(recorded, view)) {
      problem(
        `task ${t.id}: latest event new_json ${JSON.stringify(recorded)} differs from the row ${JSON.stringify(view)}`,
      );
    }
    for (const [i, e] of chain.entries()) {
      const parent = i === 0 ? null : (chain[i - 1] as Event).event_id;
      if ((e.parent_event_id ?? null) !== parent) {
        problem(`task ${t.id}: event ${e.event_id} has parent ${e.parent_event_id}, expected ${parent}`);
      }
    }
  }
  for (const id of byEntity.keys()) {
    if (!taskIds.has(id)) problem(`history has events for task ${id}, which does not exist`);
  }

  const profiles: Record<string, number> = {};
  for (const e of events) {
    const expected = (profiles[e.profile] ?? 0) + 1;
    if (e.clock !== expected) {
      problem(`profile ${e.profile}: seq ${e.seq} has clock ${e.clock}, expected ${expected} (gap or repeat)`);
    }
    profiles[e.profile] = e.clock;
  }
  const stored = new Map(clocks.map((c) => [c.profile, Number(c.clock)]));
  for (const [p, last] of Object.entries(profiles)) {
    if (stored.get(p) !== last)
      problem(`shampoo_clocks says ${stored.get(p)} for profile ${p}, history ends at ${last}`);
  }
  for (const [p, c] of stored) {
    if (!(p in profiles)) problem(`shampoo_clocks has ${c} for profile ${p}, which has no event`);
  }
  return { tasks: tasks.length, events: events.length, profiles, unchecked, problems };
}
