import type { FixtureStep } from "../../platform/module.ts";

/**
 * The e2e fixture's coordination objects (platform/module.ts FixtureStep). The caller must be a
 * conductor with an explicit grant on the fixture project (star never confers origination). Keys:
 * - coordinationProject: the fixture project, where the quorums and jobs live.
 * - quorumId: an open quorum (participants: role EXECUTOR, client worker-1) with lanes.
 * - cancelQuorumId: an open quorum quorum_cancel's example cancels.
 * - resolveQuorumId: an open quorum without lanes quorum_resolve's example resolves.
 * - laneId: an open lane of quorumId.
 * - doneLaneId / doneLaneCommit: a lane of quorumId, done, approved for that commit (mergeable).
 * - claimedJobId / heldJobId: jobs the caller holds (for job_complete, job_release); a third,
 *   of kind delivery, stays queued for job_claim's example.
 */
export const coordinationFixtures: readonly FixtureStep[] = [
  {
    makes: [
      "coordinationProject",
      "quorumId",
      "cancelQuorumId",
      "resolveQuorumId",
      "laneId",
      "doneLaneId",
      "doneLaneCommit",
    ],
    needs: "quorum_create",
    run: async (f, call) => {
      const project = f.project as string;
      const quorum = async () => (await call("quorum_create", { project })).quorum_id as string;
      const quorumId = (
        await call("quorum_create", {
          project,
          participants: '[{"kind":"role","ref":"EXECUTOR"},{"kind":"client","ref":"worker-1"}]',
        })
      ).quorum_id as string;
      const lane = async () => (await call("lane_create", { quorum_id: quorumId })).lane_id as string;
      const laneId = await lane();
      const doneLaneId = await lane();
      const doneLaneCommit = "9c1d2e3f4a5b";
      await call("lane_transition", { lane_id: doneLaneId, state: "in_progress" });
      await call("lane_transition", { lane_id: doneLaneId, state: "done" });
      await call("lane_review", { lane_id: doneLaneId, decision: "submit", commit: doneLaneCommit });
      await call("lane_review", { lane_id: doneLaneId, decision: "approve" });
      return {
        coordinationProject: project,
        quorumId,
        cancelQuorumId: await quorum(),
        resolveQuorumId: await quorum(),
        laneId,
        doneLaneId,
        doneLaneCommit,
      };
    },
  },
  {
    makes: ["claimedJobId", "heldJobId"],
    needs: "job_create",
    run: async (f, call) => {
      const project = f.project as string;
      const claim = async (kind: string) => {
        await call("job_create", { kind, project });
        return (await call("job_claim", { kind, lease_seconds: 3600 })).job_id as string;
      };
      const claimedJobId = await claim("fixture-complete");
      const heldJobId = await claim("fixture-release");
      await call("job_create", { kind: "delivery", project, payload: "{}" });
      return { claimedJobId, heldJobId };
    },
  },
];
