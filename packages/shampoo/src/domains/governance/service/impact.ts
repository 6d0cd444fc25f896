import { DomainError } from "kernel";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { notFound } from "../../../platform/errors.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { ExplainImpactInput } from "../inputs.gen.ts";
import {
  DEPTHS,
  type Depth,
  depthOf,
  type Edge,
  IMPACT_KINDS,
  type Impact,
  type ImpactKind,
  type Node,
  walk,
} from "../rules/impact.ts";
import { chunkByIdInProfile } from "../store/chunks.ts";
import { claimById } from "../store/claims.ts";
import { factById } from "../store/facts.ts";
import { edgesFrom, visibleIds, visiblePackIds, visibleSessionIds } from "../store/provenance.ts";
import { resolveChunk } from "./chunks.ts";
import { recordRun } from "./runs.ts";

/** Of `nodes`, the ones the caller may see (facts, claims, chunks and packs by project; sessions by owner). */
async function visible(w: WriteScope, nodes: Node[]): Promise<Set<string>> {
  const scope = scopeOf(w.ctx.caller);
  const ok = new Set<string>();
  const idsOf = (kind: Node["kind"]) => nodes.filter((n) => n.kind === kind).map((n) => n.id);
  for (const kind of ["chunk", "claim", "fact"] as const) {
    const ids = idsOf(kind);
    if (ids.length === 0) continue;
    for (const id of await visibleIds(w.trx, scope, kind, ids)) ok.add(`${kind}:${id}`);
  }
  const packs = idsOf("pack");
  if (packs.length > 0) for (const id of await visiblePackIds(w.trx, scope, w.ctx.caller, packs)) ok.add(`pack:${id}`);
  const sessions = idsOf("session");
  if (sessions.length > 0)
    for (const id of await visibleSessionIds(w.trx, scope, w.ctx.caller, sessions)) ok.add(`session:${id}`);
  return ok;
}

async function edgesOf(w: WriteScope, frontier: Node[]): Promise<Edge[]> {
  const out: Edge[] = [];
  for (const kind of [...new Set(frontier.map((n) => n.kind))]) {
    const ids = frontier.filter((n) => n.kind === kind).map((n) => n.id);
    const rows = await edgesFrom(w.trx, w.ctx.caller.profile, kind, ids);
    for (const r of rows)
      out.push({
        from: { kind: r.from_kind as Node["kind"], id: r.from_id },
        to: { kind: r.to_kind as Node["kind"], id: r.to_id },
        weight: r.weight,
        rationale: r.rationale,
      });
  }
  const ok = await visible(
    w,
    out.map((e) => e.to),
  );
  return out.filter((e) => ok.has(`${e.to.kind}:${e.to.id}`));
}

/** Which impacts_by_kind group a reached node is reported in (chunks and claims are passed through). */
async function groupOf(w: WriteScope, i: Impact): Promise<ImpactKind | null> {
  if (i.kind === "session") return "session";
  if (i.kind === "pack") return "snapshot";
  if (i.kind !== "fact") return null;
  const f = await factById(w.trx, scopeOf(w.ctx.caller), i.id, false);
  if (!f) return null;
  return f.scope === "mapping" || f.scope === "validation" || f.scope === "export" ? f.scope : "fact";
}

/**
 * A chunk named by id, re-read through its source like every chunk tool (resolveChunk): a chunk
 * whose task moved out of the caller's sight is not found; a task id is not a chunk here.
 */
async function chunkForImpact(w: WriteScope, ref: string) {
  if (!(await chunkByIdInProfile(w.trx, w.ctx.caller.profile, ref))) return undefined;
  return resolveChunk(w, ref).catch((e: unknown) => {
    if (e instanceof DomainError && e.code === "not_found") return undefined;
    throw e;
  });
}

/** explain_impact: walks the impact of one source (impactOf), which records the run. */
export function explainImpact(ctx: ShampooCtx, a: ExplainImpactInput) {
  return write(ctx, (w) => impactOf(w, a.source_kind ?? "fact", a.source_ref, depthOf(a.depth), a));
}

/**
 * The items a chunk, claim or fact reaches over the recorded impact links within the depth's
 * hops, grouped by kind (only what the caller may see); records a run-history entry.
 */
export async function impactOf(
  w: WriteScope,
  kind: "chunk" | "claim" | "fact",
  ref: string,
  depth: Depth,
  input: unknown,
) {
  const scope = scopeOf(w.ctx.caller);
  const found =
    kind === "chunk"
      ? await chunkForImpact(w, ref)
      : kind === "claim"
        ? await claimById(w.trx, scope, ref, false)
        : await factById(w.trx, scope, ref, false);
  if (!found) throw notFound("source");
  const max = DEPTHS[depth];
  const impacts = await walk({ kind, id: ref }, max, (f) => edgesOf(w, f));
  const byKind = Object.fromEntries(IMPACT_KINDS.map((k) => [k, [] as unknown[]])) as Record<ImpactKind, unknown[]>;
  let total = 0;
  for (const i of impacts) {
    const g = await groupOf(w, i);
    if (g === null) continue;
    byKind[g].push({
      ref: i.id,
      depth: i.depth,
      edge_score: i.edge_score,
      impact_score: i.impact_score,
      propagated_score: i.propagated_score,
      rationale: i.rationale,
    });
    total++;
  }
  const parts = IMPACT_KINDS.filter((k) => byKind[k].length > 0).map((k) => `${byKind[k].length} ${k}`);
  const result = {
    source: { kind, ref },
    depth,
    max_depth: max,
    total_impacts: total,
    impacts_by_kind: byKind,
    summary:
      total === 0
        ? `No recorded impact of ${kind} ${ref} within ${max} hop${max === 1 ? "" : "s"}.`
        : `${kind} ${ref} reaches ${total} item${total === 1 ? "" : "s"} within ${max} hop${max === 1 ? "" : "s"}: ${parts.join(", ")}.`,
  };
  await recordRun(w, "explain_impact", input, { total_impacts: total, max_depth: max });
  return result;
}
