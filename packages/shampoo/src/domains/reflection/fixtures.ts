import { type FixtureStep, need } from "../../platform/module.ts";

/**
 * The e2e fixture's reflection runs (platform/module.ts FixtureStep). Keys:
 * - runApply, runArchive, runDiscard: completed runs of `project`, one per lifecycle example so
 *   the examples run in any order;
 * - candidateId: a candidate of runArchive, accepted.
 */
export const reflectionFixtures: readonly FixtureStep[] = [
  {
    makes: ["runApply", "runArchive", "runDiscard"],
    needs: "reflect_start",
    run: async (f, call) => {
      // A note without a description: a reflection finding (empty_description_notes).
      await call("create_task_or_note", { title: `e2e empty note ${f.project}`, type: "note", project: f.project });
      const out: Record<string, string> = {};
      for (const k of ["runApply", "runArchive", "runDiscard"]) {
        out[k] = (await call("reflect_start", { project: f.project, created_by: `e2e fixture ${k}` })).run_id as string;
      }
      return out;
    },
  },
  {
    makes: ["candidateId"],
    needs: "reflect_review",
    run: async (f, call) => {
      const review = await call("reflect_review", { run_id: need(f, "runArchive") });
      const candidateId = (review.candidates as Array<{ candidate_id: string }>)[0]?.candidate_id;
      if (candidateId) await call("reflect_decide", { candidate_id: candidateId, decision: "accept" });
      return { candidateId };
    },
  },
];
