import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actions, factRow } from "../support/governance.ts";
import { SESSION_NOT_FOUND, uniq } from "../support/sessions.ts";
import { type Harness, harness } from "../support/shampoo.ts";

describe.each(DIALECTS)("context governance scenario on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("a chunk from assessment through claims, a human question and answer, promotion, supersession, and a handoff pack to another principal", async () => {
    const p = uniq("ops");
    const alice = await h.as({ principal: uniq("alice"), grants: [p] });
    const bob = await h.as({ principal: uniq("bob"), grants: [p] });
    const carol = await h.as({ principal: uniq("carol"), grants: [p] });

    // 1. A note becomes a chunk and is assessed: hedged, so uncertain.
    const note = await alice.sc("create_task_or_note", {
      title: "Gateway storage",
      project: p,
      type: "note",
      description:
        "We decided the gateway uses PostgreSQL since 2026-01-05. The primary store is PostgreSQL since 2026-01-05. Maybe the cache is Redis, probably.",
    });
    const a1 = await alice.sc("assess_context", { chunk_ref: note.task_id, session_id: "attribution-only" });
    expect(a1).toMatchObject({
      state: "uncertain",
      previous_state: "new",
      policy: "clarify",
      should_skip: false,
      skip_reason: null,
    });
    expect((a1.signals_detected as Array<{ kind: string }>).map((s) => s.kind)).toEqual(["decision", "hedge", "time"]);
    expect(a1.annotations_created).toBe(3);
    const chunk = a1.chunk_id as string;
    expect(await actions(alice, "chunk", chunk)).toEqual(["materialize", "assess"]);

    // 2. Claims: subject–predicate–object–scope, needing a human while the chunk is uncertain.
    const x = await alice.sc("extract_candidate_claims", { chunk_ref: chunk });
    expect(x).toMatchObject({ chunk_id: chunk, claims_extracted: 3, scope: "memory" });
    const claims = x.claims as Array<Record<string, unknown>>;
    expect(claims.map((c) => [c.subject, c.predicate, c.object, c.requires_human])).toEqual([
      ["the gateway", "uses", "PostgreSQL", true],
      ["The primary store", "is", "PostgreSQL", true],
      ["the cache", "is", "Redis", true],
    ]);
    for (const c of claims) expect(await actions(alice, "claim", c.claim_id as string)).toEqual(["create"]);

    // 3. A human question, then its answer: awaiting_human, then enrichable again with a new hash.
    const q = await alice.sc("queue_clarification", { chunk_ref: chunk, max_questions: 2 });
    expect(q.state).toBe("awaiting_human");
    const qs = q.questions as Array<{ id: string; type: string }>;
    expect(qs.map((x) => x.type)).toEqual(["scope", "time"]);
    expect(q.awaiting_human_block).toMatch(/^\[AWAITING_HUMAN\]\n1\. \[scope · medium\]/);
    expect(await actions(alice, "question", qs[0]?.id as string)).toEqual(["create"]);
    expect(await actions(alice, "chunk", chunk)).toEqual(["materialize", "assess", "queue"]);
    const skip = await alice.sc("assess_context", { chunk_ref: chunk });
    expect(skip).toMatchObject({ state: "awaiting_human", should_skip: true, skip_reason: "awaiting_human_unchanged" });
    const ans = await alice.sc("record_human_answer", {
      chunk_ref: chunk,
      answer_text: "It applies to the EU gateway; the cache is Redis.",
    });
    expect(ans).toEqual({
      chunk_id: chunk,
      new_state: "enrichable",
      previous_state: "awaiting_human",
      questions_resolved: 2,
      source_hash_updated: true,
    });
    expect(await actions(alice, "question", qs[0]?.id as string)).toEqual(["create", "answer"]);
    expect(await actions(alice, "chunk", chunk)).toEqual(["materialize", "assess", "queue", "answer"]);

    // 4. Promotion: human-confirmed goes through; multi_evidence with one entry is refused as data.
    const blocked = await alice.sc("promote_candidate", { claim_id: claims[2]?.claim_id, mode: "multi_evidence" });
    expect(blocked).toEqual({ claim_id: claims[2]?.claim_id, promoted: false, reason: "insufficient_evidence" });
    const pg = await alice.sc("promote_candidate", { claim_id: claims[1]?.claim_id });
    expect(pg).toMatchObject({
      promoted: true,
      subject: "The primary store",
      predicate: "is",
      object: "PostgreSQL",
      validation_mode: "human_confirmed",
      reused_existing_fact: false,
    });
    const f1 = pg.fact_id as string;
    expect(await actions(alice, "fact", f1)).toEqual(["create"]);
    expect(await actions(alice, "claim", claims[1]?.claim_id as string)).toEqual(["create", "promote"]);
    const again = await alice.call("promote_candidate", { claim_id: claims[1]?.claim_id });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toMatchObject({
      error: "claim is promoted; only candidate claims can be promoted",
    });

    // 5. Supersession: the note changes, the new value contradicts structurally, then supersedes.
    await alice.sc("update_task", {
      task_id: note.task_id,
      description: "We decided the primary store is MySQL since 2026-03-01.",
    });
    const a2 = await alice.sc("assess_context", { chunk_ref: chunk });
    expect(a2).toMatchObject({ state: "enrichable", previous_state: "enrichable" });
    expect(await actions(alice, "chunk", chunk)).toEqual([
      "materialize",
      "assess",
      "queue",
      "answer",
      "resync",
      "assess",
    ]);
    const x2 = await alice.sc("extract_candidate_claims", { chunk_ref: chunk });
    const mysqlClaim = (x2.claims as Array<Record<string, unknown>>).find((c) => c.object === "MySQL");
    const my = await alice.sc("promote_candidate", { claim_id: mysqlClaim?.claim_id });
    const f2 = my.fact_id as string;
    expect((await factRow(h, f1)).contradiction_count).toBe(1);
    expect((await factRow(h, f2)).contradiction_count).toBe(1);
    const g = await alice.sc("govern_fact", {
      fact_id: f1,
      action: "supersede",
      target_fact_id: f2,
      rationale: "moved to MySQL",
      effective_at: "2026-03-01T00:00:00Z",
    });
    expect(g).toEqual({
      fact_id: f1,
      action: "supersede",
      target_fact_id: f2,
      effective_at: "2026-03-01T00:00:00.000Z",
      changed: true,
    });
    expect(await actions(alice, "fact", f1)).toEqual([
      "create",
      "contradict",
      "refresh_contradictions",
      "supersede",
      "refresh_contradictions",
    ]);
    expect(await factRow(h, f1)).toMatchObject({
      status: "superseded",
      superseded_by: f2,
      valid_to: "2026-03-01T00:00:00.000Z",
      contradiction_count: 0,
    });
    expect((await factRow(h, f2)).contradiction_count).toBe(0);

    // 6. A handoff pack to another principal: carol still reads "session not found".
    const { session_id: sid } = await alice.sc("session_save", {
      project: p,
      summary: "Storage moved to MySQL; check the cache question.",
    });
    await alice.sc("queue_clarification", { chunk_ref: chunk, max_questions: 1 });
    expect((await bob.call("resume_context", { session_id: sid })).structuredContent).toEqual(SESSION_NOT_FOUND);
    expect(
      (await bob.call("session_save", { session_id: sid, handoff_to: bob.caller.principal })).structuredContent,
    ).toEqual(SESSION_NOT_FOUND);
    expect(await alice.sc("session_save", { session_id: sid, handoff_to: bob.caller.principal })).toEqual({
      action: "updated",
      session_id: sid,
    });
    expect(await actions(alice, "session", sid as string)).toEqual(["create", "handoff"]);
    const r = await bob.sc("resume_context", { session_id: sid });
    const body = (r.pack as { body: string }).body;
    expect(body).toContain("Storage moved to MySQL; check the cache question.");
    expect(body).toContain("## Open questions\n- [scope · medium]");
    expect(body).toContain("## Awaiting human input\n- Gateway storage");
    expect(body).toContain("the primary store is MySQL [live,");
    expect(body).toContain(`The primary store is PostgreSQL [superseded,`);
    expect(body).toContain('update "Gateway storage" (task ');
    expect(body).toMatch(/— description: "We decided the gateway uses .* → "We decided the primary store is MySQL/);
    expect(body).toMatch(
      /create "Gateway storage" \(task [^)]+\) — priority "medium", section "inbox", status "not_started"\n/,
    );
    expect((r.open_questions as unknown[]).length).toBe(1);
    expect((r.chunks_awaiting_human as Array<{ chunk_id: string }>).map((c) => c.chunk_id)).toEqual([chunk]);
    expect((r.changed_facts_since_last_session as Array<{ fact_id: string }>).map((f) => f.fact_id).sort()).toEqual(
      [f1, f2].sort(),
    );
    expect((await carol.call("resume_context", { session_id: sid })).structuredContent).toEqual(SESSION_NOT_FOUND);
    expect((await bob.sc("close_session", { session_id: sid })).matched).toBe(0); // closing stays the owner's
    const pack = await bob.sc("build_context_pack", { pack_type: "handoff", session_id: sid });
    expect(pack).toMatchObject({ persisted: true, pack_type: "handoff", token_budget: 4000 });
    expect(await actions(bob, "context_pack", pack.pack_id as string)).toEqual(["create"]);
  });
});
