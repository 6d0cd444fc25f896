import type { Kysely } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";

/**
 * status's counts, each filtered as the owning tool filters its reads: the caller's profile and
 * project grants (star: every named project; "" grant: the untagged enclave), private entities
 * to their creator, sessions to their owner unless star. A foreign project's rows never count.
 */
export interface Counts {
  tasks: number;
  notes: number;
  entities: number;
  sessions: number;
  facts: number;
}

const n = (v: unknown): number => Number(v ?? 0);

export async function countsFor(db: Kysely<ShampooDB>, caller: Caller): Promise<Counts> {
  const scope = scopeOf(caller);
  const p = caller.profile;
  const byType = await db
    .selectFrom("shampoo_tasks")
    .select(["type", (eb) => eb.fn.countAll().as("k")])
    .where("profile", "=", p)
    .where(projectCondition(scope))
    .groupBy("type")
    .execute();
  const typed = new Map(byType.map((r) => [r.type as string, n(r.k)]));
  const entities = await db
    .selectFrom("shampoo_entities")
    .select((eb) => eb.fn.countAll().as("k"))
    .where("profile", "=", p)
    .where("lifecycle", "=", "live")
    .where(projectCondition(scope))
    .where((eb) => eb.or([eb("visibility", "=", "shared"), eb("created_by", "=", caller.principal)]))
    .executeTakeFirst();
  let sessions = db
    .selectFrom("shampoo_sessions")
    .select((eb) => eb.fn.countAll().as("k"))
    .where("profile", "=", p)
    .where(projectCondition(scope));
  if (!caller.star) sessions = sessions.where("owner", "=", caller.principal);
  const facts = await db
    .selectFrom("governance_facts")
    .select((eb) => eb.fn.countAll().as("k"))
    .where("profile", "=", p)
    .where("status", "=", "live")
    .where(projectCondition(scope))
    .executeTakeFirst();
  return {
    tasks: typed.get("task") ?? 0,
    notes: typed.get("note") ?? 0,
    entities: n(entities?.k),
    sessions: n((await sessions.executeTakeFirst())?.k),
    facts: n(facts?.k),
  };
}
