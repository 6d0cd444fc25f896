import type { ParsedQuery } from "../model.ts";
import { type Candidate, charCount, evidenceStatus, PLAIN_WINDOWS, type SearchRecord, toRecord } from "./search.ts";

/**
 * search_nodes' pack: the ranked candidates, in rank order, under the wire budget, with the
 * _accounting block, and the result's exact JSON. Pure but for `loadHeads`, which reads the
 * first observations of the plain candidates the budget can reach (and only those).
 */

interface Accounting {
  entities_considered: number;
  entities_returned: number;
  observations_returned: number;
  truncated: boolean;
  budget_wire_chars: number;
  wire_chars: number;
  status: "ok" | "truncated" | "degraded" | "no_results";
  degraded: string[];
  jump?: number;
  refills: number;
  query_status: string;
  meaningful_terms: string[];
  stopword_list: string[];
}

/** Everything search_nodes gathers before packing. */
export interface Gathered {
  candidates: Candidate[];
  degraded: string[];
  refills: number;
  jump?: number;
}

/** Packs the candidates in rank order under the budget (see the module comment and docs). */
export async function pack(
  g: Gathered,
  query: string,
  q: ParsedQuery,
  budget: number,
  loadHeads: (plain: Candidate[]) => Promise<void>,
): Promise<{ result: Record<string, unknown>; text: string; returned: number }> {
  const candidates = g.candidates;
  const degraded = [...g.degraded];
  const statuses = candidates.map(evidenceStatus);
  if (statuses.includes("not_located")) degraded.push("evidence_not_located");
  const considered = candidates.length;

  const accounting = (returned: number, observations: number): Accounting => {
    const truncated = returned < considered;
    return {
      entities_considered: considered,
      entities_returned: returned,
      observations_returned: observations,
      truncated,
      budget_wire_chars: budget,
      wire_chars: 0,
      status: considered === 0 ? "no_results" : truncated ? "truncated" : degraded.length > 0 ? "degraded" : "ok",
      degraded,
      ...(g.jump === undefined ? {} : { jump: g.jump }),
      refills: g.refills,
      query_status: q.status,
      meaningful_terms: q.meaningful,
      stopword_list: q.stopwords,
    };
  };
  const envelopeJson = (acct: Accounting) => JSON.stringify({ entities: [], query, _accounting: acct });
  const envelope = (acct: Accounting) => charCount(envelopeJson(acct));
  // The size of the whole serialized result: the envelope with no entities plus each entity's
  // JSON and its separating comma. wire_chars sits inside what it measures, so it is settled by
  // a fixpoint (its own digits can change the length it reports).
  const settle = (acct: Accounting, entityChars: number): Accounting => {
    for (let i = 0; i < 8; i++) {
      const size = envelope(acct) + entityChars;
      if (size === acct.wire_chars) break;
      acct.wire_chars = size;
    }
    return acct;
  };

  // Which candidates the pack can reach at all: a plain candidate's record without its
  // observations, and the smallest envelope (status "ok", truncated true, every count 0), are
  // lower bounds of their sizes; the first candidate whose lower-bound prefix exceeds the budget
  // is never packed, nor is any after it. Only the plain candidates before it get their heads.
  // Records are made (and serialized) only up to the reach: past it nothing is packed.
  const records: SearchRecord[] = [];
  const jsons: string[] = [];
  const sizes: number[] = [];
  let reach = considered;
  let low = envelope({ ...accounting(0, 0), truncated: true, status: "ok" });
  for (let i = 0; i < considered; i++) {
    const r = toRecord(candidates[i] as Candidate);
    const json = JSON.stringify(r);
    records.push(r);
    jsons.push(json);
    sizes.push(charCount(json));
    low += (sizes[i] as number) + (i > 0 ? 1 : 0);
    if (low > budget) {
      reach = i;
      break;
    }
  }
  const plain = candidates.slice(0, reach).filter((c) => c.plain);
  if (plain.length > 0) {
    await loadHeads(plain);
    for (let i = 0; i < reach; i++) {
      if (!(candidates[i] as Candidate).plain) continue;
      records[i] = toRecord(candidates[i] as Candidate);
      jsons[i] = JSON.stringify(records[i]);
      sizes[i] = charCount(jsons[i] as string);
    }
  }

  // An upper bound of the envelope's size whatever the pack becomes (every count at its largest,
  // the longest status, a wire_chars longer than any result): while the entities packed so far
  // plus this bound fit the budget, the exact fixpoint is not needed to know that they fit.
  // Candidates past the reach have no heads loaded: they count PLAIN_WINDOWS each.
  const bound = { ...accounting(considered, 0), truncated: false, status: "no_results" as const };
  bound.observations_returned = candidates.reduce(
    (n, c, i) => n + (i >= reach && c.plain ? PLAIN_WINDOWS : c.hits.length),
    0,
  );
  bound.wire_chars = Number.MAX_SAFE_INTEGER;
  const envelopeBound = envelope(bound);
  const packed: SearchRecord[] = [];
  let entityChars = 0;
  let observations = 0;
  for (let i = 0; i < reach; i++) {
    const r = records[i] as SearchRecord;
    const size = (sizes[i] as number) + (packed.length > 0 ? 1 : 0);
    const fits =
      envelopeBound + entityChars + size <= budget ||
      settle(accounting(packed.length + 1, observations + r.observations.length), entityChars + size).wire_chars <=
        budget;
    if (!fits) break; // over budget: the pack stops here (truncated)
    packed.push(r);
    entityChars += size;
    observations += r.observations.length;
  }
  const acct = settle(accounting(packed.length, observations), entityChars);
  // The result's JSON: the envelope's, with the packed records' JSON (already made above) inside
  // its empty entities array — exactly JSON.stringify of the result (tested).
  const env = envelopeJson(acct);
  const open = '{"entities":[';
  return {
    result: { entities: packed, query, _accounting: acct },
    text: `${open}${jsons.slice(0, packed.length).join(",")}${env.slice(open.length)}`,
    returned: packed.length,
  };
}
