import { canSee, canWrite, projectValue, scopeDenied } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { read, write } from "../../../platform/write.ts";
import { type ExportEntity, exportCounts, exportEdges, exportPage } from "../store/jsonl.ts";
import { afterGraphWrite, tidySearchIndexes } from "../store/merge.ts";
import { graphScopeOf, observationsOf } from "../store/rows.ts";
import { createEntitiesIn, type EntityInput, entityInput } from "./entities.ts";
import { createRelationsIn, type Triple, tripleInput } from "./relations.ts";

/**
 * The reference MCP memory server's file format (@modelcontextprotocol/server-memory,
 * memory.jsonl), in and out of one project. One JSON object per line:
 *
 *   {"type":"entity","name":"…","entityType":"…","observations":["…",…]}
 *   {"type":"relation","from":"…","to":"…","relationType":"…"}
 *
 * Import goes through the same rules as create_entities / create_relations (grants, name
 * identity, revive, duplicate skipping, one history event per changed row) in ONE transaction:
 * a bad line or a denied entity imports nothing. Export writes the visible live content of the
 * project: entities in name order, then the relations whose two endpoints are both live,
 * visible and in the project (a relation leaving the project would dangle in the file).
 */

export interface JsonlProgress {
  /** read: parsing lines; entities / relations: writing (import) or reading (export). */
  phase: "read" | "entities" | "relations";
  /** Records of this phase done so far. */
  done: number;
  /** Records of this phase in all (for read: lines seen so far, unknown in advance). */
  total: number;
}

export interface ImportOptions {
  /** The project everything new goes into; "" is the untagged enclave. */
  project: string;
  onProgress?: (p: JsonlProgress) => void;
  /** Records per progress step (default 200). */
  batchSize?: number;
}

export interface ImportReport {
  project: string | null;
  /** Non-blank lines read. */
  lines: number;
  /** Lines whose type is neither entity nor relation (ignored, as the reference server does). */
  skipped_lines: number;
  entities: number;
  /** New plus revived entities. */
  entities_created: number;
  observations_added: number;
  relations: number;
  /** New plus revived relations. */
  relations_created: number;
  /** Relations whose endpoint is missing or not visible (skipped, as create_relations does). */
  relations_skipped: number;
}

export interface ExportOptions {
  project: string;
  /** Receives each line (JSON, without a line break); may return a promise (back-pressure). */
  write: (line: string) => void | Promise<void>;
  onProgress?: (p: JsonlProgress) => void;
  /** Entities per page (default 500). */
  pageSize?: number;
}

export interface ExportReport {
  project: string | null;
  entities: number;
  relations: number;
}

/** A line that is not a valid record: the import stops before writing anything. */
export class JsonlError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "JsonlError";
  }
}

async function* linesOf(source: string | Iterable<string> | AsyncIterable<string>): AsyncGenerator<string> {
  if (typeof source === "string") {
    for (const line of source.split("\n")) yield line;
    return;
  }
  for await (const chunk of source as AsyncIterable<string>) {
    // An iterable of lines (readline) or of newline-separated text: both work.
    for (const line of chunk.split("\n")) yield line;
  }
}

const isStr = (v: unknown): v is string => typeof v === "string";

export async function importMemoryJsonl(
  ctx: ShampooCtx,
  source: string | Iterable<string> | AsyncIterable<string>,
  opts: ImportOptions,
): Promise<ImportReport> {
  const project = projectValue(opts.project);
  if (!canWrite(ctx.caller, project)) throw scopeDenied();
  const batch = Math.max(1, opts.batchSize ?? 200);
  const progress = opts.onProgress ?? (() => {});
  const entities: EntityInput[] = [];
  const relations: Triple[] = [];
  let lines = 0;
  let skipped = 0;
  let n = 0;
  for await (const raw of linesOf(source)) {
    n++;
    const line = raw.trim();
    if (line === "") continue;
    lines++;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line);
    } catch {
      throw new JsonlError(n, "not JSON");
    }
    if (typeof rec !== "object" || rec === null || Array.isArray(rec)) throw new JsonlError(n, "not a JSON object");
    if (rec.type === "entity") {
      if (!isStr(rec.name) || !isStr(rec.entityType))
        throw new JsonlError(n, "entity needs string name and entityType");
      if (rec.observations !== undefined && !(Array.isArray(rec.observations) && rec.observations.every(isStr)))
        throw new JsonlError(n, "observations must be a list of strings");
      try {
        entities.push(
          entityInput({
            name: rec.name,
            entityType: rec.entityType,
            observations: rec.observations as string[] | undefined,
            project: opts.project,
          }),
        );
      } catch (e) {
        throw new JsonlError(n, e instanceof Error ? e.message : String(e));
      }
    } else if (rec.type === "relation") {
      if (!isStr(rec.from) || !isStr(rec.to) || !isStr(rec.relationType))
        throw new JsonlError(n, "relation needs string from, to and relationType");
      try {
        relations.push(tripleInput({ from: rec.from, to: rec.to, relationType: rec.relationType }));
      } catch (e) {
        throw new JsonlError(n, e instanceof Error ? e.message : String(e));
      }
    } else {
      skipped++;
    }
    if (lines % 1000 === 0) progress({ phase: "read", done: lines, total: lines });
  }
  progress({ phase: "read", done: lines, total: lines });

  const source_ = ctx.source.tool ? ctx.source : { ...ctx.source, tool: "import_memory_jsonl" };
  const report: ImportReport = {
    project,
    lines,
    skipped_lines: skipped,
    entities: entities.length,
    entities_created: 0,
    observations_added: 0,
    relations: relations.length,
    relations_created: 0,
    relations_skipped: 0,
  };
  await write({ ...ctx, source: source_ }, async (w) => {
    for (let i = 0; i < entities.length; i += batch) {
      const r = await createEntitiesIn(w, entities.slice(i, i + batch));
      report.entities_created += r.created;
      report.observations_added += r.observation_ids.length;
      progress({ phase: "entities", done: Math.min(entities.length, i + batch), total: entities.length });
    }
    for (let i = 0; i < relations.length; i += batch) {
      const slice = relations.slice(i, i + batch);
      const r = await createRelationsIn(w, slice);
      report.relations_created += r.created;
      report.relations_skipped += slice.length - r.relation_ids.length;
      progress({ phase: "relations", done: Math.min(relations.length, i + batch), total: relations.length });
    }
    afterGraphWrite(w);
  });
  // A bulk write piles up index segments: merge them now rather than slow every search.
  await tidySearchIndexes(ctx.database.db, ctx.database.dialect);
  return report;
}

export async function exportMemoryJsonl(ctx: ShampooCtx, opts: ExportOptions): Promise<ExportReport> {
  const project = projectValue(opts.project);
  const report: ExportReport = { project, entities: 0, relations: 0 };
  if (!canSee(ctx.caller, project)) return report; // nothing visible: an empty file, never a denial
  const s = graphScopeOf(ctx.caller);
  const size = Math.max(1, opts.pageSize ?? 500);
  const progress = opts.onProgress ?? (() => {});
  await read(ctx, async (db) => {
    const totals = await exportCounts(db, s, project);
    // Keyset pages in (name, id) order: stable and O(page) each, whatever the project's size.
    const pages = async (each: (page: ExportEntity[]) => Promise<void>) => {
      let after: { name: string; id: string } | null = null;
      for (;;) {
        const rows = await exportPage(db, s, project, after, size);
        if (rows.length === 0) return;
        await each(rows);
        const last = rows[rows.length - 1] as ExportEntity;
        after = { name: last.name, id: last.id };
        if (rows.length < size) return;
      }
    };
    await pages(async (page) => {
      const obs = await observationsOf(
        db,
        page.map((e) => e.id),
      );
      for (const e of page) {
        await opts.write(
          JSON.stringify({
            type: "entity",
            name: e.name,
            entityType: e.entity_type,
            observations: obs.get(e.id) ?? [],
          }),
        );
      }
      report.entities += page.length;
      progress({ phase: "entities", done: report.entities, total: totals.entities });
    });
    await pages(async (page) => {
      const edges = await exportEdges(
        db,
        s,
        project,
        page.map((e) => e.id),
      );
      for (const r of edges) {
        await opts.write(JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relation_type }));
      }
      report.relations += edges.length;
      if (edges.length > 0) progress({ phase: "relations", done: report.relations, total: totals.relations });
    });
    progress({ phase: "relations", done: report.relations, total: totals.relations });
  });
  return report;
}

/** Convenience for a whole file in memory: the export as memory.jsonl text (lines joined by "\n"). */
export async function exportMemoryJsonlText(ctx: ShampooCtx, project: string): Promise<string> {
  const lines: string[] = [];
  await exportMemoryJsonl(ctx, { project, write: (l) => void lines.push(l) });
  return lines.join("\n");
}
