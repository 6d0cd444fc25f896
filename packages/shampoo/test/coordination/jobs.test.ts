import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

const P = "jobs-ops";

describe.each(DIALECTS)("coordination: jobs on %s", (dialect) => {
  let h: Harness;
  let conductor: Agent;
  let ann: Agent;
  let ben: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    conductor = await h.as({ principal: "cora", role: "conductor", grants: [P, ""] });
    ann = await h.as({ principal: "ann", grants: [P] });
    ben = await h.as({ principal: "ben", grants: [P] });
  });
  afterAll(async () => {
    await h.close();
  });

  const err = async (a: Agent, tool: string, args: Record<string, unknown>) => {
    const r = await a.call(tool, args);
    expect(r.isError, `${tool} ${JSON.stringify(r.structuredContent)}`).toBe(true);
    return r.structuredContent as { error: string; error_type: string };
  };
  let n = 0;
  /** A fresh kind per test, so claims never pick another test's jobs. */
  const newJob = async (extra: Record<string, unknown> = {}) => {
    const kind = `k${++n}`;
    const r = await conductor.sc("job_create", { kind, project: P, payload: '{"n":1}', ...extra });
    return { kind, id: r.job_id as string };
  };
  const jobRow = (id: string) => h.db.db.selectFrom("shampoo_jobs").selectAll().where("id", "=", id).executeTakeFirst();

  it("job_create: conductor with an explicit grant; untagged needs the empty-string grant; star never", async () => {
    const r = await conductor.sc("job_create", { kind: "delivery", project: P });
    expect(r).toEqual({ job_id: expect.any(String), state: "queued" });
    expect((await err(ann, "job_create", { kind: "x", project: P })).error_type).toBe("requires-conductor");
    const star = await h.as({ principal: "stella", role: "conductor", grants: ["*"] });
    expect((await err(star, "job_create", { kind: "x", project: P })).error).toMatch(/outside client scope/);
    expect((await err(star, "job_create", { kind: "x" })).error).toMatch(/outside client scope/);
    expect(await conductor.sc("job_create", { kind: "x" })).toMatchObject({ state: "queued" });
    expect(
      (await err(conductor, "job_create", { kind: "x", lane_id: "00000000-0000-4000-8000-000000000000" })).error,
    ).toBe("lane not found");
  });

  it("a job on a lane inherits the lane's quorum project; another project is refused", async () => {
    const q = (await conductor.sc("quorum_create", { project: P })).quorum_id as string;
    const lane = (await conductor.sc("lane_create", { quorum_id: q })).lane_id as string;
    const j = (await conductor.sc("job_create", { kind: "lane-job", lane_id: lane })).job_id as string;
    expect(await jobRow(j)).toMatchObject({ project: P, lane_id: lane });
    expect((await err(conductor, "job_create", { kind: "x", lane_id: lane, project: "other" })).error).toMatch(
      /does not match/,
    );
  });

  it("claim → complete; replay is idempotent; another outcome is refused; claimed:false when nothing fits", async () => {
    const { kind, id } = await newJob();
    const c = await ann.sc("job_claim", { kind, lease_seconds: 60 });
    expect(c).toEqual({
      claimed: true,
      job_id: id,
      kind,
      payload: '{"n":1}',
      lease_until: new Date(h.clock.now() + 60_000).toISOString(),
      attempts: 1,
      reclaimed: false,
      fence: 1,
    });
    expect(await ben.sc("job_claim", { kind })).toEqual({ claimed: false });
    expect((await err(ben, "job_complete", { job_id: id, outcome: "completed" })).error_type).toBe("lease_lost");
    expect(await ann.sc("job_complete", { job_id: id, outcome: "completed", fence: 1, result_ref: "r1" })).toEqual({
      job_id: id,
      state: "completed",
    });
    expect(await ann.sc("job_complete", { job_id: id, outcome: "completed", fence: 1 })).toEqual({
      job_id: id,
      state: "completed",
      idempotent: true,
    });
    expect((await err(ann, "job_complete", { job_id: id, outcome: "failed" })).error_type).toBe("job_already_terminal");
    expect((await err(ann, "job_release", { job_id: id })).error).toMatch(/job is not claimed/);
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select("action")
      .where("entity_id", "=", id)
      .orderBy("seq")
      .execute();
    expect(events.map((e) => e.action)).toEqual(["create", "claim", "complete"]);
  });

  it("out-of-scope jobs read as job not found and are never claimed", async () => {
    const { kind, id } = await newJob();
    const foreign = await h.as({ principal: "fay", grants: ["elsewhere"] });
    expect(await foreign.sc("job_claim", { kind })).toEqual({ claimed: false });
    expect((await err(foreign, "job_complete", { job_id: id, outcome: "completed" })).error).toBe("job not found");
    expect((await err(foreign, "job_release", { job_id: id })).error).toBe("job not found");
    expect((await err(foreign, "job_release", { job_id: "nope" })).error).toBe("job not found");
  });

  it("an expired lease is taken over (reclaimed), and the old holder is fenced out", async () => {
    const { kind, id } = await newJob();
    await ann.sc("job_claim", { kind, lease_seconds: 10 });
    h.clock.advance(10_000); // the lease ends when its time ends
    expect((await err(ann, "job_complete", { job_id: id, outcome: "completed", fence: 1 })).error_type).toBe(
      "lease_expired",
    );
    const taken = await ben.sc("job_claim", { kind, lease_seconds: 10 });
    expect(taken).toMatchObject({ claimed: true, job_id: id, attempts: 2, reclaimed: true, fence: 2 });
    // The first holder can neither complete nor release what the second holds.
    expect((await err(ann, "job_complete", { job_id: id, outcome: "completed", fence: 1 })).error_type).toBe(
      "lease_lost",
    );
    expect((await err(ann, "job_complete", { job_id: id, outcome: "completed" })).error_type).toBe("lease_lost");
    expect((await err(ann, "job_release", { job_id: id, fence: 1 })).error_type).toBe("lease_lost");
    expect(await ben.sc("job_complete", { job_id: id, outcome: "completed", fence: 2 })).toMatchObject({
      state: "completed",
    });
    // Nor can it claim a replay of the completion it never made.
    expect((await err(ann, "job_complete", { job_id: id, outcome: "completed", fence: 1 })).error_type).toBe(
      "lease_lost",
    );
    expect(await jobRow(id)).toMatchObject({ state: "completed", completed_by: "ben", reclaimed: 1, attempts: 2 });
  });

  it("release keeps attempts; the conductor may complete a job someone else holds", async () => {
    const { kind, id } = await newJob();
    await ann.sc("job_claim", { kind });
    expect(await ann.sc("job_release", { job_id: id, fence: 1 })).toEqual({ job_id: id, state: "queued" });
    expect(await jobRow(id)).toMatchObject({ state: "queued", owner: null, attempts: 1 });
    expect(await ben.sc("job_claim", { kind })).toMatchObject({ attempts: 2, reclaimed: false, fence: 2 });
    expect(await conductor.sc("job_complete", { job_id: id, outcome: "failed" })).toEqual({
      job_id: id,
      state: "failed",
    });
  });

  it("attempts are bounded at 5: past them the job stays, as failed", async () => {
    const { kind, id } = await newJob();
    for (let i = 1; i <= 5; i++) {
      expect(await ann.sc("job_claim", { kind, lease_seconds: 1 })).toMatchObject({ attempts: i });
      h.clock.advance(1_000);
    }
    expect(await ben.sc("job_claim", { kind })).toEqual({ claimed: false });
    expect(await jobRow(id)).toMatchObject({ state: "failed", attempts: 5 });
  });

  it("lease_seconds outside 1..3600 and unknown arguments are refused", async () => {
    for (const lease_seconds of [0, 3601]) {
      expect((await err(ann, "job_claim", { lease_seconds })).error_type).toBe("validation");
    }
    expect((await err(ann, "job_claim", { nope: 1 })).error).toMatch(/Unknown argument: nope/);
  });
});
