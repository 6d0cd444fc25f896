import { describe, expect, it } from "vitest";
import { claimScope, extractClaims } from "./claims.ts";
import { norm } from "./text.ts";

/**
 * Extraction on a corpus of realistic notes (issue 23): each note with the claims a careful
 * reader would write down (subject, predicate, scope). Precision of subject = extracted claims
 * whose subject is one the reader wrote / extracted claims; of scope likewise, over the claims
 * whose subject matched. The figures are printed and held to a floor so a regression shows.
 */
interface Expected {
  subject: string;
  predicate: string;
  scope: string;
}
const CORPUS: Array<{ note: string; claims: Expected[] }> = [
  {
    note: "Decision: the billing service uses Stripe. We run an export job nightly for finance.",
    claims: [{ subject: "the billing service", predicate: "uses", scope: "memory" }],
  },
  {
    note: "The export job produces a CSV for the auditors. It runs at 02:00.",
    claims: [{ subject: "The export job", predicate: "produces", scope: "export" }],
  },
  {
    note: "Note: the gateway depends on Redis for rate limits. Maybe we move to Envoy later?",
    claims: [{ subject: "the gateway", predicate: "depends_on", scope: "memory" }],
  },
  {
    note: "We decided that the search API requires an API key since 2026-03-01.",
    claims: [{ subject: "the search API", predicate: "requires", scope: "memory" }],
  },
  {
    note: "The schema validator validates every payload before the bridge forwards it.",
    claims: [{ subject: "The schema validator", predicate: "validates", scope: "validation" }],
  },
  {
    note: "Context: the mobile app uses GraphQL. The web app uses REST.",
    claims: [
      { subject: "the mobile app", predicate: "uses", scope: "memory" },
      { subject: "The web app", predicate: "uses", scope: "memory" },
    ],
  },
  {
    note: "Confirmed: the ledger replaces the old accounts table. Export of reports is unaffected.",
    claims: [
      { subject: "the ledger", predicate: "replaces", scope: "memory" },
      { subject: "Export of reports", predicate: "is", scope: "export" },
    ],
  },
  {
    note: "The field mapping maps to the v2 schema. The importer contains a retry loop.",
    claims: [
      { subject: "The field mapping", predicate: "uses", scope: "mapping" },
      { subject: "The importer", predicate: "contains", scope: "memory" },
    ],
  },
  {
    note: "Update: the primary database is PostgreSQL 16. The cache is Redis, probably.",
    claims: [
      { subject: "the primary database", predicate: "is", scope: "memory" },
      { subject: "The cache", predicate: "is", scope: "memory" },
    ],
  },
  {
    note: "FYI: the bridge uses a message queue. The worker depends on the bridge.",
    claims: [
      { subject: "the bridge", predicate: "uses", scope: "bridge" },
      { subject: "The worker", predicate: "depends_on", scope: "bridge" },
    ],
  },
  {
    note: "Fact: the onboarding flow requires email verification. Validation of phone numbers is manual.",
    claims: [
      { subject: "the onboarding flow", predicate: "requires", scope: "memory" },
      { subject: "Validation of phone numbers", predicate: "is", scope: "validation" },
    ],
  },
  {
    note: "The nightly export job uses S3. The billing service uses Stripe.",
    claims: [
      { subject: "The nightly export job", predicate: "uses", scope: "export" },
      { subject: "The billing service", predicate: "uses", scope: "memory" },
    ],
  },
];

function measure() {
  let extracted = 0;
  let subjectOk = 0;
  let scopeOk = 0;
  for (const { note, claims } of CORPUS) {
    for (const c of extractClaims(note)) {
      extracted++;
      const want = claims.find((e) => norm(e.subject) === norm(c.subject));
      if (!want) continue;
      subjectOk++;
      if (want.scope === claimScope(c)) scopeOk++;
    }
  }
  return { extracted, subject: subjectOk / extracted, scope: scopeOk / Math.max(1, subjectOk) };
}

describe("extraction on a corpus of realistic notes", () => {
  it("subjects drop their markers and scopes follow the claim, not the note", () => {
    const m = measure();
    console.info(
      `extraction corpus: ${m.extracted} claims, subject precision ${(m.subject * 100).toFixed(1)} %, scope precision ${(m.scope * 100).toFixed(1)} %`,
    );
    expect(m.subject).toBeGreaterThanOrEqual(0.9);
    expect(m.scope).toBeGreaterThanOrEqual(0.9);
  });
});
