import type { CardFilters, StoredCard } from "../evidence/registry.ts";
import { FILTER_NAMES } from "../evidence/registry.ts";

/** Card id shapes, checked before any lookup. */
export const ANY_CARD_ID = /^(sia|oly)-(?:[0-9a-f]{16}|[0-9a-f]{32})$/;
export const NATIVE_CARD_ID = /^(sia|oly)-[0-9a-f]{32}$/;
export const LABYRINTH_HISTORICAL_ID = /^oly-[0-9a-f]{16}$/;

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export function isNative(c: StoredCard): boolean {
  return c.card_version === "0.2";
}

/** Where a card's public artefacts live. Native cards only have proofs and replays. */
export function cardLinks(c: StoredCard): Record<string, string> {
  const id = c.card_id;
  const card = LABYRINTH_HISTORICAL_ID.test(id) ? `/open-labyrinth/cards/${id}.json` : `/cards/${id}`;
  return {
    card,
    ...(LABYRINTH_HISTORICAL_ID.test(id) ? {} : { page: `/cards/${id}` }),
    verify: `/verify/${id}.json`,
    ...(isNative(c) ? { proof: `/proofs/${id}.json`, replay: `/replays/public/${id}.json` } : {}),
  };
}

/** One entry of GET /cards: the card's public context, never a rank or score. */
export function cardSummary(c: StoredCard): Record<string, unknown> {
  const b = c.card;
  return {
    card_id: c.card_id,
    card_version: c.card_version,
    evidence_status: c.evidence_status,
    verdict: b.verdict ?? null,
    identity: b.identity ?? null,
    observed_client: b.observed_client ?? null,
    channel: b.channel ?? null,
    participation_class: b.participation_class ?? null,
    suite: b.suite ?? null,
    seed: b.seed ?? null,
    toolset: b.toolset ?? null,
    issued_at: typeof b.issued_at === "string" ? b.issued_at : c.created_at,
    signed_at: c.signature?.signed_at ?? null,
    links: cardLinks(c),
  };
}

export type ListQuery = { filters: CardFilters; limit: number; cursor?: string };

/** Parses /cards query parameters: known filters (non-empty, once), limit 1..100, cursor. */
export function parseListQuery(params: URLSearchParams): ListQuery | { error: string } {
  const allowed = new Set<string>([...FILTER_NAMES, "limit", "cursor"]);
  const seen = new Set<string>();
  for (const [k] of params) {
    if (!allowed.has(k)) {
      return {
        error: `unknown parameter ${k}; allowed: ${[...allowed].join(", ")} (cards are listed newest first only)`,
      };
    }
    if (seen.has(k)) return { error: `parameter ${k} is given more than once` };
    seen.add(k);
  }
  const filters: CardFilters = {};
  for (const name of FILTER_NAMES) {
    const v = params.get(name);
    if (v === null) continue;
    if (v === "" || v.length > 200) return { error: `${name} must be 1 to 200 characters` };
    filters[name] = v;
  }
  let limit = DEFAULT_LIMIT;
  const rawLimit = params.get("limit");
  if (rawLimit !== null) {
    if (!/^[0-9]{1,3}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_LIMIT) {
      return { error: `limit must be an integer from 1 to ${MAX_LIMIT}` };
    }
    limit = Number(rawLimit);
  }
  const cursor = params.get("cursor");
  if (cursor !== null && !/^[A-Za-z0-9_-]{1,200}$/.test(cursor))
    return { error: "cursor is not one this server issued" };
  return { filters, limit, ...(cursor !== null ? { cursor } : {}) };
}
