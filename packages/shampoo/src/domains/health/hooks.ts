import type { ShampooCtx } from "../../context.ts";
import { defineExtensionPoint } from "../../platform/extend.ts";
import type { Observation, SectionName, Severity } from "./model.ts";

/**
 * A check another module adds to the doctor. The module that owns a subsystem owns its checks:
 * coordination contributes `jobs` (its job leases), debate `pump` and `wake`, auth `auth`. The
 * health module never imports them; a section nobody contributes to reports UNKNOWN.
 *
 *   contributes: [healthChecks.contribute({ section: "jobs", id: "jobs.leases", severity: "major",
 *     run: (ctx) => read(ctx, async (db) => ({ status: "ok", summary: "…" })) })]
 *
 * `run` observes only: it reads through platform `read()` (one snapshot, never a write) and
 * answers ok / warn / fail, or unknown when it cannot observe. A check that throws is reported
 * unknown with the error's message, so one broken check never hides the others. Summaries carry
 * counts and names of tables or kinds, never row content or secret material.
 */
export interface HealthCheck {
  section: SectionName;
  /** `<section>.<what>`, unique in the report. */
  id: string;
  severity: Severity;
  run(ctx: ShampooCtx): Promise<Observation>;
}

export const healthChecks = defineExtensionPoint<HealthCheck>("health.checks");

/**
 * A reference from one table's column to another table's key that a live row must keep: the
 * row it names exists, is in the same profile, and is not void (unless `voidAllowed` says why
 * the owning module lets it point at a void row). The doctor checks every rule whose tables
 * exist (invariants.references and, for the profile, invariants.projects). Modules contribute
 * theirs, e.g. a live binding → its topic.
 */
export interface ReferenceRule {
  table: string;
  column: string;
  target: string;
  key: string;
  /** Why a live row may point at a void one here (the owner's rule), when it may. */
  voidAllowed?: string;
}

export const healthReferences = defineExtensionPoint<ReferenceRule>("health.references");
