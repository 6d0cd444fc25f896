import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { actor, type Cast, cast, ok, openTopic, post, type Sc, uniq, v1Topic } from "./support.ts";

/**
 * Races on PostgreSQL (row locks, READ COMMITTED): eight clients at once, one winner each time.
 * SQLite serialises writers at BEGIN IMMEDIATE, so the same rules hold there trivially.
 */
const N = 8;

describe("debate races on postgres", () => {
  let h: Harness;
  let c: Cast;
  beforeAll(async () => {
    h = await harness("postgres");
    c = await cast(h);
  });
  afterAll(async () => {
    await h.close();
  });

  /** N more clients of the same principal (its sessions and bindings are theirs too). */
  const clients = (a: Agent): Promise<Agent[]> =>
    Promise.all(Array.from({ length: N }, () => h.as({ principal: a.caller.principal, grants: [c.project] })));
  const outcome = (rs: Array<{ isError?: boolean; structuredContent?: unknown }>) => ({
    won: rs.filter((r) => !r.isError).length,
    lost: rs.filter((r) => r.isError).map((r) => (r.structuredContent as Sc).error_type),
  });

  it("eight verdicts racing on one projection: one is recorded, the rest conflict; the phase moves once", async () => {
    const t = await v1Topic(c);
    const a = await post(c.pro, t, "PRO", "CLAIM", "musl");
    const b = await post(c.con, t, "CON", "CLAIM", "glibc");
    const prep = await ok(c.conductor, "debate_judge_prepare", {
      topic_id: t,
      left_msg_id: a.msg_id,
      right_msg_id: b.msg_id,
    });
    const [ab, ba] = prep.projections as Sc[];
    const judges = await clients(c.judge);
    const race = (p: Sc | undefined) =>
      Promise.all(
        judges.map((j, i) =>
          j.call("debate_judge_verdict", {
            projection_id: p?.projection_id,
            judge_role: "JUDGE",
            verdict_json: JSON.stringify({ winner_msg_id: a.msg_id, decision: `judge ${i}` }),
          }),
        ),
      );
    const first = outcome(await race(ab));
    expect(first.won).toBe(1);
    expect(first.lost).toEqual(Array(N - 1).fill("conflict"));
    const second = outcome(await race(ba));
    expect(second.won).toBe(1);
    const state = await ok(c.conductor, "debate_protocol_state", { topic_id: t });
    expect(state).toMatchObject({ phase: "STOPPED" });
    const moves = await h.db.db
      .selectFrom("shampoo_history")
      .select("action")
      .where("entity_kind", "=", "debate_protocol")
      .where("entity_id", "=", t)
      .execute();
    expect(moves.map((m) => m.action)).toEqual(["adjudicate", "stop"]);
  });

  it("eight claims racing on one trigger: one allocation, the rest heartbeat the same worker", async () => {
    const { topicId: t } = await openTopic(c, [["PRO", c.pro]]);
    const trig = await ok(c.conductor, "debate_post_with_recipients", {
      topic_id: t,
      role: "CONDUCTOR",
      priority: "H",
      kind: "DECISION",
      body: "work",
      addressed_to_csv: "PRO",
    });
    const workers = await clients(c.pro);
    const rs = await Promise.all(
      workers.map((w) =>
        w.call("debate_worker_claim", {
          topic_id: t,
          role: "PRO",
          parent_session_id: c.pro.session,
          trigger_msg_id: trig.msg_id,
        }),
      ),
    );
    expect(outcome(rs).won).toBe(N);
    const sc = rs.map((r) => r.structuredContent as Sc);
    expect(sc.filter((r) => r.duplicate === false)).toHaveLength(1);
    expect(new Set(sc.map((r) => r.worker_session_id)).size).toBe(1);
    const rows = await h.db.db
      .selectFrom("shampoo_debate_worker_claims")
      .selectAll()
      .where("topic_id", "=", t)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it("eight receipts racing on one message: one moves the cursor, the rest are refused as regressive", async () => {
    const { topicId: t } = await openTopic(c, [["PRO", c.pro]]);
    const m = await ok(c.conductor, "debate_post_with_recipients", {
      topic_id: t,
      role: "CONDUCTOR",
      priority: "H",
      kind: "DECISION",
      body: "ack me",
      addressed_to_csv: "PRO",
    });
    const rs = await Promise.all(
      (await clients(c.pro)).map((w) =>
        w.call("debate_signal_advance", {
          topic_id: t,
          role: "PRO",
          session_id: c.pro.session,
          last_processed_msg_id: m.msg_id,
        }),
      ),
    );
    const o = outcome(rs);
    expect(o.won).toBe(1);
    expect(o.lost).toEqual(Array(N - 1).fill("invalid_state"));
    const rows = await h.db.db
      .selectFrom("shampoo_debate_recipients")
      .selectAll()
      .where("msg_id", "=", m.msg_id as string)
      .execute();
    expect(rows.map((r) => r.delivered_at !== null)).toEqual([true]);
  });

  it("eight principals racing for one open seat: one owner, the rest denied", async () => {
    const rivals = await Promise.all(Array.from({ length: N }, () => actor(h, uniq("rival"), c.project)));
    const init = await ok(c.conductor, "debate_init", {
      title: "seat",
      created_by_role: "CONDUCTOR",
      project: c.project,
      roles_json: JSON.stringify([
        { role: "CONDUCTOR", session_id: c.conductor.session },
        { role: "SEAT", session_id: null },
      ]),
    });
    const rs = await Promise.all(
      rivals.map((r) => r.call("debate_bind_role", { topic_id: init.topic_id, role: "SEAT", session_id: r.session })),
    );
    const o = outcome(rs);
    expect(o.won).toBe(1);
    expect(o.lost).toEqual(Array(N - 1).fill("not_found"));
    const active = await h.db.db
      .selectFrom("shampoo_debate_bindings")
      .selectAll()
      .where("topic_id", "=", init.topic_id as string)
      .where("role", "=", "SEAT")
      .execute();
    expect(active.map((b) => b.state)).toEqual(["active"]);
  });
});
