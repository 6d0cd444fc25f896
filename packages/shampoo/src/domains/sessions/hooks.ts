import type { Kysely } from "kernel";
import type { Scope } from "../../access/caller.ts";
import { defineExtensionPoint } from "../../platform/extend.ts";
import type { ShampooDB } from "../../store/schema.ts";
import type { GovernanceItems } from "./rules.ts";

/**
 * resume_context's continuity lists: what another module keeps that a resumed session should
 * see (context governance: open questions, chunks awaiting a human, recently changed facts).
 */
export interface Continuity {
  open_questions: Array<GovernanceItems["questions"][number] & { question_id: string; chunk_id: string }>;
  chunks_awaiting_human: GovernanceItems["awaiting"];
  changed_facts: GovernanceItems["facts"];
}

export type ContinuitySource = (
  db: Kysely<ShampooDB>,
  scope: Scope,
  now: number,
  withQuestions: boolean,
) => Promise<Continuity>;

/**
 * Sources of resume_context's continuity lists (governance contributes its own). Without any
 * the lists are empty; with several they are concatenated in module order.
 */
export const resumeContinuity = defineExtensionPoint<ContinuitySource>("sessions.resumeContinuity");
