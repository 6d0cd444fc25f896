import type { CardRegistry } from "../evidence/registry.ts";
import type { LogReply } from "./log.ts";

/**
 * GET /suites/{suite_id}/{generation}/reveal.json (docs/evidence-0.2.md §14.3): a retired
 * generation's room secret and the openings (value and value salt) re-grading reads; no replay
 * salt (it would open the guessable commitments too). Before the reveal: 404 not_revealed,
 * the same answer as for a generation that does not exist (no existence oracle).
 */
export async function revealed(registry: CardRegistry, suiteId: string, generation: string): Promise<LogReply> {
  const doc =
    /^[a-z0-9-]{1,64}$/.test(suiteId) && /^[0-9a-f.]{1,32}$/.test(generation)
      ? await registry.revealed(suiteId, generation)
      : null;
  if (!doc) {
    return {
      status: 404,
      body: { error: "not_revealed", message: `${suiteId} ${generation} has no published secret` },
      cache: "no-store",
    };
  }
  return { status: 200, body: doc, cache: "short" };
}
