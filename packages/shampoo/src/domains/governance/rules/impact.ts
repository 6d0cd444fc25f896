import { round } from "./text.ts";

/**
 * explain_impact's walk: bounded breadth-first over recorded impact links (chunk → claim → fact,
 * fact → successor, fact ↔ contradicting fact, fact → pack, pack → session). Each node is
 * reached once, at its smallest depth (ties: the first edge in id order); propagated score =
 * parent's × edge weight.
 */
export const DEPTHS = { quick: 1, standard: 3, deep: 5 } as const;
export type Depth = keyof typeof DEPTHS;
export function depthOf(v: unknown): Depth {
  return v === "quick" || v === "deep" ? v : "standard";
}

export const IMPACT_KINDS = ["session", "snapshot", "mapping", "validation", "export", "fact"] as const;
export type ImpactKind = (typeof IMPACT_KINDS)[number];

export interface Node {
  kind: "chunk" | "claim" | "fact" | "pack" | "session";
  id: string;
}
export interface Edge {
  from: Node;
  to: Node;
  weight: number;
  rationale: string;
}
export interface Impact {
  kind: "chunk" | "claim" | "fact" | "pack" | "session";
  id: string;
  depth: number;
  edge_score: number;
  impact_score: number;
  propagated_score: number;
  rationale: string;
}

const key = (n: Node) => `${n.kind}:${n.id}`;

/** `edges(frontier)` returns the outgoing edges of those nodes (the store reads them). */
export async function walk(
  source: Node,
  maxDepth: number,
  edges: (frontier: Node[]) => Promise<Edge[]>,
  weightOf: (n: Node) => number = () => 1,
): Promise<Impact[]> {
  const seen = new Map<string, number>([[key(source), 1]]);
  const out: Impact[] = [];
  let frontier: Node[] = [source];
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const next: Node[] = [];
    const sorted = (await edges(frontier)).sort((a, b) =>
      key(a.from) === key(b.from) ? (key(a.to) < key(b.to) ? -1 : 1) : key(a.from) < key(b.from) ? -1 : 1,
    );
    for (const e of sorted) {
      if (seen.has(key(e.to))) continue;
      const parent = seen.get(key(e.from)) ?? 1;
      const propagated = round(parent * e.weight, 6);
      seen.set(key(e.to), propagated);
      next.push(e.to);
      out.push({
        kind: e.to.kind,
        id: e.to.id,
        depth,
        edge_score: round(e.weight, 6),
        impact_score: round(propagated * weightOf(e.to), 6),
        propagated_score: propagated,
        rationale: e.rationale,
      });
    }
    frontier = next;
  }
  return out;
}
