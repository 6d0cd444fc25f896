import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, harness } from "../support/shampoo.ts";
import {
  actor,
  type Cast,
  cast,
  DENIED,
  err,
  MISSING_TOPIC,
  ok,
  openTopic,
  post,
  type Sc,
  UNKNOWN_TOPIC,
  uniq,
} from "./support.ts";

/**
 * Topics and authority: the forward-only lifecycle with its Q/A gate and retirements, authority
 * from the caller's own binding only, uniform answers for outsiders, sentinel topics, one
 * active owner per role with cursors carried, compaction-bounded reads, the work queue order.
 */
describe.each(DIALECTS)("debate topics and authority on %s", (dialect) => {
  let h: Harness;
  let c: Cast;
  beforeAll(async () => {
    h = await harness(dialect);
    c = await cast(h);
  });
  afterAll(async () => {
    await h.close();
  });

  const topic = (extra: Sc = {}) =>
    openTopic(
      c,
      [
        ["PRO", c.pro],
        ["CON", c.con],
      ],
      extra,
    ).then((x) => x.topicId);
  const move = (who: typeof c.pro, t: string, role: string, new_state: string) =>
    who.call("debate_state", { topic_id: t, role, new_state }).then((r) => r.structuredContent as Sc);

  it("moves forward only, each move a compare-and-swap with its STATE message; the Q/A gate blocks RESOLVED", async () => {
    const t = await topic();
    expect(await move(c.pro, t, "PRO", "ACTIVE")).toMatchObject({
      old_state: "INIT",
      new_state: "ACTIVE",
      blocking_questions: [],
    });
    expect(await move(c.pro, t, "PRO", "INIT")).toMatchObject({
      error_type: "state_conflict",
      current_state: "ACTIVE",
    });
    expect(await move(c.pro, t, "PRO", "ACTIVE")).toMatchObject({ error_type: "state_conflict" });
    const q1 = await post(c.con, t, "CON", "Q", "why musl?");
    const q2 = await post(c.con, t, "CON", "Q", "what about CUDA?");
    const blocked = await move(c.pro, t, "PRO", "RESOLVED");
    expect(blocked).toMatchObject({
      old_state: "ACTIVE",
      new_state: "ACTIVE",
      transition_msg_id: null,
      retired_bindings: 0,
    });
    expect((blocked.blocking_questions as Sc[]).map((q) => q.msg_id)).toEqual([q1.msg_id, q2.msg_id]);
    await post(c.pro, t, "PRO", "A", "smaller images", { reply_to: q1.msg_id });
    await post(c.pro, t, "PRO", "STATUS", "[DEFERRED: CUDA later]", { reply_to: q2.msg_id });
    const resolved = await ok(c.pro, "debate_close_topic", {
      topic_id: t,
      role: "PRO",
      new_state: "RESOLVED",
      reason: "done",
    });
    expect(resolved).toMatchObject({
      old_state: "ACTIVE",
      new_state: "RESOLVED",
      body: "[STATE:ACTIVE->RESOLVED] done",
      retired_bindings: 3,
    });
    // Closed topics take no posts; the participants still read the transcript.
    expect(
      (await err(c.con, "debate_post", { topic_id: t, role: "CON", priority: "M", kind: "STATUS", body: "late" }))
        .error_type,
    ).toBe("not_found");
    const read = await ok(c.con, "debate_read", { topic_id: t, role: "CON" });
    expect((read.messages as Sc[]).map((m) => m.kind)).toEqual(["STATE", "Q", "Q", "A", "STATUS", "STATE"]);
    // The role that resolved archives; bindings are retired, never removed.
    expect(await move(c.con, t, "PRO", "ARCHIVED")).toEqual(DENIED);
    expect(await move(c.pro, t, "PRO", "ARCHIVED")).toMatchObject({ old_state: "RESOLVED", new_state: "ARCHIVED" });
    const list = await ok(c.conductor, "debate_binding_list", { topic_id: t });
    expect((list.bindings as Sc[]).map((b) => b.state)).toEqual(["retired", "retired", "retired"]);
    const events = await h.db.db
      .selectFrom("shampoo_history")
      .select("action")
      .where("entity_id", "=", t)
      .where("entity_kind", "=", "debate_topic")
      .execute();
    expect(events.map((e) => e.action)).toEqual(["create", "activate", "resolve", "archive"]);
  });

  it("a rejected mutation preserves nothing: no message, no event", async () => {
    const t = await topic();
    const count = async () =>
      Promise.all(
        (["shampoo_history", "shampoo_debate_messages", "shampoo_debate_recipients"] as const).map(async (table) =>
          Number(
            (
              await h.db.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as("n"))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ),
      );
    const before = await count();
    const bad: Sc[] = [
      { role: "PRO", priority: "M", kind: "A", body: "x", reply_to: MISSING_TOPIC },
      { role: "PRO", priority: "M", kind: "COMPACTION", body: "x" },
      { role: "PRO", priority: "M", kind: "A", body: "   " },
      { role: "PRO", priority: "M", kind: "A", body: "x", addressed_to_csv: "PRO,NOBODY" },
    ];
    for (const b of bad) {
      const tool = "addressed_to_csv" in b ? "debate_post_with_recipients" : "debate_post";
      expect((await err(c.pro, tool, { topic_id: t, ...b })).error_type).toBe("validation");
    }
    expect(await count()).toEqual(before);
  });

  it("ARCHIVED also retires diagnostic bindings", async () => {
    const t = await topic();
    await ok(c.outsider, "debate_bind_role", {
      topic_id: t,
      role: "PRO",
      session_id: c.outsider.session,
      state: "diagnostic",
    });
    expect(
      (await ok(c.pro, "debate_state", { topic_id: t, role: "PRO", new_state: "RESOLVED" })).retired_bindings,
    ).toBe(3);
    expect(
      (await ok(c.pro, "debate_state", { topic_id: t, role: "PRO", new_state: "ARCHIVED" })).retired_bindings,
    ).toBe(1);
  });

  it("authority comes from the caller's own binding: star and conductor get no exception on role ownership", async () => {
    const t = await topic();
    const args = { topic_id: t, priority: "M", kind: "STATUS", body: "x" };
    // The conductor posting as PRO, star posting as CONDUCTOR, an outsider as anything: the same bytes.
    expect(await err(c.conductor, "debate_post", { ...args, role: "PRO" })).toEqual(DENIED);
    expect(await err(c.star, "debate_post", { ...args, role: "CONDUCTOR" })).toEqual(DENIED);
    expect(await err(c.outsider, "debate_post", { ...args, role: "PRO" })).toEqual(DENIED);
    expect(await err(c.pro, "debate_post", { ...args, role: "UNDECLARED" })).toEqual(DENIED);
    expect(await err(c.pro, "debate_post", { ...args, topic_id: MISSING_TOPIC, role: "PRO" })).toEqual(DENIED);
    expect(await err(c.star, "debate_state", { topic_id: t, role: "PRO", new_state: "ACTIVE" })).toEqual(DENIED);
    expect(
      await err(c.star, "debate_set_topic_priority", { topic_id: t, role: "CONDUCTOR", lane: "P1", reason: "r" }),
    ).toMatchObject({ error_type: "requires-conductor" });
    // author_session_id must be the caller's own session, star or not.
    expect(await err(c.pro, "debate_post", { ...args, role: "PRO", author_session_id: c.con.session })).toEqual(DENIED);
    await ok(c.pro, "debate_post", { ...args, role: "PRO", author_session_id: c.pro.session });
    // Conductor action without a binding travels through the override machinery only.
    const d = await post(c.conductor, t, "CONDUCTOR", "DECISION", "con may speak for pro today");
    const via = { ...args, role: "PRO", addressed_to_csv: "CON" };
    expect(await err(c.conductor, "debate_post_with_recipients", via)).toEqual(DENIED);
    await ok(c.conductor, "debate_post_with_recipients", { ...via, conductor_override_msg_id: d.msg_id });
    expect(
      await err(c.pro, "debate_post_with_recipients", { ...via, role: "CON", conductor_override_msg_id: d.msg_id }),
    ).toEqual(DENIED);
  });

  it("outsiders get byte-identical unknown shapes: no participation, foreign project, sentinel, missing", async () => {
    const t = await topic();
    await post(c.pro, t, "PRO", "STATUS", "inside");
    const foreign = await actor(h, uniq("foreign"), uniq("other"));
    const sentinel = (
      await ok(c.conductor, "debate_init", {
        title: "legacy",
        created_by_role: "CONDUCTOR",
        metadata_json: '{"legacy_project_unset":true}',
      })
    ).topic_id as string;
    const answers = async (who: typeof c.pro, id: string) =>
      JSON.stringify([
        (await who.call("debate_read", { topic_id: id, role: "PRO" })).structuredContent,
        (await who.call("debate_search", { topic_id: id, query: "inside" })).structuredContent,
        (await who.call("debate_binding_list", { topic_id: id })).structuredContent,
        { ...((await who.call("debate_protocol_state", { topic_id: id })).structuredContent as Sc), topic_id: "" },
      ]);
    const missing = await answers(c.outsider, MISSING_TOPIC);
    expect(JSON.parse(missing)[0]).toEqual(UNKNOWN_TOPIC);
    expect(await answers(c.outsider, t)).toBe(missing);
    expect(await answers(foreign, t)).toBe(missing);
    for (const who of [c.outsider, c.conductor, c.star]) expect(await answers(who, sentinel)).toBe(missing);
    // Outsiders' work queues never list the topic.
    const q = await ok(c.outsider, "debate_work_queue", { topics_csv: `${t},not-an-id` });
    expect(q).toMatchObject({ items: [], total: 0, skipped_invalid_topic_ids: ["not-an-id"] });
  });

  it("sentinel topics deny everyone until debate_reconcile_project sets the project once", async () => {
    const s = (
      await ok(c.conductor, "debate_init", {
        title: "legacy",
        created_by_role: "CONDUCTOR",
        metadata_json: '{"legacy_project_unset":true}',
      })
    ).topic_id as string;
    expect(
      await err(c.conductor, "debate_post", {
        topic_id: s,
        role: "CONDUCTOR",
        priority: "M",
        kind: "STATUS",
        body: "x",
      }),
    ).toEqual(DENIED);
    const queue = await ok(c.conductor, "debate_work_queue", { topics_csv: s });
    expect(queue.items).toEqual([
      expect.objectContaining({ topic_id: s, reason_codes: ["sentinel_project_unreconciled"], latest_message: null }),
    ]);
    expect((await err(c.pro, "debate_reconcile_project", { topic_id: s, project: c.project })).error_type).toBe(
      "requires-conductor",
    );
    expect((await err(c.conductor, "debate_reconcile_project", { topic_id: s, project: "*" })).error_type).toBe(
      "validation",
    );
    expect(await ok(c.conductor, "debate_reconcile_project", { topic_id: s, project: c.project })).toEqual({
      topic_id: s,
      project: c.project,
      matched: 1,
    });
    const second = await err(c.conductor, "debate_reconcile_project", { topic_id: s, project: c.project });
    expect(second).toEqual(
      await err(c.conductor, "debate_reconcile_project", { topic_id: MISSING_TOPIC, project: c.project }),
    );
    await ok(c.conductor, "debate_post", {
      topic_id: s,
      role: "CONDUCTOR",
      priority: "M",
      kind: "STATUS",
      body: "reconciled",
    });
  });

  it("one active owner per role; swaps and rotations carry the cursor atomically", async () => {
    const t = await topic();
    // An owned seat is not for the taking, and no caller doubles it.
    expect(await err(c.con, "debate_bind_role", { topic_id: t, role: "PRO", session_id: c.con.session })).toEqual(
      DENIED,
    );
    expect(
      (await err(c.pro, "debate_bind_role", { topic_id: t, role: "PRO", session_id: c.pro.spare })).error_type,
    ).toBe("conflict");
    const m = await ok(c.conductor, "debate_post_with_recipients", {
      topic_id: t,
      role: "CONDUCTOR",
      priority: "H",
      kind: "DECISION",
      body: "one",
      addressed_to_csv: "PRO",
    });
    await ok(c.pro, "debate_signal_advance", {
      topic_id: t,
      role: "PRO",
      session_id: c.pro.session,
      last_processed_msg_id: m.msg_id,
    });
    const swap = await ok(c.pro, "debate_bind_role", {
      topic_id: t,
      role: "PRO",
      session_id: c.pro.spare,
      replace_active: true,
    });
    expect(swap).toMatchObject({ session_id: c.pro.spare, generation: 2, retired_sessions: 1 });
    const list = async () => (await ok(c.pro, "debate_binding_list", { topic_id: t })).bindings as Sc[];
    const active = async () => (await list()).find((b) => b.role === "PRO" && b.state === "active") as Sc;
    expect((await active()).cursor).toMatchObject({ msg_id: m.msg_id });
    // Rotations: copy carries, head jumps to the tip, replay starts over.
    const r1 = await ok(c.pro, "debate_rotate_binding", {
      topic_id: t,
      role: "PRO",
      old_session_id: c.pro.spare,
      new_session_id: c.pro.session,
      cursor_mode: "copy",
    });
    expect(r1).toMatchObject({ cursor_source: "primary", warning: null, generation: 3 });
    const r2 = await ok(c.pro, "debate_rotate_binding", {
      topic_id: t,
      role: "PRO",
      old_session_id: c.pro.session,
      new_session_id: c.pro.spare,
      cursor_mode: "replay",
    });
    expect(r2).toMatchObject({ cursor_source: null, warning: null });
    expect((await active()).cursor).toMatchObject({ msg_id: null });
    const r3 = await ok(c.pro, "debate_rotate_binding", {
      topic_id: t,
      role: "PRO",
      old_session_id: c.pro.spare,
      new_session_id: c.pro.session,
      cursor_mode: "copy",
    });
    expect(r3).toMatchObject({ cursor_source: null, warning: "copy_source_cursor_missing" });
    // Resuming after the rotation loses nothing: the inbox from the start is still there.
    expect(
      (await ok(c.pro, "debate_signal_check", { topic_id: t, role: "PRO", session_id: c.pro.session })).count,
    ).toBe(1);
    // Foreign sides deny with one shape; retired bindings stay listed as history.
    expect(
      await err(c.pro, "debate_rotate_binding", {
        topic_id: t,
        role: "PRO",
        old_session_id: c.pro.session,
        new_session_id: c.con.session,
        cursor_mode: "head",
      }),
    ).toEqual(DENIED);
    expect((await list()).filter((b) => b.role === "PRO").map((b) => b.state)).toEqual([
      "retired",
      "retired",
      "retired",
      "retired",
      "active",
    ]);
    // Session ids show only to their owner (or star).
    const seen = (await ok(c.con, "debate_binding_list", { topic_id: t })).bindings as Sc[];
    expect(seen.filter((b) => b.role === "PRO").every((b) => b.session_id === null)).toBe(true);
    expect(seen.find((b) => b.role === "CON")?.session_id).toBe(c.con.session);
  });

  it("compaction bounds reads; the history stays whole", async () => {
    const t = await topic();
    for (let i = 0; i < 5; i++) await post(c.pro, t, "PRO", "STATUS", `before ${i}`);
    expect((await err(c.pro, "debate_compact", { topic_id: t, role: "PRO", body: "OBSERVE only" })).error).toMatch(
      /missing ORIENT, DECIDE, ACT/,
    );
    const snap = await ok(c.pro, "debate_compact", {
      topic_id: t,
      role: "PRO",
      body: "## OBSERVE\na\n## ORIENT\nb\n## DECIDE\nc\n## ACT\nd",
      since_ts: "2026-11-30T00:00:00Z",
    });
    await post(c.con, t, "CON", "STATUS", "after");
    const bounded = await ok(c.con, "debate_read", { topic_id: t, role: "CON", since_latest_compaction: true });
    expect(bounded).toMatchObject({ count: 2, bootstrap_compaction_msg_id: snap.msg_id });
    expect((bounded.messages as Sc[])[0]?.body).toMatch(/^\[COMPACTION since=2026-11-30T00:00:00Z\]\n## OBSERVE/);
    const whole = await ok(c.con, "debate_read", { topic_id: t, role: "CON", limit: 3 });
    expect(whole).toMatchObject({ count: 3, truncated: true });
    const rest = await ok(c.con, "debate_read", { topic_id: t, role: "CON", since_msg_id: whole.next_msg_id_cursor });
    expect(rest).toMatchObject({ count: 4, truncated: false });
    const hits = await ok(c.con, "debate_search", { topic_id: t, query: "before", limit: 0 });
    expect(hits).toMatchObject({ count: 1, limit: 1 });
    expect(((hits.messages as Sc[])[0] as Sc).body).toBe("before 4");
    expect((await ok(c.con, "debate_search", { topic_id: t, query: "%" })).count).toBe(0);
    // Literal and case-sensitive on both engines: no wildcard, no case folding.
    for (const query of ["_", "BEFORE", "before_"]) {
      expect((await ok(c.con, "debate_search", { topic_id: t, query })).count, query).toBe(0);
    }
  });

  it("the work queue orders conductor lanes P0..P7 first, then deadlines, questions and signals", async () => {
    const t1 = await topic();
    const t2 = await topic();
    const t3 = await topic({ resolve_by: "2026-12-01T00:00:00Z" });
    const t4 = await topic();
    await post(c.pro, t4, "PRO", "Q", "open question");
    await ok(c.conductor, "debate_set_topic_priority", {
      topic_id: t2,
      role: "CONDUCTOR",
      lane: "p3",
      reason: "later",
    });
    const lane = await ok(c.conductor, "debate_set_topic_priority", {
      topic_id: t1,
      role: "CONDUCTOR",
      lane: "P0",
      reason: "now",
      next_action: "decide",
      blocked_by: "legal",
    });
    expect(lane).toMatchObject({ lane: "P0", rank: 0, reason: "now", next_action: "decide", blocked_by: "legal" });
    const q = await ok(c.conductor, "debate_work_queue", { topics_csv: [t4, t3, t2, t1].join(",") });
    expect((q.items as Sc[]).map((i) => i.topic_id)).toEqual([t1, t2, t3, t4]);
    expect((q.items as Sc[])[0]).toMatchObject({
      lane: "P0",
      next_action: "decide",
      blocked_by: "legal",
      reason_codes: ["lane_P0"],
    });
    expect((q.items as Sc[])[3]).toMatchObject({ open_questions: 1, reason_codes: ["open_questions"] });
    expect(await ok(c.conductor, "debate_work_queue", { topics_csv: [t1, t2].join(","), limit: 1 })).toMatchObject({
      count: 1,
      total: 2,
    });
    expect(
      (await err(c.conductor, "debate_set_topic_priority", { topic_id: t1, role: "PRO", lane: "P1", reason: "r" }))
        .error_type,
    ).toBe("validation");
    expect((await err(c.conductor, "debate_work_queue", { states_csv: "OPEN" })).error_type).toBe("validation");
  });

  it("debate_init: idempotent on its shape, rejects differing repeats, foreign sessions and bad rosters", async () => {
    const roles = JSON.stringify([{ role: "CONDUCTOR", session_id: c.conductor.session }]);
    const base = { title: "same", created_by_role: "CONDUCTOR", project: c.project, roles_json: roles };
    const first = await ok(c.conductor, "debate_init", base);
    const again = await ok(c.conductor, "debate_init", { ...base, topic_id: first.topic_id });
    expect(again.topic_id).toBe(first.topic_id);
    expect(
      (await err(c.conductor, "debate_init", { ...base, title: "other", topic_id: first.topic_id })).error_type,
    ).toBe("conflict");
    const foreign = JSON.stringify([{ role: "CONDUCTOR", session_id: c.pro.session }]);
    expect(await err(c.star, "debate_init", { ...base, roles_json: foreign })).toEqual(DENIED);
    expect(
      (
        await err(c.conductor, "debate_init", {
          ...base,
          roles_json: '[{"role":"EXECUTOR"}]',
          created_by_role: "EXECUTOR",
        })
      ).error_type,
    ).toBe("validation");
    expect(
      (await err(c.conductor, "debate_init", { ...base, protocol_version: "debate/v1", blind_roles_csv: "CONDUCTOR" }))
        .error_type,
    ).toBe("validation");
    expect(
      (await err(c.conductor, "debate_init", { ...base, max_rounds: 11, protocol_version: "debate/v1" })).error_type,
    ).toBe("validation");
    expect((await err(c.pro, "debate_init", { ...base, project: "not-mine", roles_json: undefined })).error_type).toBe(
      "scope",
    );
    const before = await h.db.db.selectFrom("shampoo_debate_topics").select("topic_id").execute();
    await err(c.conductor, "debate_init", {
      ...base,
      roles_json: JSON.stringify([{ role: "CONDUCTOR" }, { role: "PRO", session_id: c.pro.session }]),
    });
    expect((await h.db.db.selectFrom("shampoo_debate_topics").select("topic_id").execute()).length).toBe(before.length);
  });

  it("debate_add_role grows the roster for a conductor with its own session; escalate and watermark post as owned roles", async () => {
    const t = await topic();
    const added = await ok(c.conductor, "debate_add_role", {
      topic_id: t,
      role: "EXECUTOR_1",
      session_id: c.conductor.spare,
    });
    expect(added).toMatchObject({ added_role: true, state: "active", generation: 1 });
    expect(
      await ok(c.conductor, "debate_add_role", { topic_id: t, role: "EXECUTOR_1", session_id: c.conductor.spare }),
    ).toMatchObject({ added_role: false });
    expect(
      await err(c.conductor, "debate_add_role", { topic_id: t, role: "EXECUTOR_2", session_id: c.pro.session }),
    ).toEqual(DENIED);
    expect(
      (await err(c.pro, "debate_add_role", { topic_id: t, role: "EXECUTOR_2", session_id: c.pro.spare })).error_type,
    ).toBe("requires-conductor");
    const e = await ok(c.pro, "debate_escalate", { topic_id: t, role: "PRO", reason: "licence", target_role: "CON" });
    expect(
      (await ok(c.con, "debate_signal_check", { topic_id: t, role: "CON", session_id: c.con.session })).pending,
    ).toEqual([
      expect.objectContaining({ msg_id: e.msg_id, kind: "PING", priority: "H", body: "[ESCALATE:licence] @CON" }),
    ]);
    const w = await ok(c.con, "debate_advance_watermark", {
      topic_id: t,
      role: "CON",
      processed_up_to_msg_id: e.msg_id,
    });
    expect(w.topic_state).toBe("INIT");
    expect(
      (await ok(c.con, "debate_signal_check", { topic_id: t, role: "CON", session_id: c.con.session })).count,
    ).toBe(0);
    expect(
      await err(c.conductor, "debate_advance_watermark", {
        topic_id: t,
        role: "CON",
        processed_up_to_msg_id: e.msg_id,
      }),
    ).toEqual(DENIED);
  });
  it("every debate row points at a history event of its own write (run last: the whole database)", async () => {
    const events = new Set(
      (await h.db.db.selectFrom("shampoo_history").select("event_id").execute()).map((e) => e.event_id),
    );
    for (const table of [
      "shampoo_debate_topics",
      "shampoo_debate_bindings",
      "shampoo_debate_messages",
      "shampoo_debate_worker_claims",
      "shampoo_debate_message_claims",
      "shampoo_debate_projections",
      "shampoo_debate_verdicts",
    ] as const) {
      const rows = await h.db.db.selectFrom(table).select("last_event_id").execute();
      expect(
        rows.filter((r) => !events.has(r.last_event_id)),
        table,
      ).toEqual([]);
    }
    const kinds = await h.db.db
      .selectFrom("shampoo_history")
      .select("entity_kind")
      .where("entity_kind", "like", "debate%")
      .distinct()
      .execute();
    expect(kinds.map((k) => k.entity_kind).sort()).toEqual(
      expect.arrayContaining(["debate_binding", "debate_message", "debate_topic"]),
    );
  });
});
