import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import { lookupSources } from "../../../store/lookup-source.ts";
import type { FindByTitleInput } from "../inputs.gen.ts";
import { lookup } from "../rules/lookup.ts";
import { clampInt } from "../rules/values.ts";
import { taskSource } from "../store/lookup.ts";

/** find_by_title: tasks and notes (store/lookup.ts) and the sources other modules contribute. */

/** The most rows a full-scan fallback scores: live first, most recently updated first. */
export const LOOKUP_SCAN_CAP = 5000;

export const LOOKUP_LIMIT = { min: 1, max: 100, default: 20 };

export async function findByTitle(ctx: ShampooCtx, a: FindByTitleInput): Promise<Record<string, unknown>> {
  const limit = clampInt(a.limit, LOOKUP_LIMIT.min, LOOKUP_LIMIT.max, LOOKUP_LIMIT.default);
  const fragment = String(a.title_fragment ?? "");
  const scope = scopeOf(ctx.caller);
  return read(ctx, (db, engine) =>
    lookup(
      // Tasks and notes, then the sources other modules contribute (the graph's entities).
      [taskSource(db, engine, scope), ...lookupSources.all().map((open) => open(db, engine, ctx.caller))],
      fragment,
      limit,
      LOOKUP_SCAN_CAP,
    ),
  );
}
