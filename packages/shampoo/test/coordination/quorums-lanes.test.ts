import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

const P = "coord-ops";

describe.each(DIALECTS)("coordination: quorums and lanes on %s", (dialect) => {
  let h: Harness;
  let conductor: Agent;
  let worker: Agent;
  let outsider: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    conductor = await h.as({ principal: "cora", role: "conductor", grants: [P] });
    worker = await h.as({ principal: "wren", grants: [P] });
    outsider = await h.as({ principal: "otto", grants: [P] });
  });
  afterAll(async () => {
    await h.close();
  });

  const err = async (a: Agent, tool: string, args: Record<string, unknown>) => {
    const r = await a.call(tool, args);
    expect(r.isError, `${tool} ${JSON.stringify(r.structuredContent)}`).toBe(true);
    return r.structuredContent as { error: string; error_type: string };
  };
  const quorum = async (participants?: string) =>
    (await conductor.sc("quorum_create", { project: P, ...(participants ? { participants } : {}) }))
      .quorum_id as string;
  const lane = async (quorumId: string, extra: Record<string, unknown> = {}) =>
    (await conductor.sc("lane_create", { quorum_id: quorumId, ...extra })).lane_id as string;

  it("quorum_create needs the conductor role and an explicit grant; star never originates", async () => {
    const r = await conductor.sc("quorum_create", {
      project: P,
      participants: '[{"kind":"role","ref":"EXECUTOR"},{"kind":"client","ref":"wren"}]',
    });
    expect(r).toEqual({ quorum_id: expect.any(String), status: "open", project: P });
    expect((await err(worker, "quorum_create", { project: P })).error_type).toBe("requires-conductor");
    const star = await h.as({ principal: "stella", role: "conductor", grants: ["*"] });
    expect((await err(star, "quorum_create", { project: P })).error_type).toBe("scope");
    expect((await err(conductor, "quorum_create", { project: "*" })).error_type).toBe("validation");
    const many = JSON.stringify(Array.from({ length: 65 }, (_, i) => ({ kind: "role", ref: `R${i}` })));
    expect((await err(conductor, "quorum_create", { project: P, participants: many })).error_type).toBe(
      "invalid_participant",
    );
    expect(
      (await err(conductor, "quorum_create", { project: P, participants: '[{"kind":"x","ref":"a"}]' })).error,
    ).toMatch(/invalid participant/);
  });

  it("quorum_list: participants see their quorums, other agents with the grant do not, the conductor sees all", async () => {
    const mine = await quorum('[{"kind":"client","ref":"wren"}]');
    const other = await quorum();
    const seen = (a: Agent) =>
      a.sc("quorum_list", { limit: 100 }).then((r) => (r.quorums as { quorum_id: string }[]).map((q) => q.quorum_id));
    expect(await seen(worker)).toContain(mine);
    expect(await seen(worker)).not.toContain(other);
    expect(await seen(outsider)).not.toContain(mine);
    expect(await seen(conductor)).toEqual(expect.arrayContaining([mine, other]));
    const listed = (await worker.sc("quorum_list", { status: "open" })).quorums as Record<string, unknown>[];
    expect(listed.find((q) => q.quorum_id === mine)).toMatchObject({
      project: P,
      status: "open",
      created_by: "cora",
      participants: [{ kind: "client", ref: "wren", state: "pending" }],
    });
    expect(await worker.sc("quorum_list", { status: "nonsense" })).toEqual({ quorums: [], count: 0 });
  });

  it("participant marks move forward only; only open quorums take marks", async () => {
    const q = await quorum();
    const mark = (state: string) => ({ quorum_id: q, kind: "client", ref: "wren", state });
    expect(await conductor.sc("quorum_mark_participant", mark("joined"))).toEqual(mark("joined"));
    expect(await conductor.sc("quorum_mark_participant", mark("fulfilled"))).toEqual(mark("fulfilled"));
    expect((await err(conductor, "quorum_mark_participant", mark("joined"))).error).toMatch(/forward only/);
    expect(await conductor.sc("quorum_mark_participant", mark("withdrawn"))).toEqual(mark("withdrawn"));
    expect((await err(conductor, "quorum_mark_participant", mark("fulfilled"))).error_type).toBe("invalid_participant");
    await conductor.sc("quorum_cancel", { quorum_id: q });
    expect((await err(conductor, "quorum_mark_participant", mark("withdrawn"))).error).toMatch(/quorum not open/);
    expect((await err(conductor, "quorum_cancel", { quorum_id: q })).error_type).toBe("quorum_not_open");
    expect((await err(conductor, "quorum_cancel", { quorum_id: "not-a-uuid" })).error_type).toBe("unknown_quorum");
  });

  it("quorum_resolve waits for every lane to be terminal; resolved is terminal", async () => {
    const q = await quorum();
    const a = await lane(q);
    const b = await lane(q);
    await conductor.sc("lane_transition", { lane_id: a, state: "in_progress" });
    expect((await err(conductor, "quorum_resolve", { quorum_id: q })).error).toMatch(/quorum has open lanes: 2/);
    await conductor.sc("lane_transition", { lane_id: a, state: "done" });
    await conductor.sc("lane_transition", { lane_id: b, state: "cancelled" });
    expect(await conductor.sc("quorum_resolve", { quorum_id: q, decision_ref: "msg:42", result_ref: "v2" })).toEqual({
      quorum_id: q,
      status: "resolved",
    });
    expect((await err(conductor, "quorum_resolve", { quorum_id: q })).error_type).toBe("quorum_not_open");
    expect((await err(conductor, "lane_create", { quorum_id: q })).error_type).toBe("quorum_not_open");
    const [row] = (await conductor.sc("quorum_list", { status: "resolved", limit: 100 })).quorums as Record<
      string,
      unknown
    >[];
    expect(row).toMatchObject({ quorum_id: q, decision_ref: "msg:42", result_ref: "v2", resolved_by: "cora" });
  });

  it("lane_create inherits the quorum project and checks its links now", async () => {
    const q = await quorum();
    expect(await conductor.sc("lane_create", { quorum_id: q, branch: "feat-x" })).toEqual({
      lane_id: expect.any(String),
      state: "open",
      project: P,
    });
    expect(
      (await err(conductor, "lane_create", { quorum_id: "00000000-0000-4000-8000-000000000000" })).error_type,
    ).toBe("unknown_lane");
    const other = await quorum();
    const foreign = await lane(other);
    expect((await err(conductor, "lane_create", { quorum_id: q, depends_on: foreign })).error).toMatch(/same quorum/);
    const missing = "00000000-0000-4000-8000-000000000001";
    expect((await err(conductor, "lane_create", { quorum_id: q, task_id: missing })).error).toBe("task not found");
    const task = (await conductor.sc("create_task_or_note", { title: "lane task", project: P })).task_id as string;
    const withTask = await lane(q, { task_id: task, depends_on: await lane(q) });
    const listed = (await conductor.sc("lane_list", { quorum_id: q, limit: 100 })).lanes as Record<string, unknown>[];
    expect(listed.find((l) => l.lane_id === withTask)).toMatchObject({
      task_id: task,
      state: "open",
      review_state: "",
    });
    const noGrant = await h.as({ principal: "nora", role: "conductor", grants: ["elsewhere"] });
    expect((await err(noGrant, "lane_create", { quorum_id: q })).error_type).toBe("scope");
  });

  it("the execution axis: legal moves only, terminal standings never move", async () => {
    const l = await lane(await quorum());
    expect((await err(conductor, "lane_transition", { lane_id: l, state: "done" })).error).toMatch(
      /illegal lane transition: open cannot become done/,
    );
    expect(await conductor.sc("lane_transition", { lane_id: l, state: "in_progress" })).toEqual({
      lane_id: l,
      state: "in_progress",
    });
    await conductor.sc("lane_transition", { lane_id: l, state: "failed" });
    for (const s of ["cancelled", "in_progress", "done"]) {
      expect((await err(conductor, "lane_transition", { lane_id: l, state: s })).error_type).toBe(
        "illegal_lane_transition",
      );
    }
    expect((await err(worker, "lane_transition", { lane_id: l, state: "cancelled" })).error_type).toBe(
      "requires-conductor",
    );
  });

  it("8 racing lane_transition calls from one standing: exactly one wins", async () => {
    const conductors = await Promise.all(
      Array.from({ length: 8 }, (_, i) => h.as({ principal: `c${i}`, role: "conductor", grants: [P] })),
    );
    const q = await quorum();
    for (const round of [
      { from: [] as string[], targets: Array(8).fill("in_progress") },
      { from: ["in_progress"], targets: [...Array(4).fill("done"), ...Array(4).fill("failed")] },
    ]) {
      const l = await lane(q);
      for (const s of round.from) await conductor.sc("lane_transition", { lane_id: l, state: s });
      const rs = await Promise.all(
        round.targets.map((state, i) => (conductors[i] as Agent).call("lane_transition", { lane_id: l, state })),
      );
      const wins = rs.filter((r) => !r.isError);
      expect(wins).toHaveLength(1);
      for (const r of rs.filter((x) => x.isError)) {
        expect((r.structuredContent as { error_type: string }).error_type).toBe("illegal_lane_transition");
      }
      const rows = await h.db.db.selectFrom("shampoo_lanes").selectAll().where("id", "=", l).execute();
      expect(rows[0]?.state).toBe((wins[0]?.structuredContent as { state: string } | undefined)?.state);
      expect(rows[0]?.state_version).toBe(round.from.length + 1);
    }
  });

  it("review: submit by the assignee binds a commit; verdicts are the conductor's; merge needs that commit", async () => {
    const q = await quorum('[{"kind":"client","ref":"wren"},{"kind":"client","ref":"otto"}]');
    const l = await lane(q, { assignee_client_id: "wren" });
    expect((await err(worker, "lane_review", { lane_id: l, decision: "approve" })).error_type).toBe(
      "requires-conductor",
    );
    expect((await err(outsider, "lane_review", { lane_id: l, decision: "submit", commit: "abc1234" })).error_type).toBe(
      "requires-conductor",
    );
    expect((await err(worker, "lane_review", { lane_id: l, decision: "submit" })).error).toMatch(/needs commit/);
    expect((await err(conductor, "lane_review", { lane_id: l, decision: "approve" })).error_type).toBe(
      "nothing_under_review",
    );
    expect(await worker.sc("lane_review", { lane_id: l, decision: "submit", commit: "AAA1111" })).toEqual({
      lane_id: l,
      review_state: "pending",
      review_commit: "aaa1111",
    });
    expect((await err(worker, "lane_review", { lane_id: l, decision: "submit", commit: "bbb2222" })).error_type).toBe(
      "review_closed",
    );
    await conductor.sc("lane_review", { lane_id: l, decision: "request-changes" });
    await worker.sc("lane_review", { lane_id: l, decision: "submit", commit: "bbb2222" });
    await conductor.sc("lane_review", { lane_id: l, decision: "approve" });
    // Review never moves execution: the lane is still open.
    const merge = (outcome: string, result_commit?: string) =>
      err(conductor, "lane_merge", { lane_id: l, outcome, ...(result_commit ? { result_commit } : {}) });
    expect((await merge("merged", "bbb2222")).error).toMatch(/lane not mergeable: execution is open/);
    expect((await merge("conflicted")).error_type).toBe("lane_not_mergeable");
    await conductor.sc("lane_transition", { lane_id: l, state: "in_progress" });
    await conductor.sc("lane_transition", { lane_id: l, state: "done" });
    expect((await merge("merged")).error).toMatch(/needs a result_commit/);
    // An approval for one head is not an approval for another (a force-push).
    expect((await merge("merged", "ccc3333")).error).toMatch(/approval was given for commit bbb2222/);
    expect((await merge("skipped")).error).toMatch(/done lane cannot be skipped/);
    expect(await conductor.sc("lane_merge", { lane_id: l, outcome: "merged", result_commit: "bbb2222" })).toEqual({
      lane_id: l,
      merge_state: "merged",
    });
    expect((await merge("conflicted")).error).toMatch(/already merged/);
    const [row] = (await worker.sc("lane_list", { quorum_id: q })).lanes as Record<string, unknown>[];
    expect(row).toMatchObject({
      state: "done",
      review_state: "approved",
      merge_state: "merged",
      result_commit: "bbb2222",
    });
    // Visibility: a non-participant sees neither the lane nor its quorum.
    const stranger = await h.as({ principal: "sam", grants: [P] });
    expect(await stranger.sc("lane_list", { quorum_id: q })).toEqual({ lanes: [], count: 0 });
    expect((await err(stranger, "lane_review", { lane_id: l, decision: "submit", commit: "abc1234" })).error_type).toBe(
      "unknown_lane",
    );
  });

  it("quorum_resolve racing lane_create never resolves over an open lane", async () => {
    const other = await h.as({ principal: "cody", role: "conductor", grants: [P] });
    let resolvedFirst = 0;
    let laneFirst = 0;
    for (let i = 0; i < 12; i++) {
      const q = await quorum();
      const [res, made] = await Promise.all([
        conductor.call("quorum_resolve", { quorum_id: q }),
        other.call("lane_create", { quorum_id: q }),
      ]);
      // Exactly one of the two stands: a lane under a resolved quorum, or both, never happen.
      expect(
        Boolean(res.isError) !== Boolean(made.isError),
        JSON.stringify([res.structuredContent, made.structuredContent]),
      ).toBe(true);
      if (!res.isError) {
        resolvedFirst++;
        expect((made.structuredContent as { error_type: string }).error_type).toBe("quorum_not_open");
      } else {
        laneFirst++;
        expect((res.structuredContent as { error_type: string }).error_type).toBe("quorum_has_open_lanes");
      }
      const open = await h.db.db
        .selectFrom("shampoo_lanes as l")
        .innerJoin("shampoo_quorums as q", "q.id", "l.quorum_id")
        .select("l.id")
        .where("q.status", "=", "resolved")
        .where("l.state", "in", ["open", "in_progress"])
        .execute();
      expect(open).toEqual([]);
    }
    expect(resolvedFirst + laneFirst).toBe(12);
  });
});
