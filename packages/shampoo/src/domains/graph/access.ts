import { iso, type Kysely, prepared } from "kernel";
import type { ShampooCtx } from "../../context.ts";
import type { ShampooDB } from "../../store/schema.ts";

/** The note's INSERT, compiled once per database (kernel store/prepared.ts). */
const insertNote = prepared<
  ShampooDB,
  { profile: string; principal: string; session_id: string | null; tool: string; at: string; entity_ids: string }
>((db, p) =>
  db.insertInto("shampoo_graph_access").values({
    profile: p.profile,
    principal: p.principal,
    session_id: p.session_id,
    tool: p.tool,
    at: p.at,
    entity_ids: p.entity_ids,
  }),
);

/**
 * The best-effort access note of knowledge-graph reads (open_nodes, read_graph, search_nodes).
 * One append-only row per read call in shampoo_graph_access: who read which entities, when,
 * through which tool. It is written after the read has produced its result, in its own
 * statement (never in the read's transaction), and any failure is swallowed: the note can
 * never fail, delay with an error, or change what the read returns. It is telemetry, not
 * history: reads are not mutations, so they never touch shampoo_history or the profile clock.
 */
export async function noteAccess(ctx: ShampooCtx, tool: string, entityIds: string[]): Promise<void> {
  await noteAccessOn(ctx.database.db, ctx, tool, entityIds);
}

/**
 * noteAccess on a given connection: inside a SQLite read transaction (service.ts readNoted) the
 * prepared INSERT runs there, on better-sqlite3 directly. Failures are swallowed all the same.
 */
export async function noteAccessOn(db: Kysely<ShampooDB>, ctx: ShampooCtx, tool: string, entityIds: string[]) {
  try {
    await insertNote.run(db, {
      profile: ctx.caller.profile,
      principal: ctx.caller.principal,
      session_id: ctx.source.session ?? null,
      tool,
      at: iso(ctx.clock.now()),
      entity_ids: JSON.stringify(entityIds),
    });
  } catch {
    // Best effort by contract: a full disk, a locked database or a missing table loses the note,
    // never the read.
  }
}
