import { isDeepStrictEqual } from "node:util";
import { sql } from "kernel";
import type { ShampooCtx } from "../../src/context.ts";
import { createEntities, deleteEntities } from "../../src/domains/graph/service/entities.ts";
import { createRelations } from "../../src/domains/graph/service/relations.ts";
import { linkView } from "../../src/domains/links/model.ts";
import type { Agent, Harness } from "./shampoo.ts";

/** Helpers shared by the link suites (test/links*.test.ts). */

export const MISSING_TASK = "00000000-0000-4000-8000-000000000000";
export const TASK_NOT_FOUND = { error: "Task not found", error_type: "not_found" };
export const ENTITY_NOT_FOUND = { error: "Entity not found", error_type: "not_found" };
export const TASK_NOT_FOUND_LOWER = { error: "task not found", error_type: "not_found" };
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let n = 0;
/** A fresh name, so tests sharing one database never see each other's rows. */
export function uniq(prefix = "p"): string {
  return `${prefix}-${++n}-${Math.random().toString(36).slice(2, 7)}`;
}

function ctxOf(h: Harness, agent: Agent, tool: string): ShampooCtx {
  return { caller: agent.caller, source: { tool }, clock: h.clock, database: h.db };
}

/**
 * Graph writes for fixtures: through the graph tools when they are registered, else through the
 * graph service (same rules, same transaction and history path).
 */
async function graphCall(h: Harness, agent: Agent, tool: string, args: Record<string, unknown>): Promise<unknown> {
  if (h.shampoo.registry.has(tool)) {
    const r = await agent.call(tool, args);
    if (r.isError) throw new Error(`${tool}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  }
  // The services take their tools' typed inputs; fixtures pass the same argument shapes.
  const fn = {
    create_entities: createEntities,
    create_relations: createRelations,
    delete_entities: deleteEntities,
  }[tool] as ((ctx: ShampooCtx, a: never) => Promise<unknown>) | undefined;
  if (!fn) throw new Error(`no graph fixture for ${tool}`);
  return fn(ctxOf(h, agent, tool), args as never);
}

export interface EntitySpec {
  name: string;
  entityType?: string;
  project?: string;
  aliases?: string[];
  observations?: string[];
  visibility?: "shared" | "private";
}

export async function entities(h: Harness, agent: Agent, list: EntitySpec[]): Promise<void> {
  await graphCall(h, agent, "create_entities", {
    entities: list.map((e) => ({ entityType: "thing", observations: [], ...e })),
  });
}

export async function relate(h: Harness, agent: Agent, from: string, to: string, relationType: string) {
  await graphCall(h, agent, "create_relations", { relations: [{ from, to, relationType }] });
}

export async function voidEntity(h: Harness, agent: Agent, name: string) {
  await graphCall(h, agent, "delete_entities", { entityNames: [name] });
}

export async function entityId(h: Harness, name: string): Promise<string> {
  const row = await h.db.db
    .selectFrom("shampoo_entities")
    .select("id")
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function task(agent: Agent, args: Record<string, unknown>): Promise<string> {
  const r = await agent.call("create_task_or_note", args);
  if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
  return (r.structuredContent as { task_id: string }).task_id;
}

export async function linkRow(h: Harness, taskId: string, entityIdValue: string) {
  return h.db.db
    .selectFrom("shampoo_task_links")
    .selectAll()
    .where("task_id", "=", taskId)
    .where("entity_id", "=", entityIdValue)
    .executeTakeFirst();
}

/**
 * Every link row of a task, live or removed, read straight from the table (no visibility
 * filter), oldest first: what discovery wrote, whoever may see it.
 */
export async function linksOf(h: Harness, taskId: string) {
  const rows = await h.db.db
    .selectFrom("shampoo_task_links as l")
    .innerJoin("shampoo_entities as e", "e.id", "l.entity_id")
    .selectAll("l")
    .select("e.name as entity_name")
    .where("l.task_id", "=", taskId)
    .orderBy("l.created_at")
    .orderBy("e.name_norm")
    .execute();
  return rows.map((r) => ({ ...r, score: r.score === null ? null : Number(r.score) }));
}

/** The history events of every link of a task, in commit order. */
export async function linkEventsOfTask(h: Harness, taskId: string) {
  return h.db.db
    .selectFrom("shampoo_history as ev")
    .innerJoin("shampoo_task_links as l", "l.id", "ev.entity_id")
    .selectAll("ev")
    .where("ev.entity_kind", "=", "task_link")
    .where("l.task_id", "=", taskId)
    .orderBy("ev.seq")
    .execute();
}

let failures = 0;
/**
 * Installs a trigger that makes the database refuse any link insert for one entity (a failure
 * inside the discovery pass, after the task row and its event are written). Returns the removal
 * function.
 */
export async function failLinkInsert(h: Harness, entityIdValue: string): Promise<() => Promise<void>> {
  if (!UUID_RE.test(entityIdValue)) throw new Error("expected an entity id");
  const name = `fail_link_insert_${++failures}`;
  const lit = sql.lit(entityIdValue);
  if (h.db.dialect === "sqlite") {
    await sql`CREATE TRIGGER ${sql.raw(name)} BEFORE INSERT ON shampoo_task_links WHEN NEW.entity_id = ${lit} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`.execute(
      h.db.db,
    );
    return async () => {
      await sql`DROP TRIGGER ${sql.raw(name)}`.execute(h.db.db);
    };
  }
  await sql`CREATE FUNCTION ${sql.raw(name)}() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql`.execute(
    h.db.db,
  );
  await sql`CREATE TRIGGER ${sql.raw(name)} BEFORE INSERT ON shampoo_task_links FOR EACH ROW WHEN (NEW.entity_id = ${lit}) EXECUTE FUNCTION ${sql.raw(name)}()`.execute(
    h.db.db,
  );
  return async () => {
    await sql`DROP TRIGGER ${sql.raw(name)} ON shampoo_task_links`.execute(h.db.db);
    await sql`DROP FUNCTION ${sql.raw(name)}()`.execute(h.db.db);
  };
}

export async function decisionsOf(h: Harness, taskId: string) {
  return h.db.db
    .selectFrom("shampoo_link_decisions")
    .selectAll()
    .where("task_id", "=", taskId)
    .orderBy("seq")
    .execute();
}

export async function eventsOf(h: Harness, entityIdValue: string) {
  return h.db.db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("entity_id", "=", entityIdValue)
    .orderBy("seq")
    .execute();
}

const COUNTED = ["shampoo_history", "shampoo_task_links", "shampoo_link_decisions"] as const;
export async function counts(h: Harness): Promise<Record<(typeof COUNTED)[number], number>> {
  const out = { shampoo_history: 0, shampoo_task_links: 0, shampoo_link_decisions: 0 };
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
 * The link half of "atomic and audited", over the whole database: every link's latest event is
 * its last_event_id and records exactly the row (linkView); a link's events chain by
 * parent_event_id; no event names a missing link; every decision's task and entity exist.
 */
export async function linkInvariants(h: Harness): Promise<string[]> {
  const problems: string[] = [];
  const events = await h.db.db
    .selectFrom("shampoo_history")
    .selectAll()
    .where("entity_kind", "=", "task_link")
    .orderBy("seq")
    .execute();
  const links = await h.db.db.selectFrom("shampoo_task_links").selectAll().execute();
  const chains = new Map<string, typeof events>();
  for (const e of events) chains.set(e.entity_id, [...(chains.get(e.entity_id) ?? []), e]);
  for (const l of links) {
    const chain = chains.get(l.id) ?? [];
    chains.delete(l.id);
    const last = chain.at(-1);
    if (!last) {
      problems.push(`link ${l.id} has no event`);
      continue;
    }
    if (last.event_id !== l.last_event_id) problems.push(`link ${l.id}: last_event_id is not its latest event`);
    const row = { ...l, score: l.score === null ? null : Number(l.score) };
    if (!isDeepStrictEqual(JSON.parse(last.new_json ?? "null"), linkView(row)))
      problems.push(`link ${l.id}: latest event differs from the row`);
    chain.forEach((e, i) => {
      if ((e.parent_event_id ?? null) !== (i === 0 ? null : chain[i - 1]?.event_id))
        problems.push(`link ${l.id}: broken chain at ${e.event_id}`);
    });
  }
  for (const id of chains.keys()) problems.push(`events for missing link ${id}`);
  const orphans = await h.db.db
    .selectFrom("shampoo_link_decisions as d")
    .leftJoin("shampoo_tasks as t", "t.id", "d.task_id")
    .leftJoin("shampoo_entities as e", "e.id", "d.entity_id")
    .select("d.decision_id")
    .where((eb) => eb.or([eb("t.id", "is", null), eb("e.id", "is", null)]))
    .execute();
  for (const o of orphans) problems.push(`decision ${o.decision_id} names a missing task or entity`);
  return problems;
}
