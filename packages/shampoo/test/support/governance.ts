import type { Agent, Harness } from "./shampoo.ts";

/** Helpers shared by the governance suites (test/governance/*.test.ts). */

/** The actions of an aggregate's history, oldest first, read through replay_memory. */
export async function actions(agent: Agent, kind: string, id: string): Promise<string[]> {
  const r = await agent.sc("replay_memory", { aggregate_kind: kind, aggregate_id: id, limit: 500 });
  return (r.events as Array<{ action: string }>).map((e) => e.action).reverse();
}

/** A note in `project` whose chunk is then assessed; returns the task and chunk ids. */
export async function assessedNote(agent: Agent, project: string, title: string, description: string) {
  const t = await agent.sc("create_task_or_note", { title, project, type: "note", description });
  const a = await agent.sc("assess_context", { chunk_ref: t.task_id });
  return { taskId: t.task_id as string, chunkId: a.chunk_id as string, assessed: a };
}

/** Assesses, extracts and promotes (human_confirmed) every claim of a note; returns the fact ids by object. */
export async function factsFrom(agent: Agent, project: string, title: string, description: string) {
  const { chunkId } = await assessedNote(agent, project, title, description);
  const x = await agent.sc("extract_candidate_claims", { chunk_ref: chunkId });
  const out: Record<string, string> = {};
  for (const c of x.claims as Array<{ claim_id: string; object: string }>) {
    const p = await agent.sc("promote_candidate", { claim_id: c.claim_id });
    out[c.object] = p.fact_id as string;
  }
  return { chunkId, facts: out };
}

export async function factRow(h: Harness, id: string) {
  return h.db.db.selectFrom("governance_facts").selectAll().where("fact_id", "=", id).executeTakeFirstOrThrow();
}
