import { readFileSync } from "node:fs";
import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import { SHAMPOO_VERSION } from "../../../version.ts";
import { judgeLicence, type LicenceAnswer, visibilityOf } from "../rules.ts";
import { countsFor } from "../store/counts.ts";

/** This package's version (src/version.ts, checked against package.json by a test). */
const VERSION: string = SHAMPOO_VERSION;

/** Where a licence artefact may be found: the file SHAMPOO_LICENCE names (absent: none). */
export const LICENCE_ENV = "SHAMPOO_LICENCE";

/**
 * status: who is asking, against what, and how much they can see. Pure read: the counts come
 * from one snapshot, filtered to the caller (store/counts.ts); tools_total is what this session
 * can call now, tools_debate the debate tools among them.
 */
export async function status(ctx: ShampooCtx): Promise<Record<string, unknown>> {
  const c = ctx.caller;
  const counts = await read(ctx, (db) => countsFor(db, c));
  const names = (ctx.pipeline?.list() ?? []).map((t) => t.name);
  const callable = names.filter((n) => ctx.toolsets?.visible(n) ?? c.tools?.has(n) ?? true);
  return {
    product: "shampoo",
    version: VERSION,
    backend: ctx.database.dialect,
    database: ctx.database.location,
    profile: c.profile,
    caller: c.principal,
    role: c.role,
    visibility: visibilityOf(c),
    counts,
    tools_total: callable.length,
    tools_debate: callable.filter((n) => n.startsWith("debate_")).length,
  };
}

/**
 * licence: FREE, or VALID PERPETUAL LICENCE when the artefact named by SHAMPOO_LICENCE is a
 * valid one. Display only: nothing anywhere reads this to decide what the software does.
 */
export function licence(env: NodeJS.ProcessEnv = process.env): LicenceAnswer {
  const path = env[LICENCE_ENV];
  if (!path) return judgeLicence(undefined);
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    text = undefined;
  }
  return judgeLicence(text);
}
