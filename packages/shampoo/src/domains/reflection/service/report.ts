import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import { AUDIT_LIMIT_MAX, CATEGORIES, CONTRACT_VERSION } from "../rules/model.ts";
import { auditParams, auditPass, findingView, markdownReport, summaryOf } from "./audit.ts";

/** reflect_audit: the pass on one read snapshot; nothing is written, not even an event. */
export async function auditReport(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const p = auditParams(ctx.caller, a, AUDIT_LIMIT_MAX);
  const now = ctx.clock.now();
  const findings = await read(ctx, (db, engine) => auditPass(db, engine.dialect, ctx.caller, p, now));
  const summary = summaryOf(findings, p, now);
  const candidates: Record<string, unknown> = {};
  for (const c of CATEGORIES) candidates[c] = findings[c].map(findingView);
  const out: Record<string, unknown> = { version: CONTRACT_VERSION, summary, candidates };
  if (a.format === "markdown") out.markdown = markdownReport(CONTRACT_VERSION, findings, summary);
  return out;
}
