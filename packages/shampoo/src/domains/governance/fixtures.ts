import type { FixtureStep } from "../../platform/module.ts";

/**
 * The e2e fixture's governed memory (platform/module.ts FixtureStep). Keys:
 * - chunkId: an assessed chunk with claims, one promoted to factId, one left a candidate (claimId);
 * - askChunkId: a second assessed chunk to ask about, with one open question.
 */
export const governanceFixtures: readonly FixtureStep[] = [
  {
    makes: ["chunkId", "claimId", "factId", "askChunkId"],
    needs: "assess_context",
    run: async (f, call) => {
      const note = (title: string, description: string) =>
        call("create_task_or_note", { title, project: f.project, type: "note", description });
      const a = await note(
        "e2e claims note",
        "We decided the gateway uses PostgreSQL. The worker depends on the queue.",
      );
      const chunkId = (await call("assess_context", { chunk_ref: a.task_id as string })).chunk_id as string;
      const claims = (await call("extract_candidate_claims", { chunk_ref: chunkId })).claims as Array<{
        claim_id: string;
      }>;
      const factId = (await call("promote_candidate", { claim_id: claims[0]?.claim_id })).fact_id as string;
      const b = await note("e2e question note", "Maybe the cache is Redis.");
      const askChunkId = (await call("assess_context", { chunk_ref: b.task_id as string })).chunk_id as string;
      // An answer needs an open question (record_human_answer's example answers this one).
      await call("queue_clarification", { chunk_ref: askChunkId, max_questions: 1 });
      return { chunkId, factId, claimId: claims[1]?.claim_id, askChunkId };
    },
  },
];
