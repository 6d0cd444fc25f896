import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

const P = "release-train";

/**
 * The whole coordination flow over MCP with four clients (real SDK clients, one server): a
 * conductor agrees a quorum with two workers, opens two lanes and their jobs; the workers claim
 * and complete the jobs under fenced leases and submit their lanes for review; a second
 * conductor reviews (one round of changes); the lanes are done and merged at the approved
 * commits; the quorum resolves.
 */
describe.each(DIALECTS)("coordination scenario over MCP with four clients on %s", (dialect) => {
  let h: Harness;
  let cora: Agent;
  let rhea: Agent;
  let wren: Agent;
  let will: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    cora = await h.as({ principal: "cora", role: "conductor", grants: [P] });
    rhea = await h.as({ principal: "rhea", role: "conductor", grants: [P] });
    wren = await h.as({ principal: "wren", grants: [P] });
    will = await h.as({ principal: "will", grants: [P] });
  });
  afterAll(async () => {
    await h.close();
  });

  it("quorum → lanes → jobs → review → merge → resolve", async () => {
    const { quorum_id: q } = await cora.sc("quorum_create", {
      project: P,
      participants: JSON.stringify([
        { kind: "client", ref: "wren" },
        { kind: "client", ref: "will" },
        { kind: "role", ref: "EXECUTOR" },
      ]),
    });
    for (const ref of ["wren", "will"]) {
      await cora.sc("quorum_mark_participant", { quorum_id: q, kind: "client", ref, state: "joined" });
    }
    const laneA = (await cora.sc("lane_create", { quorum_id: q, assignee_client_id: "wren", branch: "feat-a" }))
      .lane_id as string;
    const laneB = (
      await cora.sc("lane_create", { quorum_id: q, assignee_client_id: "will", branch: "feat-b", depends_on: laneA })
    ).lane_id as string;
    for (const lane of [laneA, laneB]) {
      for (let i = 0; i < 3; i++)
        await cora.sc("job_create", { kind: "build", lane_id: lane, payload: `${lane}:${i}` });
      await cora.sc("lane_transition", { lane_id: lane, state: "in_progress" });
    }
    // The workers drain the queue, each completing what it claimed under its own fence.
    const done: Record<string, string[]> = { wren: [], will: [] };
    const work = async (a: Agent, name: string) => {
      for (;;) {
        const c = await a.sc("job_claim", { kind: "build", lease_seconds: 60 });
        if (!c.claimed) return;
        expect(await a.sc("job_complete", { job_id: c.job_id, outcome: "completed", fence: c.fence })).toEqual({
          job_id: c.job_id,
          state: "completed",
        });
        done[name]?.push(c.job_id as string);
      }
    };
    await Promise.all([work(wren, "wren"), work(will, "will")]);
    expect((done.wren?.length ?? 0) + (done.will?.length ?? 0)).toBe(6);
    expect(new Set([...(done.wren ?? []), ...(done.will ?? [])]).size).toBe(6);

    // Review: the assignees submit; the second conductor asks for changes once, then approves.
    await wren.sc("lane_review", { lane_id: laneA, decision: "submit", commit: "a1a1a1a1" });
    await will.sc("lane_review", { lane_id: laneB, decision: "submit", commit: "b1b1b1b1" });
    expect(await rhea.sc("lane_review", { lane_id: laneA, decision: "approve" })).toMatchObject({
      review_state: "approved",
      review_commit: "a1a1a1a1",
    });
    await rhea.sc("lane_review", { lane_id: laneB, decision: "request-changes" });
    await will.sc("lane_review", { lane_id: laneB, decision: "submit", commit: "b2b2b2b2" });
    await rhea.sc("lane_review", { lane_id: laneB, decision: "approve" });

    // Not resolvable while lanes run; done, merged at the approved heads, then resolved.
    expect((await cora.call("quorum_resolve", { quorum_id: q })).isError).toBe(true);
    for (const lane of [laneA, laneB]) await cora.sc("lane_transition", { lane_id: lane, state: "done" });
    const stale = await cora.call("lane_merge", { lane_id: laneB, outcome: "merged", result_commit: "b1b1b1b1" });
    expect((stale.structuredContent as { error_type: string }).error_type).toBe("lane_not_mergeable");
    await cora.sc("lane_merge", { lane_id: laneA, outcome: "merged", result_commit: "a1a1a1a1" });
    await cora.sc("lane_merge", { lane_id: laneB, outcome: "merged", result_commit: "b2b2b2b2" });
    for (const ref of ["wren", "will"]) {
      await cora.sc("quorum_mark_participant", { quorum_id: q, kind: "client", ref, state: "fulfilled" });
    }
    expect(await cora.sc("quorum_resolve", { quorum_id: q, result_ref: "release-1.0" })).toEqual({
      quorum_id: q,
      status: "resolved",
    });

    // What a worker sees at the end: its quorum resolved, both lanes done, approved and merged.
    const [quorum] = (await wren.sc("quorum_list", {})).quorums as Record<string, unknown>[];
    expect(quorum).toMatchObject({
      quorum_id: q,
      status: "resolved",
      result_ref: "release-1.0",
      participants: expect.arrayContaining([
        { kind: "client", ref: "wren", state: "fulfilled" },
        { kind: "role", ref: "EXECUTOR", state: "pending" },
      ]),
    });
    const lanes = (await will.sc("lane_list", { quorum_id: q })).lanes as Record<string, unknown>[];
    expect(lanes.map((l) => [l.state, l.review_state, l.merge_state]).sort()).toEqual([
      ["done", "approved", "merged"],
      ["done", "approved", "merged"],
    ]);
    const jobs = await h.db.db.selectFrom("shampoo_jobs").select(["state", "lane_id", "project"]).execute();
    expect(jobs.every((j) => j.state === "completed" && j.project === P)).toBe(true);
    const actions = await h.db.db
      .selectFrom("shampoo_history")
      .select(["entity_kind", "action", "principal"])
      .where("entity_kind", "in", ["quorum", "lane"])
      .orderBy("seq")
      .execute();
    expect(actions.filter((a) => a.entity_kind === "quorum").map((a) => a.action)).toEqual(["create", "resolve"]);
    expect(actions.filter((a) => a.action.startsWith("review:")).map((a) => a.principal)).toEqual([
      "wren",
      "will",
      "rhea",
      "rhea",
      "will",
      "rhea",
    ]);
  });
});
