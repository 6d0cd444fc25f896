import type { Kysely, Transaction } from "kernel";
import type { Caller } from "../../access/caller.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { graphScopeOf } from "../graph/store/rows.ts";
import type { TaskRow } from "../tasks/schema.ts";
import {
  containsPhrase,
  GRAPH_ONE_HOP,
  GRAPH_TWO_HOP,
  keywords,
  MAX_OBSERVATION_ROWS,
  MODEL_VERSION,
  NOMINATING,
  PREFILTER_KEYWORDS,
  phrase,
  round6,
  SIGNALS,
  type Signal,
  TEMPORAL_SCALE_DAYS,
  taskKeywords,
  WEIGHTS,
  words,
} from "./model.ts";
import type { TaskLinkRow } from "./schema.ts";
import {
  type Decision,
  type EntityLite,
  latestDecisions,
  linksOfTask,
  observationHits,
  relationsTouching,
  visibleEntities,
  visibleEntitiesByIds,
} from "./store.ts";

/**
 * The explainable-pairwise-v1 scorer. For one task it scores every live entity the caller may
 * see on nine signals, each with its raw value (0..1, or null when the signal has no model yet),
 * fixed weight and contribution (raw × weight); the score is the sum. Deterministic: the same
 * data scores the same, in the same order. Everything it reads (entities, aliases,
 * observations, relations, links) is filtered to what the caller may see.
 *
 * - exact_name: the entity's name occurs as a whole phrase in the task's title, description or
 *   notes (accents, case and punctuation folded).
 * - alias: one of its aliases does.
 * - fts: full-text overlap, the share of the task's keywords (non-stopword words of 2+
 *   characters, the 64 longest) found among the entity's words (name, aliases, observations).
 *   Keywords that belong to a matched name or alias are left out of both sides of the share, so
 *   a mention is never counted twice.
 * - project: the entity and the task are in the same project (both untagged counts too).
 * - provenance: the same principal created both.
 * - graph: meta-path task → linked entity → relation → candidate: 1 for a direct neighbour of
 *   an entity the task already links to, 0.5 for two hops.
 * - temporal: 1 / (1 + |days between their creation| / 30).
 * - vector, community: no model yet; raw null, contribution 0 (include_vector is echoed only).
 *
 * An entity is a candidate only when a nominating signal (exact_name, alias, fts, graph) is
 * positive; project, provenance and time alone never nominate.
 */

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;
const DAY_MS = 86_400_000;

export interface Signals {
  raw: Record<Signal, number | null>;
  weights: Record<Signal, number>;
  contributions: Record<Signal, number>;
}

export interface ExistingDecision {
  decision_id: string;
  decision: string;
  source: string;
  decided_at: string;
}

export interface Suggestion {
  entity_id: string;
  entity_name: string;
  entity_type: string;
  score: number;
  signals: Signals;
  reasons: string[];
  matched_aliases: string[];
  shared_keywords: string[];
  fts_rank: number | null;
  vector_rank: number | null;
  existing_decision: ExistingDecision | null;
  rank: number | null;
}

export interface Scoring {
  model_version: string;
  /** Ranked candidates the caller would be shown (already linked and rejected pairs left out). */
  suggestions: Suggestion[];
  /** The focus entity's scoring (link_task_entity), ranked among the suggestions if nominated. */
  focus: Suggestion | null;
  /** Every link row of the task (live and void), as read for the scoring. */
  links: TaskLinkRow[];
}

function decisionView(d: Decision | undefined): ExistingDecision | null {
  return d ? { decision_id: d.decision_id, decision: d.decision, source: d.source, decided_at: d.decided_at } : null;
}

/** A task's text as the scorer reads it: title, description and notes, one per line. */
export function taskText(task: TaskRow): string {
  return [task.title, task.description, task.notes].filter((x): x is string => !!x).join("\n");
}

/**
 * Every phrase key a run of at most `maxWords` consecutive words of the text makes: the keys
 * a name or alias mentioned in it (containsPhrase) can have.
 */
export function textPhrases(text: string, maxWords: number): string[] {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i < w.length; i++) {
    let key = "";
    for (let n = 1; n <= maxWords && i + n <= w.length; n++) {
      key = n === 1 ? (w[i] as string) : `${key} ${w[i + n - 1]}`;
      out.add(key);
    }
  }
  return [...out];
}

/**
 * Scores a task against the caller's visible graph. `focusId`, when given, is scored whatever
 * its signals and link state and ranked among the candidates (rank null if no signal nominates
 * it): the receipt link_task_entity records.
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
  const text = taskText(task);
  const key = phrase(text);
  const terms = taskKeywords(text);
  const termSet = new Set(terms);

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

  const decisions = await latestDecisions(db, gs.profile, task.id);
  const taskCreated = Date.parse(task.created_at);

  const score = (e: EntityLite): { s: Suggestion; nominated: boolean } => {
    const reasons: string[] = [];
    const exact = containsPhrase(key, phrase(e.name)) ? 1 : 0;
    if (exact) reasons.push("exact_name");
    const aliases = e.alias_text === "" ? [] : e.alias_text.split("\n").filter((a) => a !== "");
    const matched = aliases.filter((a) => containsPhrase(key, phrase(a))).sort();
    for (const a of matched) reasons.push(`alias:${a}`);
    // Words of a matched name or alias are not counted again as keyword overlap.
    const mentioned = new Set(
      [...(exact ? words(e.name) : []), ...matched.flatMap((a) => words(a))].filter((w) => termSet.has(w)),
    );
    const rest = terms.filter((t) => !mentioned.has(t));
    const own = keywords([e.name, ...aliases].join("\n"));
    for (const w of obsWords.get(e.id) ?? []) own.add(w);
    const shared = rest.filter((w) => own.has(w)).sort();
    const fts = rest.length === 0 ? 0 : round6(shared.length / rest.length);
    if (shared.length > 0) reasons.push(`shared_keywords:${shared.length}/${rest.length}`);
    const g = graph.get(e.id);
    if (g) reasons.push(...g.reasons);
    const project = e.project === task.project ? 1 : 0;
    if (project) reasons.push("same_project");
    const provenance = e.created_by === task.created_by ? 1 : 0;
    if (provenance) reasons.push("same_creator");
    const days = Math.abs(Date.parse(e.created_at) - taskCreated) / DAY_MS;
    const temporal = round6(1 / (1 + days / TEMPORAL_SCALE_DAYS));
    if (days <= 7) reasons.push("created_within_7_days");
    const raw: Record<Signal, number | null> = {
      exact_name: exact,
      alias: matched.length > 0 ? 1 : 0,
      fts,
      project,
      provenance,
      graph: g?.raw ?? 0,
      temporal,
      vector: null,
      community: null,
    };
    const contributions = {} as Record<Signal, number>;
    let total = 0;
    for (const sig of SIGNALS) {
      contributions[sig] = round6((raw[sig] ?? 0) * WEIGHTS[sig]);
      total += contributions[sig];
    }
    const nominated = NOMINATING.some((sig) => (raw[sig] ?? 0) > 0);
    return {
      nominated,
      s: {
        entity_id: e.id,
        entity_name: e.name,
        entity_type: e.entity_type,
        score: round6(total),
        signals: { raw, weights: { ...WEIGHTS }, contributions },
        reasons,
        matched_aliases: matched,
        shared_keywords: shared.slice(0, 10),
        fts_rank: null,
        vector_rank: null,
        existing_decision: decisionView(decisions.get(e.id)),
        rank: null,
      },
    };
  };

  const ranked: Suggestion[] = [];
  const suggestions: Suggestion[] = [];
  let focus: Suggestion | null = null;
  for (const e of entities) {
    const isFocus = e.id === focusId;
    const excluded = linked.has(e.id) || decisions.get(e.id)?.decision === "rejected";
    if (!isFocus && excluded) continue;
    const { s, nominated } = score(e);
    if (isFocus) focus = s;
    if (!nominated) continue;
    ranked.push(s);
    if (!excluded) suggestions.push(s);
  }
  const norm = new Map(entities.map((e) => [e.id, e.name_norm]));
  const order = (a: Suggestion, b: Suggestion, by: (s: Suggestion) => number) =>
    by(b) - by(a) ||
    ((norm.get(a.entity_id) as string) < (norm.get(b.entity_id) as string) ? -1 : 1) ||
    (a.entity_id < b.entity_id ? -1 : 1);
  [...ranked]
    .filter((s) => (s.signals.raw.fts ?? 0) > 0)
    .sort((a, b) => order(a, b, (s) => s.signals.raw.fts ?? 0))
    .forEach((s, i) => {
      s.fts_rank = i + 1;
    });
  ranked.sort((a, b) => order(a, b, (s) => s.score));
  ranked.forEach((s, i) => {
    s.rank = i + 1;
  });
  // Without a focus the two lists hold the same entities; with one, ranks count the focus too.
  suggestions.sort((a, b) => order(a, b, (s) => s.score));
  return { model_version: MODEL_VERSION, suggestions, focus, links };
}
