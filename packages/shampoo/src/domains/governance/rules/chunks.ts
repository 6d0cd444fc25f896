import { clamp01, round, sentences } from "./text.ts";

/**
 * Chunks: the units of context that governance assesses, asks about and extracts claims from.
 * Pure rules: signal markers, materiality and uncertainty, the lifecycle state machine.
 *
 * States (catalog "chunk states named": enrichable, uncertain, awaiting_human, frozen, plus the
 * state a chunk is born in):
 *
 *   new ──assess──▶ enrichable ◀──assess──▶ uncertain
 *    │                 │  ▲                    │
 *    │              queue │ answer          queue / answer ─▶ enrichable
 *    │                 ▼  │                    ▼
 *    └────queue────▶ awaiting_human ◀──────────┘
 *   any ──assess (a [frozen] marker)──▶ frozen ──assess with force──▶ enrichable | uncertain
 */
export const CHUNK_STATES = ["new", "enrichable", "uncertain", "awaiting_human", "frozen"] as const;
export type ChunkState = (typeof CHUNK_STATES)[number];

export type Move = "assess" | "assess_forced" | "queue" | "answer";

/** Legal moves: from state → via → the states it may reach. Anything else is refused. */
const MOVES: Record<ChunkState, Partial<Record<Move, readonly ChunkState[]>>> = {
  new: { assess: ["enrichable", "uncertain", "frozen"], queue: ["awaiting_human"], answer: ["new"] },
  enrichable: {
    assess: ["enrichable", "uncertain", "frozen"],
    queue: ["awaiting_human"],
    answer: ["enrichable"],
  },
  uncertain: { assess: ["enrichable", "uncertain", "frozen"], queue: ["awaiting_human"], answer: ["enrichable"] },
  awaiting_human: {
    assess: ["enrichable", "uncertain", "frozen"],
    queue: ["awaiting_human"],
    answer: ["enrichable"],
  },
  frozen: { assess_forced: ["enrichable", "uncertain", "frozen"] },
};

export function canMove(from: ChunkState, via: Move, to: ChunkState): boolean {
  return MOVES[from][via]?.includes(to) ?? false;
}

/** Signal kinds, in the fixed order they are reported. */
export const SIGNAL_KINDS = [
  "decision",
  "constraint",
  "hedge",
  "question",
  "todo",
  "time",
  "reference",
  "freeze",
] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** The markers each signal kind looks for. Words are matched whole, case-insensitively. */
const MARKERS: Record<SignalKind, RegExp> = {
  decision: /\b(decided|decision|agreed|we will|must|shall|always|never)\b/gi,
  constraint: /\b(requires?|depends on|only|deadline|limit(?:ed)?|mandatory)\b/gi,
  hedge: /\b(maybe|perhaps|probably|might|possibly|unclear|unsure|not sure|tbd|tbc|i think|guess)\b/gi,
  question: /\?(?=\s|$)/g,
  todo: /\b(todo|fixme|xxx)\b/gi,
  time: /\b(\d{4}-\d{2}-\d{2}|since|until|as of|effective|tomorrow|next week|yesterday)\b/gi,
  reference: /(https?:\/\/\S+|\b[\w./-]+\.(?:ts|js|md|json|py|sql|yml|yaml)\b|#\d+\b)/gi,
  // A human's "do not touch": a frozen chunk is assessed again only with force.
  freeze: /\[frozen\]/gi,
};

export interface Signal {
  kind: SignalKind;
  count: number;
  /** The first three markers found, lowercased, in order of appearance. */
  markers: string[];
}

export function detectSignals(body: string): Signal[] {
  const out: Signal[] = [];
  for (const kind of SIGNAL_KINDS) {
    const found = [...body.matchAll(MARKERS[kind])].map((m) => m[0].toLowerCase());
    if (found.length > 0) out.push({ kind, count: found.length, markers: found.slice(0, 3) });
  }
  return out;
}

/** Whether a sentence carries one of the catalog's predicates (see claims.ts). */
const PREDICATE_WORDS = /\b(uses?|depends? on|is|are|requires?|produces?|validates?|contains?|replaces?)\b/i;

export interface Scores {
  materiality: number;
  uncertainty: number;
}

/**
 * materiality: how much a chunk matters to shared memory, 0..1 — decisions 0.3, constraints 0.2,
 * claim-shaped sentences 0.2, times 0.15, references 0.15; halved for bodies under 20 characters.
 * uncertainty: how much of it is unsettled, 0..1 — 0.25 per hedge, 0.2 per question, 0.15 per
 * to-do, capped at 1. Both rounded to 4 digits, so identical bodies give identical scores.
 */
export function score(body: string, signals: Signal[]): Scores {
  const count = (k: SignalKind) => signals.find((s) => s.kind === k)?.count ?? 0;
  const has = (k: SignalKind) => (count(k) > 0 ? 1 : 0);
  const claimShaped = sentences(body).some((s) => !s.endsWith("?") && PREDICATE_WORDS.test(s)) ? 1 : 0;
  let m = 0.3 * has("decision") + 0.2 * has("constraint") + 0.2 * claimShaped + 0.15 * has("time");
  m += 0.15 * has("reference");
  if (body.trim().length < 20) m /= 2;
  const u = 0.25 * count("hedge") + 0.2 * count("question") + 0.15 * count("todo");
  return { materiality: round(clamp01(m)), uncertainty: round(clamp01(u)) };
}

/** Below this materiality, assessment advises skipping extraction. */
export const SKIP_MATERIALITY = 0.2;
/** At or above this uncertainty a chunk is uncertain: ask before promoting. */
export const UNCERTAIN_AT = 0.5;

export type Policy = "extract" | "clarify" | "skip" | "frozen" | "await_human";

export interface Assessment {
  state: ChunkState;
  previous_state: ChunkState;
  policy: Policy;
  materiality: number;
  uncertainty: number;
  should_skip: boolean;
  skip_reason: string | null;
  signals: Signal[];
  /** False when the chunk was left as it was (frozen without force, unchanged awaiting_human). */
  assessed: boolean;
}

export interface AssessInput {
  state: ChunkState;
  body: string;
  /** The source hash now, and the one the chunk had when it entered its current state. */
  hash: string;
  stateHash: string | null;
  force: boolean;
  /** The scores last recorded, reported unchanged by the skip paths. */
  last: Scores;
}

/**
 * One assessment. Frozen chunks without force, and awaiting_human chunks whose source has not
 * changed since they were queued, are skip payloads (catalog: "not errors"): nothing moves.
 * Otherwise the target is frozen (a [frozen] marker), uncertain (uncertainty ≥ 0.5) or
 * enrichable; should_skip advises against extraction below materiality 0.2.
 */
export function assess(input: AssessInput): Assessment {
  const signals = detectSignals(input.body);
  const base = { previous_state: input.state, signals };
  if (input.state === "frozen" && !input.force) {
    return {
      ...base,
      ...input.last,
      state: "frozen",
      policy: "frozen",
      should_skip: true,
      skip_reason: "frozen",
      assessed: false,
    };
  }
  if (input.state === "awaiting_human" && input.hash === input.stateHash) {
    return {
      ...base,
      ...input.last,
      state: "awaiting_human",
      policy: "await_human",
      should_skip: true,
      skip_reason: "awaiting_human_unchanged",
      assessed: false,
    };
  }
  const s = score(input.body, signals);
  const frozen = signals.some((x) => x.kind === "freeze");
  const state: ChunkState = frozen ? "frozen" : s.uncertainty >= UNCERTAIN_AT ? "uncertain" : "enrichable";
  const via: Move = input.state === "frozen" ? "assess_forced" : "assess";
  if (!canMove(input.state, via, state)) throw new Error(`illegal chunk move ${input.state} → ${state}`);
  const low = s.materiality < SKIP_MATERIALITY;
  const policy: Policy = frozen ? "frozen" : low ? "skip" : state === "uncertain" ? "clarify" : "extract";
  return {
    ...base,
    ...s,
    state,
    policy,
    should_skip: frozen || low,
    skip_reason: frozen ? "frozen" : low ? "low_materiality" : null,
    assessed: true,
  };
}
