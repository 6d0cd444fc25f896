import type { Kysely, Transaction } from "kernel";
import type { Caller } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { graphScopeOf } from "../../graph/store/rows.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import { decisionView } from "../model.ts";
import {
  GRAPH_ONE_HOP,
  GRAPH_TWO_HOP,
  keywords,
  MAX_OBSERVATION_ROWS,
  MODEL_VERSION,
  PREFILTER_KEYWORDS,
  rankEntities,
  type Scoring,
  taskKeywords,
  taskText,
} from "../rules.ts";
import {
  type EntityLite,
  latestDecisions,
  linksOfTask,
  observationHits,
  relationsTouching,
  visibleEntities,
  visibleEntitiesByIds,
} from "../store.ts";

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/**
 * Scores a task against the caller's visible graph (rules.ts rankEntities, the
 * explainable-pairwise-v1 scorer): reads what the scorer needs, every read filtered to what the
 * caller may see. `focusId`, when given, is scored whatever its signals and link state and
 * ranked among the candidates (rank null if no signal nominates it): the receipt
 * link_task_entity records.
 *
 * `candidates`, when given, are the only entities scored and ranked (discovery passes the
 * entities the task's text mentions, found through the phrase index): each is scored exactly
 * as in the full pass, except that its observation words come from its own observations
 * (the full pass reads at most MAX_OBSERVATION_ROWS over all entities) and ranks count only
 * the candidates. Without them, every visible live entity is read (suggest_task_links).
 */
export async function scoreTask(
  db: Db,
  caller: Caller,
  task: TaskRow,
  focusId?: string,
  candidates?: EntityLite[],
): Promise<Scoring> {
  const gs = graphScopeOf(caller);
  const terms = taskKeywords(taskText(task));

  const entities = candidates ?? (await visibleEntities(db, gs));
  const byId = new Map(entities.map((e) => [e.id, e]));
  // With candidates only, other entities (linked ones, graph paths) are looked up when met.
  const hidden = new Set<string>();
  const see = async (ids: Iterable<string>) => {
    if (!candidates) return;
    const unknown = [...new Set(ids)].filter((id) => !byId.has(id) && !hidden.has(id));
    if (unknown.length === 0) return;
    for (const e of await visibleEntitiesByIds(db, gs, unknown)) byId.set(e.id, e);
    for (const id of unknown) if (!byId.has(id)) hidden.add(id);
  };

  // Observation words, only for entities whose observations mention a task keyword.
  const obsWords = new Map<string, Set<string>>();
  const prefilter = terms.slice(0, PREFILTER_KEYWORDS);
  const only = candidates?.map((e) => e.id);
  for (const o of await observationHits(db, gs, prefilter, MAX_OBSERVATION_ROWS, only)) {
    const set = obsWords.get(o.entity_id) ?? new Set<string>();
    for (const w of keywords(o.content)) set.add(w);
    obsWords.set(o.entity_id, set);
  }

  // Meta-paths from the entities the task already links to (visible ones only).
  const links = await linksOfTask(db, gs.profile, task.id);
  await see(links.filter((l) => l.lifecycle === "live").map((l) => l.entity_id));
  const linked = new Set(links.filter((l) => l.lifecycle === "live" && byId.has(l.entity_id)).map((l) => l.entity_id));
  const graph = new Map<string, { raw: number; reasons: string[] }>();
  const hop = async (from: Set<string>, raw: number, label: string, skip: Set<string>) => {
    const reached = new Set<string>();
    const relations = await relationsTouching(db, gs.profile, [...from]);
    await see(relations.flatMap((r) => [r.from_id, r.to_id]));
    for (const r of relations) {
      const pairs: [string, string][] = [
        [r.from_id, r.to_id],
        [r.to_id, r.from_id],
      ];
      for (const [via, other] of pairs) {
        if (!from.has(via) || skip.has(other) || !byId.has(other)) continue;
        const g = graph.get(other) ?? { raw, reasons: [] };
        if (g.raw > raw) continue; // already reached by a shorter path
        g.reasons.push(`${label}:${r.relation_type}:${byId.get(via)?.name}`);
        graph.set(other, g);
        reached.add(other);
      }
    }
    return reached;
  };
  const oneHop = await hop(linked, GRAPH_ONE_HOP, "linked_neighbour", linked);
  await hop(oneHop, GRAPH_TWO_HOP, "two_hop", new Set([...linked, ...oneHop]));

  const decisions = new Map(
    [...(await latestDecisions(db, gs.profile, task.id))].map(([id, d]) => [id, decisionView(d)]),
  );
  const { suggestions, focus } = rankEntities({ task, entities, obsWords, linked, graph, decisions, focusId });
  return { model_version: MODEL_VERSION, suggestions, focus, links };
}
