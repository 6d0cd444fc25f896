import { iso } from "kernel";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { EnrichContextInput } from "../inputs.gen.ts";
import { MAX_CLAIMS_PER_CALL } from "../rules/claims.ts";
import { type Depth, depthOf } from "../rules/impact.ts";
import { chunksInStates, tasksWithoutChunk } from "../store/chunks.ts";
import { factIdsChangedSince } from "../store/facts.ts";
import { openTasksNewest } from "../store/packs.ts";
import { assessChunk, resolveChunk } from "./chunks.ts";
import { extractFromChunk, promoteClaim } from "./claims.ts";
import { impactOf } from "./impact.ts";
import { compilePack } from "./packs.ts";
import { recordRun } from "./runs.ts";

/** Bounds of one enrich_context run. */
const MATERIALIZE = 100;
const ASSESS = 200;
const WARM_TASK_PACKS = 3;
const IMPACT_FACTS = 20;
const DAY_MS = 86_400_000;

/**
 * The whole pipeline in one transaction (all-or-nothing): materialize chunks for the visible
 * tasks and notes that have none yet, assess every assessable chunk, build an executor pack plus
 * warm executor packs for the most recently changed open tasks; standard adds extraction and the
 * internal auto_layer1 promotion of memory-scope claims; deep walks impact for facts changed in
 * the last 7 days.
 */
export function enrichContext(ctx: ShampooCtx, input: EnrichContextInput) {
  const depth = input.depth === undefined ? "standard" : depthOf(input.depth);
  return write(ctx, (w) => enrich(w, depth, input));
}

async function enrich(w: WriteScope, depth: Depth, input: EnrichContextInput) {
  const scope = scopeOf(w.ctx.caller);
  const steps: Record<string, number> = {};
  const fresh = await tasksWithoutChunk(w.trx, scope, MATERIALIZE);
  for (const id of fresh) await resolveChunk(w, id);
  steps.chunks_materialized = fresh.length;

  const assessable = await chunksInStates(w.trx, scope, ["new", "enrichable", "uncertain"], ASSESS);
  const extractable: string[] = [];
  for (const c of assessable) {
    const a = await assessChunk(w, c.chunk_id, false, null);
    if ((a.state === "enrichable" || a.state === "uncertain") && !a.should_skip) extractable.push(c.chunk_id);
  }
  steps.chunks_assessed = assessable.length;

  const main = await compilePack(w, {
    pack_type: "executor",
    session: null,
    target: null,
    token_budget: 0,
    input: { via: "enrich_context" },
    unsavedWithoutHome: true,
  });
  const warm = await openTasksNewest(w.trx, scope, WARM_TASK_PACKS);
  let packs = main.persisted ? 1 : 0;
  for (const t of warm) {
    const p = await compilePack(w, {
      pack_type: "executor",
      session: null,
      target: t,
      token_budget: 0,
      input: { via: "enrich_context", target_ref: t.id },
    });
    if (p.persisted) packs++;
  }
  steps.packs_built = packs;
  const result: Record<string, unknown> = { depth, steps, pack_body: main.body };

  if (depth !== "quick") {
    let extracted = 0;
    const promoted: string[] = [];
    let attempted = 0;
    let truncated = false;
    for (const id of extractable) {
      const room = MAX_CLAIMS_PER_CALL - extracted;
      if (room <= 0) {
        truncated = true;
        break;
      }
      const r = await extractFromChunk(w, id, undefined, room);
      extracted += r.claims_extracted;
      truncated ||= r.truncated;
      for (const c of r.claims) {
        if (c.scope !== "memory") continue;
        attempted++;
        const p = await promoteClaim(w, c.claim_id, "auto_layer1", true).catch((e: unknown) => {
          // A claim promoted earlier in this run (the same triple twice) is not a failure.
          if (e instanceof Error && e.message.startsWith("claim is promoted")) return null;
          throw e;
        });
        if (p?.promoted) promoted.push(p.fact_id as string);
      }
    }
    steps.claims_extracted = extracted;
    steps.promotions_attempted = attempted;
    steps.claims_promoted = promoted.length;
    Object.assign(result, {
      claims_extracted: extracted,
      claims_truncated: truncated,
      claims_promoted: promoted.length,
      promoted_facts: [...new Set(promoted)],
    });
  }
  if (depth === "deep") {
    const recent = await factIdsChangedSince(w.trx, scope, iso(w.now - 7 * DAY_MS), IMPACT_FACTS);
    let impacts = 0;
    for (const id of recent)
      impacts += (await impactOf(w, "fact", id, "standard", { via: "enrich_context" })).total_impacts;
    steps.facts_walked = recent.length;
    steps.impacts_analyzed = impacts;
    result.impacts_analyzed = impacts;
  }
  await recordRun(w, "enrich_context", input, { depth, steps });
  return result;
}
