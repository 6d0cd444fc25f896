import { norm, round, sentences } from "./text.ts";

/**
 * Claims: subject–predicate–object–scope triples read out of a chunk without a language model.
 * Extraction is a fixed set of patterns, one per catalog predicate, so the same body always gives
 * the same claims (deterministic write path).
 */
export const PREDICATES = [
  "uses",
  "depends_on",
  "is",
  "requires",
  "produces",
  "validates",
  "contains",
  "replaces",
] as const;
export type Predicate = (typeof PREDICATES)[number];

export const SCOPES = ["memory", "bridge", "mapping", "validation", "export"] as const;
export type Scope = (typeof SCOPES)[number];
/** Catalog: sensitive scopes accept only human_confirmed promotion. */
export const SENSITIVE: ReadonlySet<Scope> = new Set(["mapping", "validation", "bridge", "export"]);

/**
 * Predicates that hold one value for a subject in a scope: two live facts with the same subject,
 * predicate and scope but different objects contradict each other. Only `is` ("the primary
 * database is PostgreSQL"); a component uses, requires or contains many things at once, so those
 * never contradict structurally.
 */
export const SINGLE_VALUED: ReadonlySet<Predicate> = new Set(["is"]);

/** Verb phrases per predicate, tried in this order (longest first inside each). */
const VERBS: Array<[Predicate, string]> = [
  ["depends_on", "depends on|depend on"],
  ["replaces", "replaces|replace"],
  ["requires", "requires|require"],
  ["produces", "produces|produce"],
  ["validates", "validates|validate"],
  ["contains", "contains|contain"],
  ["uses", "uses|use"],
  ["is", "is|are"],
];

/** Base confidence per predicate: how often the pattern reads a real fact. */
const BASE: Record<Predicate, number> = {
  uses: 0.6,
  depends_on: 0.7,
  is: 0.55,
  requires: 0.65,
  produces: 0.6,
  validates: 0.7,
  contains: 0.5,
  replaces: 0.6,
};

/**
 * Bounds of one extraction: at most MAX_CLAIMS_PER_CHUNK claims staged from one chunk (the first
 * ones in reading order; the answer says `truncated`), at most MAX_CLAIMS_PER_CALL in one call
 * (enrich_context stops extracting there). A 99 KB note once made 6,352 claims and a 2.2 MB answer.
 */
export const MAX_CLAIMS_PER_CHUNK = 500;
export const MAX_CLAIMS_PER_CALL = 1000;

const HEDGE = /\b(maybe|perhaps|probably|might|possibly|unclear|unsure|not sure|tbd|i think|guess)\b/i;
const FIRM = /\b(decided|agreed|confirmed|always|must)\b/i;
/** A statement labelled as settled ("Decision: …", "Confirmed: …", "Fact: …"): the strongest signal. */
const LABELLED = /^\s*(?:decision|decided|confirmed|fact)\s*:/i;
/** "since 2026-01-05", "as of 2026-01-05", "effective 2026-01-05": when the claim became true. */
const VALID_FROM = /\b(?:since|as of|effective|from)\s+(\d{4}-\d{2}-\d{2})\b/i;
const LEAD =
  /^(?:(?:we|it was|it is)\s+(?:decided|agreed)\s+(?:that\s+)?|(?:decision|decided|confirmed|fact|note|constraint|context|update|todo|fyi)\s*:\s*|so\s+|and\s+|but\s+|maybe\s+|perhaps\s+|probably\s+)+/i;

export interface ExtractedClaim {
  subject: string;
  predicate: Predicate;
  object: string;
  confidence: number;
  /** The sentence it came from (the evidence excerpt). */
  excerpt: string;
  /** ISO date the sentence names as the start of validity, or null. */
  valid_from: string | null;
}

const WORDS_MAX = 8;
const strip = (s: string) =>
  s
    .replace(VALID_FROM, "")
    .replace(/^[\s"'`(,:;-]+|[\s"'`).,:;!-]+$/g, "")
    .replace(/\s+/g, " ")
    .trim();

/** The last `n` words of a phrase (the subject sits next to its verb). */
const lastWords = (s: string, n: number) => s.split(" ").slice(-n).join(" ");
const firstWords = (s: string, n: number) => s.split(" ").slice(0, n).join(" ");

/**
 * Claims of a body: per sentence (questions skipped), the first predicate phrase with words on
 * both sides; subject up to 8 words before it, object up to 8 words after. Confidence: the
 * predicate's base, −0.2 in a hedged sentence, +0.1 in a firm one (+0.2 when it is labelled
 * "Decision:", "Confirmed:" or "Fact:"), clamped to 0.05..0.95 and rounded to 2 digits; a
 * labelled depends_on / validates / requires statement reaches enrich_context's auto-promotion
 * threshold (0.85). One claim per distinct (subject, predicate, object) in normalized form.
 */
export function extractClaims(body: string): ExtractedClaim[] {
  const out: ExtractedClaim[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences(body)) {
    if (sentence.endsWith("?")) continue;
    const clean = sentence.replace(LEAD, "");
    for (const [predicate, verbs] of VERBS) {
      const m = new RegExp(`^(.+?)\\s+(?:${verbs})\\s+(.+)$`, "i").exec(clean);
      if (!m) continue;
      const subject = lastWords(strip(m[1] as string), WORDS_MAX);
      // The object ends at the first clause break ("Redis, probably" → "Redis").
      const object = firstWords(strip((m[2] as string).split(/[,;:(]/)[0] as string), WORDS_MAX);
      if (subject.length < 2 || object.length < 2) continue;
      const key = `${norm(subject)}\u0000${predicate}\u0000${norm(object)}`;
      if (!seen.has(key)) {
        seen.add(key);
        let c = BASE[predicate];
        if (HEDGE.test(sentence)) c -= 0.2;
        if (LABELLED.test(sentence)) c += 0.2;
        else if (FIRM.test(sentence)) c += 0.1;
        const vf = VALID_FROM.exec(sentence);
        out.push({
          subject,
          predicate,
          object,
          confidence: round(Math.min(0.95, Math.max(0.05, c)), 2),
          excerpt: sentence.slice(0, 500),
          valid_from: vf ? `${vf[1]}T00:00:00.000Z` : null,
        });
      }
      break;
    }
  }
  return out;
}

/**
 * The first sensitive area a text names (bridge, mapping, validation, export, in that order),
 * else memory. A claim's scope is that of its own subject and object (claimScope), not of the
 * whole note: a note that merely mentions an export job elsewhere does not put "the billing
 * service uses Stripe" in scope export.
 */
export function detectScope(body: string): Scope {
  if (/\bbridge/i.test(body)) return "bridge";
  if (/\b(mapping|maps? to)\b/i.test(body)) return "mapping";
  if (/\bvalidat/i.test(body)) return "validation";
  if (/\bexport/i.test(body)) return "export";
  return "memory";
}

/** A claim's scope without a scope_hint: what its subject and object name. */
export function claimScope(c: { subject: string; object: string }): Scope {
  return detectScope(`${c.subject} ${c.object}`);
}

/**
 * Whether a claim needs a human before it may become canonical: a sensitive scope, low
 * confidence (< 0.5), or a chunk still uncertain.
 */
export function requiresHuman(scope: Scope, confidence: number, chunkUncertain: boolean): boolean {
  return SENSITIVE.has(scope) || confidence < 0.5 || chunkUncertain;
}

/** The identity of a fact's value: same key and same object ⇒ the same fact (reinforced, not duplicated). */
export function identityKey(c: { subject: string; predicate: string; object: string; scope: string }): string {
  return `${norm(c.subject)}\u0000${c.predicate}\u0000${norm(c.object)}\u0000${c.scope}`;
}
