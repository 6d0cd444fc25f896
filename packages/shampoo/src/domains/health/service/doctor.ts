import type { ShampooCtx } from "../../../context.ts";
import { type HealthCheck, healthChecks } from "../hooks.ts";
import type { DoctorInput } from "../inputs.gen.ts";
import type { CheckResult, DoctorReport, SectionName, SectionResult } from "../model.ts";
import { sectionStatus, selectSections, worst } from "../rules.ts";
import { basicChecks } from "./basics.ts";
import { invariantChecks } from "./invariants.ts";
import { canary } from "./readiness.ts";

/**
 * doctor: every check of the asked sections, run afresh (nothing is cached between runs, so a
 * fault fixed is healthy on the next run), through `read()` only (it writes nothing). A section
 * no module observes (no check of its own, none contributed) is one UNKNOWN check; a check that
 * throws is UNKNOWN with its message; the report's status is the worst section (rules.ts).
 */
export async function doctor(ctx: ShampooCtx, input: DoctorInput): Promise<DoctorReport> {
  const detail = input.detail ?? "summary";
  const all: HealthCheck[] = [...basicChecks, canary, ...invariantChecks, ...healthChecks.all()];
  const sections: SectionResult[] = [];
  for (const name of selectSections(input.sections)) {
    const checks = await runSection(
      ctx,
      name,
      all.filter((c) => c.section === name),
    );
    const shown = detail === "full" ? checks : checks.map(({ detail: _d, ...c }) => c);
    sections.push({ name, status: sectionStatus(checks), checks: shown });
  }
  return { status: worst(sections.map((s) => s.status)), detail, sections };
}

async function runSection(ctx: ShampooCtx, name: SectionName, checks: HealthCheck[]): Promise<CheckResult[]> {
  if (checks.length === 0) {
    return [
      {
        id: `${name}.observed`,
        status: "unknown",
        severity: "major",
        summary: `no module in this build observes ${name}: unobservable, not healthy`,
      },
    ];
  }
  const out: CheckResult[] = [];
  for (const c of checks) {
    try {
      const o = await c.run(ctx);
      out.push({ id: c.id, severity: c.severity, ...o });
    } catch (e) {
      out.push({
        id: c.id,
        status: "unknown",
        severity: c.severity,
        summary: `could not observe: ${(e as Error).message.split("\n")[0]?.slice(0, 200)}`,
      });
    }
  }
  return out;
}
