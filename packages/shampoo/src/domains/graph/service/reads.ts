import type { ShampooCtx } from "../../../context.ts";
import type { Engine } from "../../../platform/engine.ts";
import { read } from "../../../platform/write.ts";
import type { OpenNodesInput, ReadGraphInput } from "../inputs.gen.ts";
import { normalizeName } from "../model.ts";
import type { Entity } from "../schema.ts";
import { noteAccess } from "../store/access.ts";
import {
  countVisible,
  type Db,
  edgesFrom,
  graphScopeOf,
  liveByNorms,
  observationsOf,
  visiblePage,
} from "../store/rows.ts";

/** open_nodes and read_graph: reads of live entities the caller sees, each with its access note. */

/**
 * A read with its best-effort access note (store/access.ts): `fn` reads and returns the result
 * with the ids of the entities it returned; the note is queued once the read is done and
 * written with others shortly after, never inside the read.
 */
export async function readNoted<T>(
  ctx: ShampooCtx,
  tool: string,
  fn: (db: Db, engine: Engine) => Promise<{ ids: string[]; result: T }>,
): Promise<T> {
  const out = await read(ctx, fn);
  noteAccess(ctx, tool, out.ids);
  return out.result;
}

export async function openNodes(ctx: ShampooCtx, a: OpenNodesInput) {
  const s = graphScopeOf(ctx.caller);
  const norms: string[] = [];
  for (const n of a.names) {
    if (typeof n !== "string") continue; // non-string entries are skipped
    const norm = normalizeName(n);
    if (norm && !norms.includes(norm)) norms.push(norm);
  }
  return readNoted(ctx, "open_nodes", async (db) => {
    const live = await liveByNorms(db, s, norms);
    const opened = norms.map((n) => live.get(n)).filter((e): e is Entity => e !== undefined);
    const ids = opened.map((e) => e.id);
    const obs = await observationsOf(db, ids);
    const relations = ids.length >= 2 ? await edgesFrom(db, s, ids, ids) : [];
    return {
      ids,
      result: {
        entities: opened.map((e) => ({
          name: e.name,
          entityType: e.entity_type,
          observations: obs.get(e.id) ?? [],
          ...(e.project === null ? {} : { project: e.project }),
        })),
        relations: relations.map((r) => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type })),
      },
    };
  });
}

export const READ_GRAPH_DEFAULT_LIMIT = 500;
export const READ_GRAPH_MAX_LIMIT = 1000;

export async function readGraph(ctx: ShampooCtx, a: ReadGraphInput) {
  const s = graphScopeOf(ctx.caller);
  const limit = Math.min(READ_GRAPH_MAX_LIMIT, Math.max(1, Number(a.limit ?? READ_GRAPH_DEFAULT_LIMIT)));
  const offset = Math.max(0, Number(a.offset ?? 0));
  return readNoted(ctx, "read_graph", async (db) => {
    const total = await countVisible(db, s);
    const page = offset >= total ? [] : await visiblePage(db, s, limit, offset);
    const ids = page.map((e) => e.id);
    const obs = await observationsOf(db, ids);
    // Each relation is listed once, on the page of its `from` endpoint; its `to` endpoint may be
    // on any page but must be live and visible.
    const relations = await edgesFrom(db, s, ids);
    return {
      ids,
      result: {
        entities: page.map((e) => ({
          name: e.name,
          entityType: e.entity_type,
          project: e.project,
          observations: obs.get(e.id) ?? [],
        })),
        relations: relations.map((r) => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type })),
        total,
        has_more: offset + page.length < total,
      },
    };
  });
}
