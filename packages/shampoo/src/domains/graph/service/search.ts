import { canSee, projectValue } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import type { Engine } from "../../../platform/engine.ts";
import { read } from "../../../platform/write.ts";
import type { SearchByProjectInput, SearchNodesInput } from "../inputs.gen.ts";
import { fold, formsOf, normalizeName, type ParsedQuery, parseQuery } from "../model.ts";
import { type Gathered, pack } from "../rules/pack.ts";
import {
  BLANK_LIST_LIMIT,
  bestHits,
  blankCandidate,
  type Candidate,
  followUps,
  giveHeads,
  jumpOf,
  NEIGHBOURS,
  PLAIN_WINDOWS,
  type Pool,
  PROJECT_POOL,
  PROJECT_RESULTS,
  probePlan,
  projectScore,
  rankPool,
  refilled,
  SEARCH_DEFAULT_BUDGET,
  SEEDS,
  settleEvidence,
  takePool,
} from "../rules/search.ts";
import { prefixExpansions } from "../store/probes.ts";
import { projectListing, substringPool } from "../store/project.ts";
import { type Db, entitiesByIds, type GraphScope, graphScopeOf, observationsOf } from "../store/rows.ts";
import { firstByName, firstObservations, fullTexts, neighbours, poolHits } from "../store/search.ts";
import { readNoted } from "./reads.ts";

/**
 * search_nodes and search_by_project: one read each, its queries in store/ (search.ts,
 * project.ts), its ranking and packing in rules/ (search.ts, pack.ts).
 */

/**
 * search_nodes with the result's exact JSON (`text`, equal to JSON.stringify(result)), spliced
 * from the pieces the pack serialized anyway to measure them: the tool sends it as its text
 * block instead of serializing the whole result a second time.
 */
export async function searchNodesText(
  ctx: ShampooCtx,
  a: SearchNodesInput,
): Promise<{ result: Record<string, unknown>; text: string }> {
  const query = String(a.query);
  const budget = a.budget === undefined ? SEARCH_DEFAULT_BUDGET : Number(a.budget);
  // `project` is an affinity hint: it orders equal matches, never narrows (rules/search.ts).
  const affinity = a.project === undefined || a.project === "" ? null : projectValue(a.project);
  const q = parseQuery(query);
  const s = graphScopeOf(ctx.caller);
  // The pack runs inside the read: the first observations of plain candidates are read only for
  // the candidates the budget can reach.
  return readNoted(ctx, "search_nodes", async (db, engine) => {
    const g = await gather(db, engine, s, q, affinity);
    const packed = await pack(g, query, q, budget, async (plain: Candidate[]) => {
      const heads = await firstObservations(
        db,
        engine.dialect,
        plain.map((c) => c.id),
        PLAIN_WINDOWS,
      );
      giveHeads(plain, heads);
    });
    return {
      ids: g.candidates.slice(0, packed.returned).map((c) => c.id),
      result: { result: packed.result, text: packed.text },
    };
  });
}

/** The bounded candidate pool of a query (rules/search.ts probePlan, takePool). */
async function retrieve(db: Db, engine: Engine, s: GraphScope, q: ParsedQuery, wordsOnly: boolean): Promise<Pool> {
  const plan = probePlan(q, wordsOnly);
  // The all-terms probes run first, then the per-term ones still worth running (followUps).
  // The entity and observation probes of each step share one statement, and the prefix's
  // expansions in both vocabularies are read once, in one statement, up front.
  const words = await prefixExpansions(db, engine.dialect, plan.prefix, !wordsOnly);
  const first = await poolHits(
    db,
    engine.dialect,
    s,
    plan.entityProbes.slice(0, 1),
    plan.obsProbes.slice(0, 1),
    0,
    words,
  );
  const ents = first.entities;
  const obs = first.observations;
  const more = followUps(plan, ents.length, obs.length);
  if (more.ep.length + more.op.length > 0) {
    const next = await poolHits(db, engine.dialect, s, more.ep, more.op, 1, words);
    for (const e of next.entities) ents.push(e);
    for (const o of next.observations) obs.push(o);
  }
  return takePool(plan, ents, obs);
}

/** Everything search_nodes gathers before packing: candidates, their evidence, the degradations. */
async function gather(
  db: Db,
  engine: Engine,
  s: GraphScope,
  q: ParsedQuery,
  affinity: string | null,
): Promise<Gathered> {
  const degraded: string[] = [];
  let candidates: Candidate[] = [];
  if (q.status === "blank") {
    candidates = (await firstByName(db, s, BLANK_LIST_LIMIT)).map((e) => blankCandidate(e, "listed"));
  } else if (q.terms.length > 0) {
    const wordsOnly = q.status === "stopwords_only";
    if (wordsOnly) degraded.push("stopwords_only");
    const pool = await retrieve(db, engine, s, q, wordsOnly);
    if (pool.capped) degraded.push("pool_capped");
    const { ranked, more } = rankPool(pool, q, affinity);
    if (more && !degraded.includes("pool_capped")) degraded.push("pool_capped");
    candidates = ranked;
  }
  const jump = jumpOf(candidates);

  // One-hop expansion from the best matches: only live entities the caller may see.
  if (candidates.length > 0 && candidates[0]?.kind === "match") {
    const seeds = candidates.slice(0, SEEDS).map((c) => c.id);
    const seedRank = new Map(seeds.map((id, i) => [id, i]));
    const known = new Set(candidates.map((c) => c.id));
    const rows = await neighbours(db, s, seeds, NEIGHBOURS + candidates.length);
    const fresh = rows
      .filter((r) => !known.has(r.id))
      .sort((x, y) => (seedRank.get(x.seed) ?? 99) - (seedRank.get(y.seed) ?? 99));
    const added: Candidate[] = [];
    for (const r of fresh) {
      if (added.length >= NEIGHBOURS) break;
      if (known.has(r.id)) continue;
      known.add(r.id);
      added.push(blankCandidate(r, "neighbour"));
    }
    candidates.push(...added);
  }

  // Evidence: the best hit observations of each match; refill the ones whose head hid the hit.
  const refill = bestHits(candidates);
  if (refill.length > 0) {
    const texts = await fullTexts(
      db,
      refill.map((h) => h.obs_id),
    );
    for (const h of refill) {
      const full = texts.get(h.obs_id);
      if (full !== undefined) refilled(h, full, q);
    }
  }
  settleEvidence(candidates);
  return { candidates, degraded, refills: refill.length, ...(jump === undefined ? {} : { jump }) };
}

export async function searchByProject(ctx: ShampooCtx, a: SearchByProjectInput): Promise<Record<string, unknown>> {
  const query = String(a.query);
  const projectArg = String(a.project);
  const project = projectValue(projectArg); // "" is the untagged enclave; "*" is rejected
  const empty = { entities: [] as unknown[], query, project: projectArg };
  if (!canSee(ctx.caller, project)) return empty;
  const s = graphScopeOf(ctx.caller);
  const q = parseQuery(query);
  const terms = q.status === "no_terms" ? [fold(query.trim())] : q.terms;
  const subs =
    q.status === "no_terms" ? [...new Set([query.trim().toLowerCase(), fold(query.trim())])] : formsOf(q, terms);
  const ranked = await read(ctx, async (db, engine) => {
    const ids =
      q.status === "blank"
        ? await projectListing(db, s, project, PROJECT_RESULTS)
        : await substringPool(db, engine.dialect, s, project, subs, PROJECT_POOL);
    if (ids.length === 0) return [];
    const rows = await entitiesByIds(db, ids);
    const obs = await observationsOf(db, ids);
    const whole = normalizeName(query);
    const scored = rows.map((e) => {
      const texts = obs.get(e.id) ?? [];
      return { e, texts, score: projectScore(e, texts, q, terms, whole) };
    });
    return scored
      .filter((x) => q.status === "blank" || x.score > 0)
      .sort((x, y) => y.score - x.score || (x.e.name < y.e.name ? -1 : x.e.name > y.e.name ? 1 : 0))
      .slice(0, PROJECT_RESULTS);
  });
  return {
    entities: ranked.map((x) => ({
      name: x.e.name,
      entityType: x.e.entity_type,
      project: projectArg,
      observations: x.texts,
      _score: x.score,
    })),
    query,
    project: projectArg,
  };
}
