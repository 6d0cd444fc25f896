import { round, tokens } from "./text.ts";

/**
 * Context packs: a role-specific selection of memory under a token budget, greedy by score.
 * Deterministic: the same candidates and clock give the same bytes (scores are rounded, every
 * tie is broken by kind, then ref, then text).
 */
export const PACK_TYPES = ["planner", "reviewer", "executor", "bridge_checker", "handoff"] as const;
export type PackType = (typeof PACK_TYPES)[number];
export const DEFAULT_TOKEN_BUDGET = 4000;
export const CONTRACT_VERSION = "context_pack.v1";

export const ITEM_KINDS = ["session", "file", "task", "event", "question", "chunk", "fact", "claim"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

export interface Candidate {
  kind: ItemKind;
  ref: string;
  text: string;
  /** When it last changed (ISO); freshness halves every 7 days. */
  at: string;
  /** 0..1: confidence, evidence, priority — how much the item can be trusted or matters. */
  quality: number;
  /** 0..1: 1 when tied to the pack's target (task or its linked entities), else the base 0.5. */
  relevance: number;
  /** A scope for bridge_checker (facts and claims), else null. */
  scope?: string | null;
}

/** Per role: how much each kind counts (0 leaves it out) and the weights of the three scores. */
export interface RoleWeights {
  kinds: Partial<Record<ItemKind, number>>;
  freshness: number;
  relevance: number;
  quality: number;
  /** bridge_checker: facts and claims outside these scopes count 0.3 of their weight. */
  scopes?: readonly string[];
}

export const ROLES: Record<PackType, RoleWeights> = {
  planner: {
    kinds: { task: 1, question: 0.9, fact: 0.8, claim: 0.5, chunk: 0.4 },
    freshness: 0.3,
    relevance: 0.4,
    quality: 0.3,
  },
  reviewer: {
    kinds: { claim: 1, fact: 0.8, question: 0.7, chunk: 0.5, task: 0.4 },
    freshness: 0.2,
    relevance: 0.3,
    quality: 0.5,
  },
  executor: {
    kinds: { task: 1, fact: 0.9, chunk: 0.6, question: 0.5, claim: 0.3 },
    freshness: 0.3,
    relevance: 0.5,
    quality: 0.2,
  },
  bridge_checker: {
    kinds: { fact: 1, claim: 0.9, question: 0.5, chunk: 0.4 },
    freshness: 0.2,
    relevance: 0.3,
    quality: 0.5,
    scopes: ["bridge", "mapping", "export", "validation"],
  },
  handoff: {
    kinds: { session: 1, file: 0.95, task: 0.9, question: 0.9, event: 0.8, chunk: 0.8, fact: 0.7, claim: 0.4 },
    freshness: 0.4,
    relevance: 0.3,
    quality: 0.3,
  },
};

/** Section headings, in the order they appear in a body. */
const SECTION: Record<ItemKind, string> = {
  session: "Session",
  file: "Active files",
  task: "Open tasks",
  event: "Recent changes",
  question: "Open questions",
  chunk: "Chunks",
  fact: "Facts",
  claim: "Candidate claims",
};

const DAY_MS = 86_400_000;
const ITEM_CHARS = 600;
const TITLE: Record<PackType, string> = {
  planner: "Planner pack",
  reviewer: "Reviewer pack",
  executor: "Executor pack",
  bridge_checker: "Bridge checker pack",
  handoff: "Handoff pack",
};

export function freshness(at: string, now: number): number {
  const age = Math.max(0, now - Date.parse(at)) / DAY_MS;
  return 0.5 ** (age / 7);
}

export interface Scored extends Candidate {
  score: number;
  freshness: number;
}

export interface Pack {
  body: string;
  token_usage: number;
  items: Scored[];
  sections: Array<{ name: string; kind: ItemKind; items: number }>;
  freshness_score: number;
  relevance_score: number;
  quality_score: number;
}

/** Scores every candidate for the role; kinds the role leaves out are dropped. Best first. */
export function rank(role: PackType, candidates: Candidate[], now: number): Scored[] {
  const w = ROLES[role];
  const out: Scored[] = [];
  for (const c of candidates) {
    let k = w.kinds[c.kind] ?? 0;
    if (k === 0) continue;
    if (w.scopes && (c.kind === "fact" || c.kind === "claim") && !w.scopes.includes(c.scope ?? "")) k *= 0.3;
    const f = round(freshness(c.at, now), 6);
    const s = k * (w.freshness * f + w.relevance * c.relevance + w.quality * c.quality);
    out.push({ ...c, freshness: f, score: round(s, 6) });
  }
  const order = (k: ItemKind) => ITEM_KINDS.indexOf(k);
  return out.sort(
    (a, b) =>
      b.score - a.score ||
      order(a.kind) - order(b.kind) ||
      (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0) ||
      (a.text < b.text ? -1 : a.text > b.text ? 1 : 0),
  );
}

const line = (c: Candidate) => `- ${c.text.replace(/\s+/g, " ").slice(0, ITEM_CHARS)}\n`;
const heading = (k: ItemKind) => `\n## ${SECTION[k]}\n`;

/**
 * Greedy selection under `budget` tokens: best score first, an item goes in when its line (and
 * its section heading, the first time) still fits. The body's token count never exceeds the
 * budget: it is at most the sum of the pieces' counts (ceil is subadditive), each checked here.
 * A budget below the title's cost (negatives included) selects nothing: an empty pack, body "".
 */
export function pack(role: PackType, candidates: Candidate[], now: number, budget: number): Pack {
  return packRanked(role, rank(role, candidates, now), budget);
}

/** pack() over candidates already ranked for the role. */
export function packRanked(role: PackType, ranked: Scored[], budget: number): Pack {
  const title = `# ${TITLE[role]}\n`;
  let used = tokens(title);
  const chosen: Scored[] = [];
  const opened = new Set<ItemKind>();
  if (used <= budget) {
    for (const c of ranked) {
      const cost = tokens(line(c)) + (opened.has(c.kind) ? 0 : tokens(heading(c.kind)));
      if (used + cost > budget) continue;
      used += cost;
      opened.add(c.kind);
      chosen.push(c);
    }
  }
  if (chosen.length === 0) {
    return {
      body: "",
      token_usage: 0,
      items: [],
      sections: [],
      freshness_score: 0,
      relevance_score: 0,
      quality_score: 0,
    };
  }
  let body = title;
  const sections: Pack["sections"] = [];
  for (const kind of ITEM_KINDS) {
    const mine = chosen.filter((c) => c.kind === kind);
    if (mine.length === 0) continue;
    body += heading(kind);
    for (const c of mine) body += line(c);
    sections.push({ name: SECTION[kind], kind, items: mine.length });
  }
  const mean = (f: (c: Scored) => number) => round(chosen.reduce((s, c) => s + f(c), 0) / chosen.length, 6);
  return {
    body,
    token_usage: tokens(body),
    items: chosen,
    sections,
    freshness_score: mean((c) => c.freshness),
    relevance_score: mean((c) => c.relevance),
    quality_score: mean((c) => c.quality),
  };
}

/** token_budget: unset or 0 means 4000; negatives pass through (and select nothing). */
export function budgetOf(v: unknown): number {
  return v === undefined || v === null || v === 0 ? DEFAULT_TOKEN_BUDGET : Number(v);
}
