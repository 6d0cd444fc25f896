/**
 * The doctor's vocabulary (catalog "Health", global enum "doctor sections"): nine sections, each
 * a list of typed checks whose status is ok | warn | fail | unknown. UNKNOWN means the check
 * could not observe what it looks at: it is never counted as healthy.
 */

export const SECTIONS = [
  "config",
  "database",
  "auth",
  "jobs",
  "pump",
  "wake",
  "ledger",
  "readiness",
  "invariants",
] as const;
export type SectionName = (typeof SECTIONS)[number];

export const STATUSES = ["ok", "warn", "unknown", "fail"] as const;
export type CheckStatus = (typeof STATUSES)[number];

/** How much a check matters when it does not pass (display only: the aggregate is by status). */
export type Severity = "critical" | "major" | "minor";

/** What one check observed. `detail` is shown with detail=full only; never secret material. */
export interface Observation {
  status: CheckStatus;
  summary: string;
  detail?: string;
}

/** One check of the report. */
export interface CheckResult extends Observation {
  id: string;
  severity: Severity;
}

export interface SectionResult {
  name: SectionName;
  status: CheckStatus;
  checks: CheckResult[];
}

export interface DoctorReport {
  /** The worst section (rules.ts worst). */
  status: CheckStatus;
  detail: "summary" | "full";
  sections: SectionResult[];
}
