import { isDomainError } from "kernel";
import type { CardLog } from "../evidence/log.ts";
import { ANY_CARD_ID } from "./cards.ts";

/**
 * The card transparency log over HTTP (docs/http.md, docs/evidence-0.2.md §15.6). Handlers are
 * plain functions from parsed parameters to {status, body, cache}, so that whatever framework
 * routes the request (routes.ts) only has to send the answer.
 *
 *   GET /log/tree-head.json                         the newest signed tree head
 *   GET /log/inclusion/{card_id}.json[?tree_size=N] leaf, index, tree head and audit path
 *   GET /log/consistency.json?first=M&second=N      RFC 6962 consistency proof between two sizes
 */

export interface LogReply {
  status: number;
  body: Record<string, unknown>;
  cache: "short" | "immutable" | "no-store";
}

const error = (status: number, code: string, message: string): LogReply => ({
  status,
  body: { error: code, message },
  cache: "no-store",
});

/** A tree size from a query parameter: decimal digits, no sign, no leading zero; else null. */
export function parseTreeSize(v: string | null): number | null {
  if (v === null || !/^[1-9][0-9]{0,15}$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

async function guarded(run: () => Promise<LogReply>): Promise<LogReply> {
  try {
    return await run();
  } catch (e) {
    if (isDomainError(e) && e.code === "log_head_unavailable") return error(503, e.code, e.message);
    if (isDomainError(e) && e.code === "bad_tree_size") return error(400, e.code, e.message);
    if (isDomainError(e) && e.code === "tree_head_not_signed") return error(404, e.code, e.message);
    throw e;
  }
}

export function treeHead(log: CardLog): Promise<LogReply> {
  return guarded(async () => {
    const head = await log.head();
    if (!head) return error(404, "log_empty", "the log holds no signed card yet");
    return { status: 200, body: head as unknown as Record<string, unknown>, cache: "no-store" };
  });
}

export function inclusion(log: CardLog, cardId: string, treeSize: string | null): Promise<LogReply> {
  return guarded(async () => {
    if (!ANY_CARD_ID.test(cardId)) return error(400, "bad_card_id", "not a card id: sia- or oly- + 16 or 32 hex");
    const size = treeSize === null ? undefined : parseTreeSize(treeSize);
    if (size === null) return error(400, "bad_tree_size", "tree_size is a positive decimal integer");
    const proof = await log.inclusion(cardId, size);
    if (!proof) return error(404, "card_not_logged", `no card ${cardId} in the log`);
    // At a stated size the answer never changes; the newest head moves on.
    return { status: 200, body: { card_id: cardId, ...proof }, cache: size === undefined ? "no-store" : "immutable" };
  });
}

export function consistency(log: CardLog, first: string | null, second: string | null): Promise<LogReply> {
  return guarded(async () => {
    const m = parseTreeSize(first);
    const n = parseTreeSize(second);
    if (m === null || n === null) {
      return error(400, "bad_tree_size", "first and second are positive decimal integers");
    }
    const proof = await log.consistency(m, n);
    return { status: 200, body: { first: m, second: n, consistency: proof }, cache: "immutable" };
  });
}
