import { type CheckResult, type CheckStatus, SECTIONS, type SectionName, STATUSES } from "./model.ts";

/**
 * Pure decisions of the health module: how checks add up, which sections a call asks for, what
 * the CLI exits with. No ctx, no store (rules.test.ts beside).
 */

/**
 * The order "worst" follows: ok < warn < unknown < fail. UNKNOWN ranks above warn: a section
 * nobody could observe may hide a failure, so it is never reported as healthy, but it is not a
 * failure someone saw either.
 */
export function rank(s: CheckStatus): number {
  return STATUSES.indexOf(s);
}

/** The worst of `statuses`; an empty list observed nothing, so it is unknown. */
export function worst(statuses: readonly CheckStatus[]): CheckStatus {
  if (statuses.length === 0) return "unknown";
  return statuses.reduce((a, b) => (rank(b) > rank(a) ? b : a));
}

/** A section's status: the worst of its checks. */
export function sectionStatus(checks: readonly CheckResult[]): CheckStatus {
  return worst(checks.map((c) => c.status));
}

/**
 * The sections a `sections` CSV asks for, in catalog order. Empty or absent runs all; names are
 * exact (trimmed), unknown ones are silently skipped (catalog: "Unknown section names are
 * silently skipped"), so a CSV of unknown names only runs nothing.
 */
export function selectSections(csv: string | undefined): SectionName[] {
  const wanted = (csv ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (wanted.length === 0) return [...SECTIONS];
  return SECTIONS.filter((s) => wanted.includes(s));
}

/** `shampoo doctor`'s exit codes: 0 healthy, 3 warn, 4 unknown, 1 fail (2 is a usage error). */
export const DOCTOR_EXIT: Record<CheckStatus, number> = { ok: 0, fail: 1, warn: 3, unknown: 4 };

/** Counts in a summary line: "3 rows" / "1 row". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** A lease row as the invariants read it (platform/leases/). */
export interface LeaseLike {
  kind: string;
  resource_id: string;
  state: string;
  holder: string | null;
  fence: number;
  expires_ms: number | null;
}

/**
 * Leases that are neither held nor free to take over: a held lease must name its holder and an
 * expiry (a claim after the expiry takes it over), an open or done one names no live expiry,
 * and no other state exists. Returns a sentence per fault.
 */
export function leaseFaults(rows: readonly LeaseLike[]): string[] {
  const out: string[] = [];
  for (const l of rows) {
    const at = `${l.kind}/${l.resource_id}`;
    if (l.state === "held") {
      if (l.holder === null || l.expires_ms === null) out.push(`${at}: held without a holder or an expiry`);
    } else if (l.state === "open") {
      if (l.holder !== null || l.expires_ms !== null) out.push(`${at}: open but still names a holder or expiry`);
    } else if (l.state === "done") {
      if (l.expires_ms !== null) out.push(`${at}: done but still has an expiry`);
    } else out.push(`${at}: unknown state ${JSON.stringify(l.state)}`);
  }
  return out;
}

/** Held leases past their expiry at `nowMs`: free to be taken over (informational). */
export function staleLeases(rows: readonly LeaseLike[], nowMs: number): number {
  return rows.filter((l) => l.state === "held" && l.expires_ms !== null && l.expires_ms <= nowMs).length;
}

/**
 * Fencing tokens only increase: per lease, each claim's fence exceeds every earlier claim's,
 * and the lease row's fence is at least the last one handed out. `claims` oldest first.
 */
export function fenceFaults(
  rows: readonly LeaseLike[],
  claims: ReadonlyArray<{ kind: string; resourceId: string; fence: number }>,
): string[] {
  const out: string[] = [];
  const last = new Map<string, number>();
  for (const c of claims) {
    const at = `${c.kind}/${c.resourceId}`;
    const prev = last.get(at);
    if (!Number.isFinite(c.fence)) out.push(`${at}: a claim event without a fence`);
    else if (prev !== undefined && c.fence <= prev) out.push(`${at}: fence ${c.fence} handed out after ${prev}`);
    if (Number.isFinite(c.fence)) last.set(at, Math.max(prev ?? c.fence, c.fence));
  }
  for (const l of rows) {
    const at = `${l.kind}/${l.resource_id}`;
    const top = last.get(at);
    if (top !== undefined && l.fence < top) out.push(`${at}: lease fence ${l.fence} below the claimed ${top}`);
  }
  return out;
}

export interface VersionLike {
  fact_id: string;
  valid_from: string;
  valid_to: string | null;
  known_from: string;
  known_to: string | null;
}

/**
 * A fact's versions (any order) never overlap: each was known until the
 * next became known, only the last is still known (known_to null), and each version's validity
 * interval is well formed (valid_from before valid_to). ISO-8601 UTC text compares in time order.
 */
export function factIntervalFaults(given: readonly VersionLike[]): string[] {
  const out: string[] = [];
  // Versions closed and opened at one instant share known_from: the closed one comes first.
  const key = (v: VersionLike) => [v.fact_id, v.known_from, v.known_to === null ? "1" : `0${v.known_to}`];
  const versions = [...given].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as string) < (y[i] as string) ? -1 : 1;
    return 0;
  });
  for (let i = 0; i < versions.length; i++) {
    const v = versions[i] as VersionLike;
    if (v.valid_to !== null && v.valid_to < v.valid_from) out.push(`fact ${v.fact_id}: valid_to before valid_from`);
    if (v.known_to !== null && v.known_to < v.known_from) out.push(`fact ${v.fact_id}: known_to before known_from`);
    const next = versions[i + 1];
    if (next && next.fact_id === v.fact_id && (v.known_to === null || v.known_to > next.known_from)) {
      out.push(`fact ${v.fact_id}: two versions known at once from ${next.known_from}`);
    }
  }
  return out;
}

/** A project value as events and rows write it: absent, null and "" are the untagged enclave. */
export function sameProject(row: string | null, recorded: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === null || v === "" ? null : String(v));
  return norm(row) === norm(recorded);
}

/** self, or global for a star caller (catalog "status visibility"). */
export function visibilityOf(c: { star: boolean }): "self" | "global" {
  return c.star ? "global" : "self";
}

/** A caller's grants in words, for summaries: names the projects, never their content. */
export function describeScope(c: { star: boolean; projects: ReadonlySet<string>; untagged: boolean }): string {
  const parts = c.star ? ["every named project"] : [...c.projects].sort();
  if (c.untagged) parts.push("the untagged enclave");
  return parts.length > 0 ? parts.join(", ") : "nothing";
}

export interface LicenceAnswer {
  licence: "FREE" | "VALID PERPETUAL LICENCE";
  artefact_present: boolean;
  /** A display-only guess at an older artefact's preset ("plan"/"preset" field), never authority. */
  legacy_preset: string | null;
}

/**
 * Judges a licence artefact's text (undefined: no artefact). Valid: a JSON object with
 * `"licence": "perpetual"` and a non-blank `licensee`. Anything else is FREE with the artefact
 * present. The answer is display only: the software does the same whatever it says.
 */
export function judgeLicence(text: string | undefined): LicenceAnswer {
  if (text === undefined) return { licence: "FREE", artefact_present: false, legacy_preset: null };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = null;
  }
  const o = doc && typeof doc === "object" && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  const preset = [o.preset, o.plan].find((v): v is string => typeof v === "string" && v.trim() !== "");
  const valid = o.licence === "perpetual" && typeof o.licensee === "string" && o.licensee.trim() !== "";
  return {
    licence: valid ? "VALID PERPETUAL LICENCE" : "FREE",
    artefact_present: true,
    legacy_preset: preset ? preset.trim().slice(0, 64) : null,
  };
}
