import { iso, type Kysely, type Transaction } from "kernel";
import type { Scope } from "../../../access/caller.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { awaitingChunks, visibleOpenQuestions } from "../store/chunks.ts";
import { changedFacts } from "../store/facts.ts";

/** resume_context's continuity lists (catalog: top 20 open questions, 10 awaiting chunks, 20 facts of the last 7 days). */
export const CONTINUITY = { questions: 20, awaiting: 10, facts: 20, days: 7 };
const DAY_MS = 86_400_000;

/** Global scans inside the profile and the caller's grants (catalog: not limited to the session's project). */
export async function continuity(
  db: Kysely<ShampooDB> | Transaction<ShampooDB>,
  scope: Scope,
  now: number,
  withQuestions: boolean,
) {
  const questions = withQuestions
    ? (await visibleOpenQuestions(db, scope, CONTINUITY.questions)).map((q) => ({
        question_id: q.question_id,
        text: q.text,
        type: q.type,
        priority: q.priority,
        chunk_id: q.chunk_id,
        chunk_title: q.chunk_title,
      }))
    : [];
  const waiting = await awaitingChunks(db, scope, CONTINUITY.awaiting);
  const changed = await changedFacts(db, scope, iso(now - CONTINUITY.days * DAY_MS), CONTINUITY.facts);
  return {
    open_questions: questions,
    chunks_awaiting_human: waiting.map((c) => ({ ...c, questions_open: Number(c.questions_open ?? 0) })),
    changed_facts: changed,
  };
}
