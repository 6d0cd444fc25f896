import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";
import { type Cast, cast, DENIED, err, ok, openTopic, post, type Sc } from "./support.ts";

/**
 * Private delivery: addressed posts reach only their recipients; checking never consumes, only a
 * receipt does (monotonic, addressed, at most once); workers receive through fenced claims.
 */
describe.each(DIALECTS)("debate delivery on %s", (dialect) => {
  let h: Harness;
  let c: Cast;
  beforeAll(async () => {
    h = await harness(dialect);
    c = await cast(h);
  });
  afterAll(async () => {
    await h.close();
  });

  const topic = () =>
    openTopic(c, [
      ["PRO", c.pro],
      ["CON", c.con],
    ]).then((x) => x.topicId);
  const addressed = (t: string, to: string, body: string, extra: Sc = {}) =>
    ok(c.conductor, "debate_post_with_recipients", {
      topic_id: t,
      role: "CONDUCTOR",
      priority: "H",
      kind: "DECISION",
      body,
      addressed_to_csv: to,
      ...extra,
    });
  const check = (who: typeof c.pro, t: string, role: string, extra: Sc = {}) =>
    ok(who, "debate_signal_check", { topic_id: t, role, session_id: who.session, ...extra });
  const receipt = (who: typeof c.pro, t: string, role: string, msg: unknown, session = who.session) =>
    who.call("debate_signal_advance", { topic_id: t, role, session_id: session, last_processed_msg_id: msg });

  it("addressed posts reach only their recipients; the transcript stays topic-wide", async () => {
    const t = await topic();
    const m = await addressed(t, "PRO", "for pro only");
    expect((await check(c.pro, t, "PRO")).pending).toEqual([
      expect.objectContaining({ msg_id: m.msg_id, body: "for pro only" }),
    ]);
    expect(await check(c.con, t, "CON")).toMatchObject({
      count: 0,
      pending: [],
      next_cursor: null,
      max_priority: null,
    });
    const read = await ok(c.con, "debate_read", { topic_id: t, role: "CON" });
    expect((read.messages as Sc[]).map((x) => x.msg_id)).toContain(m.msg_id);
    // A session id as recipient: only that session's inbox.
    const s = await addressed(t, c.con.session, "for con's session");
    expect((await check(c.con, t, "CON")).pending).toEqual([expect.objectContaining({ msg_id: s.msg_id })]);
    expect((await check(c.pro, t, "PRO")).count).toBe(1);
    // Empty recipient lists and unknown recipients are rejected; nothing is preserved.
    expect(
      (
        await err(c.conductor, "debate_post_with_recipients", {
          topic_id: t,
          role: "CONDUCTOR",
          priority: "H",
          kind: "A",
          body: "x",
          addressed_to_csv: " , ",
        })
      ).error_type,
    ).toBe("validation");
    expect(
      (
        await err(c.conductor, "debate_post_with_recipients", {
          topic_id: t,
          role: "CONDUCTOR",
          priority: "H",
          kind: "A",
          body: "x",
          addressed_to_csv: "NOBODY",
        })
      ).error_type,
    ).toBe("validation");
  });

  it("checking never consumes: a crash between check and receipt delivers again; the receipt consumes once", async () => {
    const t = await topic();
    const m1 = await addressed(t, "PRO", "one");
    const m2 = await addressed(t, "PRO", "two");
    const first = await check(c.pro, t, "PRO");
    expect(first).toMatchObject({ count: 2, truncated: false, max_priority: "H", next_cursor: { msg_id: m2.msg_id } });
    // The worker "crashes" here: no receipt. The next check delivers the same again.
    const again = await check(c.pro, t, "PRO");
    expect(again.pending).toEqual(first.pending);
    const limited = await check(c.pro, t, "PRO", { limit: 1 });
    expect(limited).toMatchObject({ count: 1, truncated: true, next_cursor: { msg_id: m1.msg_id } });
    const r = await receipt(c.pro, t, "PRO", m1.msg_id);
    expect(r.structuredContent).toMatchObject({ last_processed_msg_id: m1.msg_id, worker_claim: null });
    expect((await check(c.pro, t, "PRO")).pending).toEqual([expect.objectContaining({ msg_id: m2.msg_id })]);
    // Receipts are monotonic: never back, never the same twice (at most once per recipient).
    expect((await receipt(c.pro, t, "PRO", m1.msg_id)).structuredContent).toMatchObject({
      error_type: "invalid_state",
    });
    await ok(c.pro, "debate_signal_advance", {
      topic_id: t,
      role: "PRO",
      session_id: c.pro.session,
      last_processed_msg_id: m2.msg_id,
    });
    expect((await check(c.pro, t, "PRO")).count).toBe(0);
    const rows = await h.db.db
      .selectFrom("shampoo_debate_recipients")
      .selectAll()
      .where("topic_id", "=", t)
      .where("recipient", "=", "PRO")
      .execute();
    expect(rows.map((x) => [x.seen_count >= 2, x.delivered_at !== null])).toEqual([
      [true, true],
      [true, true],
    ]);
    // An explicit cursor reads history again without consuming or moving anything.
    expect((await check(c.pro, t, "PRO", { since_ts: "2000-01-01T00:00:00Z" })).count).toBe(2);
  });

  it("resuming after a restart loses nothing: a new server on the same database delivers what waits", async () => {
    const t = await topic();
    await post(c.pro, t, "PRO", "STATUS", "before the restart");
    const m = await addressed(t, "PRO", "waiting for pro");
    await check(c.pro, t, "PRO"); // checked, never receipted: the crash
    const h2 = await harness(dialect, { db: h.db });
    const pro2 = await h2.as({ principal: c.pro.caller.principal, grants: [c.project] });
    try {
      const inbox = await ok(pro2, "debate_signal_check", { topic_id: t, role: "PRO", session_id: c.pro.session });
      expect((inbox.pending as Sc[]).map((x) => x.msg_id)).toEqual([m.msg_id]);
      const read = await ok(pro2, "debate_read", { topic_id: t, role: "PRO" });
      expect((read.messages as Sc[]).map((x) => x.body)).toEqual(["before the restart", "waiting for pro"]);
      await ok(pro2, "debate_signal_advance", {
        topic_id: t,
        role: "PRO",
        session_id: c.pro.session,
        last_processed_msg_id: m.msg_id,
      });
      expect((await check(c.pro, t, "PRO")).count).toBe(0);
    } finally {
      await pro2.client.close();
    }
  });

  it("receipts name only messages addressed to the caller", async () => {
    const t = await topic();
    const forCon = await addressed(t, "CON", "con's");
    const broadcast = await post(c.conductor, t, "CONDUCTOR", "STATUS", "everyone");
    for (const m of [forCon, broadcast]) {
      expect((await receipt(c.pro, t, "PRO", m.msg_id)).structuredContent).toMatchObject({ error_type: "validation" });
    }
    expect((await check(c.con, t, "CON")).count).toBe(1);
  });

  it("knowing a session id never enrolls or receives: foreign sessions answer not-found", async () => {
    const t = await topic();
    await addressed(t, "PRO", "private");
    for (const who of [c.con, c.conductor, c.star, c.outsider]) {
      expect(
        (await who.call("debate_signal_check", { topic_id: t, role: "PRO", session_id: c.pro.session }))
          .structuredContent,
      ).toEqual(DENIED);
      expect(
        (await who.call("debate_bind_role", { topic_id: t, role: "PRO", session_id: c.pro.session })).structuredContent,
      ).toEqual(DENIED);
    }
  });

  it("worker claims: one per trigger on a fenced lease; the receipt completes; stale recovery never moves the parent cursor; two requeues then exhausted", async () => {
    const t = await topic();
    const trig = await addressed(t, "PRO", "do the work");
    const args = { topic_id: t, role: "PRO", parent_session_id: c.pro.session, trigger_msg_id: trig.msg_id };
    const claim = await ok(c.pro, "debate_worker_claim", args);
    expect(claim).toMatchObject({ state: "active", generation: 1, duplicate: false, no_action: false });
    const dup = await ok(c.pro, "debate_worker_claim", args);
    expect(dup).toMatchObject({
      state: "active",
      generation: 1,
      duplicate: true,
      worker_session_id: claim.worker_session_id,
    });
    // Nobody else claims through the parent: foreign parents answer not-found.
    expect(await err(c.con, "debate_worker_claim", args)).toEqual(DENIED);
    // The worker sees the parent's inbox through its own session.
    const inbox = await ok(c.pro, "debate_signal_check", {
      topic_id: t,
      role: "PRO",
      session_id: claim.worker_session_id,
    });
    expect((inbox.pending as Sc[]).map((m) => m.msg_id)).toEqual([trig.msg_id]);
    // The worker dies: after the lease and the minimum age, recovery retires the claim.
    h.clock.advance(130_000);
    const rec = await ok(c.pro, "debate_worker_recover_stale", {
      topic_id: t,
      older_than_ts: new Date(h.clock.now()).toISOString(),
    });
    expect(rec.recovered).toEqual([
      expect.objectContaining({ outcome: "retired", generation: 1, parent_trigger_still_pending: true }),
    ]);
    const parent = await ok(c.pro, "debate_binding_list", { topic_id: t });
    expect((parent.bindings as Sc[]).find((b) => b.role === "PRO")?.cursor).toMatchObject({ msg_id: null });
    // The stale worker's receipt is refused and moves nothing.
    expect((await receipt(c.pro, t, "PRO", trig.msg_id, claim.worker_session_id as string)).structuredContent).toEqual(
      DENIED,
    );
    // Requeue: a new generation, a new worker session.
    const g2 = await ok(c.pro, "debate_worker_claim", args);
    expect(g2).toMatchObject({ state: "active", generation: 2, requeues: 1, duplicate: false });
    expect(g2.worker_session_id).not.toBe(claim.worker_session_id);
    h.clock.advance(130_000);
    await ok(c.pro, "debate_worker_recover_stale", {
      topic_id: t,
      older_than_ts: new Date(h.clock.now()).toISOString(),
    });
    const g3 = await ok(c.pro, "debate_worker_claim", args);
    expect(g3).toMatchObject({ generation: 3, requeues: 2 });
    // Generation 3 completes through its receipt: the claim is done and the parent cursor moves.
    const done = await receipt(c.pro, t, "PRO", trig.msg_id, g3.worker_session_id as string);
    expect(done.structuredContent).toMatchObject({
      last_processed_msg_id: trig.msg_id,
      worker_claim: { state: "completed", generation: 3 },
    });
    expect(await ok(c.pro, "debate_worker_claim", args)).toMatchObject({ state: "completed", no_action: true });
    // A second trigger exhausts after two requeues.
    const t2 = await addressed(t, "PRO", "never finished");
    const a2 = { ...args, trigger_msg_id: t2.msg_id };
    for (let i = 0; i < 3; i++) {
      await ok(c.pro, "debate_worker_claim", a2);
      h.clock.advance(130_000);
      await ok(c.pro, "debate_worker_recover_stale", {
        topic_id: t,
        older_than_ts: new Date(h.clock.now()).toISOString(),
      });
    }
    expect(await ok(c.pro, "debate_worker_claim", a2)).toMatchObject({
      state: "exhausted",
      no_action: true,
      requeues: 2,
    });
  });

  it("a terminal reply completes a stale claim instead of retiring it; implementation triggers fail closed", async () => {
    const t = await topic();
    const trig = await addressed(t, "PRO", "answer me");
    const args = { topic_id: t, role: "PRO", parent_session_id: c.pro.session, trigger_msg_id: trig.msg_id };
    await ok(c.pro, "debate_worker_claim", args);
    await post(c.pro, t, "PRO", "A", "answered", { reply_to: trig.msg_id });
    h.clock.advance(130_000);
    const rec = await ok(c.pro, "debate_worker_recover_stale", {
      topic_id: t,
      older_than_ts: new Date(h.clock.now()).toISOString(),
    });
    expect(rec).toMatchObject({ recovered_count: 1, completed_count: 1 });
    const impl = await addressed(t, "PRO", "build it", { vehicle: "implementation" });
    const refused = await err(c.pro, "debate_worker_claim", { ...args, trigger_msg_id: impl.msg_id });
    expect(refused.error_type).toBe("invalid_state");
    const wake = await ok(c.conductor, "debate_wake_dry_run", {
      tool_response_json: JSON.stringify({ schema_version: "debate.post/v1", msg_id: impl.msg_id, topic_id: t }),
    });
    expect(wake).toMatchObject({ targets: [], notify_targets: [{ role: "CONDUCTOR" }] });
  });

  it("one-shot DECISIONs: checking claims them, the sweep reclaims or completes them", async () => {
    const t = await topic();
    const d = await addressed(t, "PRO", "one shot", { standing: false });
    await check(c.pro, t, "PRO");
    h.clock.advance(61_000);
    const cutoff = new Date(h.clock.now()).toISOString();
    // Only the owner's claims move: the conductor's sweep finds none of PRO's.
    expect(await ok(c.conductor, "debate_message_claim_reclaim", { topic_id: t, older_than_ts: cutoff })).toMatchObject(
      { reclaimed_count: 0 },
    );
    const r = await ok(c.pro, "debate_message_claim_reclaim", { topic_id: t, older_than_ts: cutoff });
    expect(r.reclaimed).toEqual([expect.objectContaining({ msg_id: d.msg_id, outcome: "reclaimed" })]);
    await check(c.pro, t, "PRO"); // claimed again
    await post(c.pro, t, "PRO", "A", "done", { reply_to: d.msg_id });
    h.clock.advance(61_000);
    const r2 = await ok(c.pro, "debate_message_claim_reclaim", {
      topic_id: t,
      older_than_ts: new Date(h.clock.now()).toISOString(),
    });
    expect(r2.reclaimed).toEqual([expect.objectContaining({ msg_id: d.msg_id, outcome: "done" })]);
  });

  it("wake dry run: targets the unreceipted recipients, suppresses the rest, fails closed on non-objects", async () => {
    const t = await topic();
    const m = await addressed(t, "PRO,CON", "wake up");
    const json = JSON.stringify({ schema_version: "debate.post/v1", msg_id: m.msg_id, topic_id: t });
    const w1 = await ok(c.conductor, "debate_wake_dry_run", { tool_response_json: json });
    expect((w1.targets as Sc[]).map((x) => x.role).sort()).toEqual(["CON", "PRO"]);
    await receipt(c.pro, t, "PRO", m.msg_id);
    const w2 = await ok(c.conductor, "debate_wake_dry_run", { tool_response_json: json });
    expect(w2).toMatchObject({ targets: [{ role: "CON" }], suppressed: 1 });
    expect(
      await ok(c.conductor, "debate_wake_dry_run", { tool_response_json: '{"schema_version":"v0"}' }),
    ).toMatchObject({ logs: ["schema_mismatch"] });
    expect((await err(c.conductor, "debate_wake_dry_run", { tool_response_json: "[1]" })).error_type).toBe(
      "validation",
    );
    expect(await err(c.outsider, "debate_wake_dry_run", { tool_response_json: json })).toEqual({
      error: "unknown_topic",
      error_type: "unknown_topic",
    });
  });
});
