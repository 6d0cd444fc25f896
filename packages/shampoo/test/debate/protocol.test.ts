import { createHash } from "node:crypto";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";
import { type Actor, type Cast, cast, err, ok, post, type Sc, v1Topic } from "./support.ts";

/**
 * debate/v1 end to end, each role its own principal and MCP client: blind commitments behind a
 * verifiable barrier, the AB/BA adjudication, scripted judges, rounds and phase deadlines.
 */

type Judge = (positions: Array<{ msg_id: string; body: string }>) => string;
/** Always picks whatever is shown first: flips with the order, so the pair splits. */
const alwaysFirst: Judge = (p) => p[0]?.msg_id as string;
/** Reads the content: picks the position that argues size, whatever the order. */
const byContent: Judge = (p) => p.find((x) => x.body.includes("smaller"))?.msg_id as string;

async function adjudicate(c: Cast, topicId: string, left: string, right: string, judge: Judge): Promise<Sc> {
  const prep = await ok(c.conductor, "debate_judge_prepare", {
    topic_id: topicId,
    left_msg_id: left,
    right_msg_id: right,
  });
  const projections = prep.projections as Array<{
    projection_id: string;
    order_key: string;
    positions: Array<{ msg_id: string; body: string }>;
  }>;
  expect(projections.map((p) => p.order_key)).toEqual(["AB", "BA"]);
  expect(projections[0]?.positions.map((p) => p.msg_id)).toEqual([left, right]);
  expect(projections[1]?.positions.map((p) => p.msg_id)).toEqual([right, left]);
  let last: Sc = {};
  for (const p of projections) {
    last = await ok(c.judge, "debate_judge_verdict", {
      projection_id: p.projection_id,
      judge_role: "JUDGE",
      verdict_json: JSON.stringify({ winner_msg_id: judge(p.positions), decision: "scripted" }),
    });
  }
  return last;
}

/** Everything each actor can see of the topic through every read-shaped tool, as one string. */
async function everything(a: Actor, topicId: string, role: string): Promise<string> {
  const seen: unknown[] = [];
  for (const [tool, args] of [
    ["debate_read", { topic_id: topicId, role }],
    ["debate_read", { topic_id: topicId, role, since_latest_compaction: true }],
    ["debate_search", { topic_id: topicId, query: "musl" }],
    ["debate_search", { topic_id: topicId, query: "glibc" }],
    ["debate_protocol_state", { topic_id: topicId }],
    ["debate_binding_list", { topic_id: topicId }],
    ["debate_work_queue", {}],
  ] as const) {
    seen.push((await a.call(tool, args)).structuredContent);
  }
  const check = await a.call("debate_signal_check", { topic_id: topicId, role, session_id: a.session });
  seen.push(check.structuredContent);
  return JSON.stringify(seen);
}

describe.each(DIALECTS)("debate/v1 on %s", (dialect) => {
  let h: Harness;
  let c: Cast;
  beforeAll(async () => {
    h = await harness(dialect);
    c = await cast(h);
  });
  afterAll(async () => {
    await h.close();
  });

  it("runs to STOPPED when a content judge agrees with itself across both orders", async () => {
    const t = await v1Topic(c);
    const a = await post(c.pro, t, "PRO", "CLAIM", "musl images are smaller");
    expect(a.round_no).toBe(1);
    expect((a.protocol_state as Sc).blind_barrier_state).toBe("sealed");
    const b = await post(c.con, t, "CON", "CLAIM", "glibc is more compatible");
    expect((b.protocol_state as Sc).phase).toBe("ADJUDICATE");
    const out = await adjudicate(c, t, a.msg_id as string, b.msg_id as string, byContent);
    expect(out).toMatchObject({ complete: true, stable: true });
    expect((out.protocol_state as Sc).phase).toBe("STOPPED");
    const state = await ok(c.judge, "debate_protocol_state", { topic_id: t });
    expect(state).toMatchObject({ phase: "STOPPED", stalemate_reason: null });
    expect(state.judge_flip_rates).toEqual([{ judge_role: "JUDGE", pairs: 1, flips: 0, flip_rate: 0 }]);
  });

  it("runs to STALEMATE when an always-first judge flips with the order", async () => {
    const t = await v1Topic(c);
    const a = await post(c.pro, t, "PRO", "CLAIM", "musl images are smaller");
    const b = await post(c.con, t, "CON", "CLAIM", "glibc is more compatible");
    const first = await ok(c.conductor, "debate_judge_prepare", {
      topic_id: t,
      left_msg_id: a.msg_id,
      right_msg_id: b.msg_id,
    });
    const ab = (first.projections as Sc[])[0] as Sc;
    const half = await ok(c.judge, "debate_judge_verdict", {
      projection_id: ab.projection_id,
      judge_role: "JUDGE",
      verdict_json: JSON.stringify({ winner_msg_id: a.msg_id, decision: "scripted" }),
    });
    expect(half).toMatchObject({ complete: false, stable: null });
    const out = await adjudicate(c, t, a.msg_id as string, b.msg_id as string, alwaysFirst);
    expect(out).toMatchObject({ complete: true, stable: false });
    const state = await ok(c.conductor, "debate_protocol_state", { topic_id: t });
    expect(state).toMatchObject({ phase: "STALEMATE", stalemate_reason: "order_swap_disagreement" });
    expect(state.judge_flip_rates).toEqual([{ judge_role: "JUDGE", pairs: 1, flips: 1, flip_rate: 1 }]);
    // debate_state shows the measured flip rate too.
    const moved = await ok(c.conductor, "debate_state", { topic_id: t, role: "CONDUCTOR", new_state: "ACTIVE" });
    expect(moved.judge_flip_rates).toEqual([{ judge_role: "JUDGE", pairs: 1, flips: 1, flip_rate: 1 }]);
    // Projections and verdicts are immutable: a different verdict on a judged projection is refused.
    const again = await err(c.judge, "debate_judge_verdict", {
      projection_id: ab.projection_id,
      judge_role: "JUDGE",
      verdict_json: JSON.stringify({ winner_msg_id: b.msg_id, decision: "changed my mind" }),
    });
    expect(again.error_type).toBe("conflict");
  });

  it("keeps blind claims from everyone until both commit, then reveals verifiable commitments", async () => {
    const t = await v1Topic(c);
    const secretA = "SECRET-A: musl images are smaller";
    const secretB = "SECRET-B: glibc is more compatible";
    const a = await post(c.pro, t, "PRO", "CLAIM", secretA);
    const commitA = a.commitment as string;
    expect(commitA).toMatch(/^[0-9a-f]{64}$/);
    // One side committed: nobody (conductor, star, the author, the other side, the judge) sees it.
    const viewers: Array<[Actor, string]> = [
      [c.conductor, "CONDUCTOR"],
      [c.star, "CONDUCTOR"],
      [c.pro, "PRO"],
      [c.con, "CON"],
      [c.judge, "JUDGE"],
    ];
    for (const [who, role] of viewers) expect(await everything(who, t, role)).not.toContain("SECRET-A");
    const history = async () =>
      JSON.stringify(
        await h.db.db.selectFrom("shampoo_history").select(["old_json", "new_json", "payload_json"]).execute(),
      );
    expect(await history()).not.toContain("SECRET-A");
    const before = await ok(c.con, "debate_protocol_state", { topic_id: t });
    expect(before.blind_barrier_state).toBe("sealed");
    expect(before.commitments).toEqual([
      expect.objectContaining({ role: "PRO", msg_id: a.msg_id, commitment: commitA, revealed: false, nonce: null }),
    ]);
    // The other side commits: the barrier opens for everyone at once.
    const b = await post(c.con, t, "CON", "CLAIM", secretB);
    for (const [who, role] of viewers) {
      const all = await everything(who, t, role);
      expect(all).toContain("SECRET-A");
      expect(all).toContain("SECRET-B");
    }
    const after = await ok(c.pro, "debate_protocol_state", { topic_id: t });
    const commits = after.commitments as Array<{
      msg_id: string;
      commitment: string;
      nonce: string;
      committed_at: string;
    }>;
    const byId = new Map(commits.map((x) => [x.msg_id, x]));
    // Anyone can check: sha256(nonce:body) is what was shown while sealed, committed before the reveal.
    for (const [m, body] of [
      [a, secretA],
      [b, secretB],
    ] as const) {
      const x = byId.get(m.msg_id as string);
      expect(x?.commitment).toBe(createHash("sha256").update(`${x?.nonce}:${body}`).digest("hex"));
    }
    expect(byId.get(a.msg_id as string)?.commitment).toBe(commitA);
    const read = await ok(c.judge, "debate_read", { topic_id: t, role: "JUDGE" });
    const shown = (read.messages as Sc[]).find((m) => m.msg_id === a.msg_id) as Sc;
    expect(shown.blind).toEqual({ sealed: false, commitment: commitA, nonce: byId.get(a.msg_id as string)?.nonce });
    expect(await history()).toContain("SECRET-A"); // the reveal event, after the barrier opened
  });

  it("hides an addressed blind claim from its recipient's inbox until the barrier opens", async () => {
    const t = await v1Topic(c);
    await ok(c.pro, "debate_post_with_recipients", {
      topic_id: t,
      role: "PRO",
      priority: "M",
      kind: "CLAIM",
      body: "INBOX-SECRET musl",
      addressed_to_csv: "JUDGE,CON",
    });
    const inbox = await ok(c.con, "debate_signal_check", { topic_id: t, role: "CON", session_id: c.con.session });
    expect(inbox.count).toBe(1);
    expect(JSON.stringify(inbox)).not.toContain("INBOX-SECRET");
    const wake = await ok(c.conductor, "debate_wake_dry_run", {
      tool_response_json: JSON.stringify({
        schema_version: "debate.post/v1",
        msg_id: (inbox.pending as Sc[])[0]?.msg_id,
        topic_id: t,
      }),
    });
    expect(wake).toEqual({ targets: [], logs: ["blind_commit_waiting"], suppressed: 0, notify_targets: [] });
  });

  it("moves through rounds 1..max_rounds, resealing the barrier each round", async () => {
    const t = await v1Topic(c, 2);
    await post(c.pro, t, "PRO", "CLAIM", "round one pro");
    const r1 = await post(c.con, t, "CON", "CLAIM", "round one con");
    expect(r1.protocol_state).toMatchObject({
      phase: "ROUND",
      round_no: 2,
      blind_barrier_state: "sealed",
      revealed_round: 1,
    });
    // One position per blind role per round.
    const rebutA = await post(c.pro, t, "PRO", "REBUT", "round two pro");
    const twice = await err(c.pro, "debate_post", {
      topic_id: t,
      role: "PRO",
      priority: "M",
      kind: "REBUT",
      body: "again",
    });
    expect(twice.error_type).toBe("conflict");
    const rebutB = await post(c.con, t, "CON", "REBUT", "round two con");
    expect(rebutB.protocol_state).toMatchObject({ phase: "ADJUDICATE", round_no: 2, revealed_round: 2 });
    // Only the blind roles take positions, and only in ROUND.
    expect(
      (await err(c.judge, "debate_post", { topic_id: t, role: "JUDGE", priority: "M", kind: "CLAIM", body: "me too" }))
        .error_type,
    ).toBe("validation");
    expect(
      (await err(c.pro, "debate_post", { topic_id: t, role: "PRO", priority: "M", kind: "CLAIM", body: "late" }))
        .error_type,
    ).toBe("invalid_state");
    const out = await adjudicate(
      c,
      t,
      rebutA.msg_id as string,
      rebutB.msg_id as string,
      (p) => p.find((x) => x.body.includes("pro"))?.msg_id as string,
    );
    expect(out).toMatchObject({ stable: true });
  });

  it("enforces judge independence: no blind judge, one judge role per pair, only in ADJUDICATE", async () => {
    const t = await v1Topic(c);
    const a = await post(c.pro, t, "PRO", "CLAIM", "musl images are smaller");
    const early = await err(c.conductor, "debate_judge_prepare", {
      topic_id: t,
      left_msg_id: a.msg_id,
      right_msg_id: a.msg_id,
    });
    expect(early.error_type).toBe("validation");
    const b = await post(c.con, t, "CON", "CLAIM", "glibc");
    // The conductor prepares; a non-conductor is refused before anything runs.
    expect(
      (await err(c.judge, "debate_judge_prepare", { topic_id: t, left_msg_id: a.msg_id, right_msg_id: b.msg_id }))
        .error_type,
    ).toBe("requires-conductor");
    const same = await err(c.conductor, "debate_judge_prepare", {
      topic_id: t,
      left_msg_id: a.msg_id,
      right_msg_id: a.msg_id,
    });
    expect(same.error_type).toBe("validation");
    const prep = await ok(c.conductor, "debate_judge_prepare", {
      topic_id: t,
      left_msg_id: a.msg_id,
      right_msg_id: b.msg_id,
    });
    // Identical repeats are idempotent, differing ones conflict.
    expect(
      await ok(c.conductor, "debate_judge_prepare", { topic_id: t, left_msg_id: a.msg_id, right_msg_id: b.msg_id }),
    ).toEqual(prep);
    expect(
      (await err(c.conductor, "debate_judge_prepare", { topic_id: t, left_msg_id: b.msg_id, right_msg_id: a.msg_id }))
        .error_type,
    ).toBe("conflict");
    const [ab, ba] = prep.projections as Sc[];
    const verdict = JSON.stringify({ winner_msg_id: a.msg_id, decision: "d" });
    // A blind role cannot judge (it owns PRO: authority exists, independence does not).
    expect(
      (
        await err(c.pro, "debate_judge_verdict", {
          projection_id: ab?.projection_id,
          judge_role: "PRO",
          verdict_json: verdict,
        })
      ).error_type,
    ).toBe("validation");
    // A role the caller does not own: not-found, even for the conductor.
    expect(
      (
        await err(c.conductor, "debate_judge_verdict", {
          projection_id: ab?.projection_id,
          judge_role: "JUDGE",
          verdict_json: verdict,
        })
      ).error_type,
    ).toBe("not_found");
    await ok(c.judge, "debate_judge_verdict", {
      projection_id: ab?.projection_id,
      judge_role: "JUDGE",
      verdict_json: verdict,
    });
    // A second judge role on the same pair is refused.
    await ok(c.conductor, "debate_add_role", { topic_id: t, role: "JUDGE_2", session_id: c.conductor.spare });
    const second = await err(c.conductor, "debate_judge_verdict", {
      projection_id: ba?.projection_id,
      judge_role: "JUDGE_2",
      verdict_json: verdict,
    });
    expect(second.error).toBe("each pair admits a single judge role");
    // Stringified JSON is re-parsed like the reference client.
    const twice = await ok(c.judge, "debate_judge_verdict", {
      projection_id: ba?.projection_id,
      judge_role: "JUDGE",
      verdict_json: JSON.stringify(verdict),
    });
    expect(twice).toMatchObject({ complete: true, stable: true });
  });

  it("times out an expired phase to STALEMATE through debate_protocol_maintain", async () => {
    const t = await v1Topic(c);
    await post(c.pro, t, "PRO", "CLAIM", "musl");
    const before = await ok(c.conductor, "debate_protocol_maintain", {});
    expect((before.timed_out as Sc[]).map((x) => x.topic_id)).not.toContain(t);
    h.clock.advance(601_000);
    const out = await ok(c.conductor, "debate_protocol_maintain", {});
    expect(out.timed_out).toContainEqual({ topic_id: t, reason: "phase_timeout:ROUND" });
    expect(await ok(c.con, "debate_protocol_state", { topic_id: t })).toMatchObject({
      phase: "STALEMATE",
      stalemate_reason: "phase_timeout:ROUND",
    });
    // A run after the move finds nothing more to do for that topic.
    const again = await ok(c.conductor, "debate_protocol_maintain", {});
    expect((again.timed_out as Sc[]).map((x) => x.topic_id)).not.toContain(t);
    expect(
      (await err(c.con, "debate_post", { topic_id: t, role: "CON", priority: "M", kind: "CLAIM", body: "late" }))
        .error_type,
    ).toBe("invalid_state");
  });
});
