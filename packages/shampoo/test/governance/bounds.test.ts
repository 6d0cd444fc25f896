import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assessedNote, factRow, factsFrom } from "../support/governance.ts";
import { uniq } from "../support/sessions.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

/**
 * Issue 23, "work one call can do" and "what the catalog says": each bound and each catalog
 * promise as a call that failed (or ran unbounded) before its fix.
 */
describe.each(DIALECTS)("governance bounds on %s", (dialect) => {
  let h: Harness;
  let a: Agent;
  let p: string;
  beforeAll(async () => {
    h = await harness(dialect);
    p = uniq("bounds");
    a = await h.as({ principal: uniq("a"), grants: [p] });
  });
  afterAll(async () => {
    await h.close();
  });

  /** A note of `n` distinct claim sentences. */
  const manyClaims = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `The ${tag} service ${i} uses store ${i}.`).join(" ");

  it("extract_candidate_claims stages at most 500 claims of a chunk and says it truncated", async () => {
    const { chunkId } = await assessedNote(a, p, "big note", manyClaims(560, "alpha"));
    const x = await a.sc("extract_candidate_claims", { chunk_ref: chunkId });
    expect(x).toMatchObject({ claims_extracted: 500, claims_found: 560, truncated: true });
    expect((x.claims as unknown[]).length).toBe(500);
  });

  it("enrich_context extracts at most 1,000 claims in one call", async () => {
    const q = uniq("enrich");
    const b = await h.as({ principal: uniq("b"), grants: [q] });
    for (let i = 0; i < 3; i++)
      await b.sc("create_task_or_note", {
        title: `note ${i}`,
        project: q,
        type: "note",
        description: manyClaims(450, `n${i}`),
      });
    const r = await b.sc("enrich_context", { depth: "standard" });
    expect(r.claims_extracted).toBe(1000);
    expect(r.claims_truncated).toBe(true);
    const n = await h.db.db
      .selectFrom("governance_claims")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("project", "=", q)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1000);
  });

  it("record_human_answer needs an open question, and bounds an answer and a chunk's answers", async () => {
    const { chunkId } = await assessedNote(a, p, "ask", "Maybe the cache is Redis, probably.");
    const none = await a.call("record_human_answer", { chunk_ref: chunkId, answer_text: "unasked" });
    expect(none.structuredContent).toMatchObject({ error_type: "invalid_state" });
    await a.sc("queue_clarification", { chunk_ref: chunkId, max_questions: 1 });
    const big = await a.call("record_human_answer", { chunk_ref: chunkId, answer_text: "x".repeat(5000) });
    expect(big.structuredContent).toEqual({
      error: "answer_text is 5000 bytes; at most 4096",
      error_type: "validation",
    });
    let refused: Record<string, unknown> | undefined;
    for (let i = 0; i < 6 && !refused; i++) {
      const r = await a.call("record_human_answer", { chunk_ref: chunkId, answer_text: `${i}`.repeat(4000) });
      if (r.isError) refused = r.structuredContent as Record<string, unknown>;
      else await a.sc("queue_clarification", { chunk_ref: chunkId, max_questions: 1 });
    }
    expect(refused?.error_type).toBe("invalid_state");
    expect(String(refused?.error)).toContain("chunk answers are full");
    const row = await h.db.db
      .selectFrom("governance_chunks")
      .select("answers_text")
      .where("chunk_id", "=", chunkId)
      .executeTakeFirstOrThrow();
    expect(Buffer.byteLength(row.answers_text)).toBeLessThanOrEqual(16_384);
  });

  it("explain_impact walks a chunk with 66,000 impact links (no unbounded IN list)", async () => {
    const { chunkId } = await assessedNote(a, p, "wide", "The gateway uses Envoy.");
    const rows = Array.from({ length: 66_000 }, (_, i) => ({
      profile: "default",
      from_kind: "chunk",
      from_id: chunkId,
      to_kind: "claim",
      to_id: `fake-claim-${i}`,
      weight: 0.5,
      rationale: "extracted from",
      created_at: "2026-11-30T12:00:00.000Z",
    }));
    for (let i = 0; i < rows.length; i += 2000)
      await h.db.db
        .insertInto("governance_impact_links")
        .values(rows.slice(i, i + 2000))
        .execute();
    const r = await a.call("explain_impact", { source_kind: "chunk", source_ref: chunkId, depth: "standard" });
    expect(r.isError, JSON.stringify(r.structuredContent).slice(0, 300)).toBeFalsy();
    expect((r.structuredContent as { total_impacts: number }).total_impacts).toBe(0);
  });

  it("list_memory_issues refuses an offset past the bound as a validation error", async () => {
    const r = await a.call("list_memory_issues", { offset: 1e300 });
    expect(r.structuredContent).toEqual({
      error: "offset must be an integer from 0 to 1000000",
      error_type: "validation",
    });
  });

  it("enrich_context at standard auto-promotes a labelled decision; the subject drops its marker", async () => {
    const q = uniq("auto");
    const c = await h.as({ principal: uniq("c"), grants: [q] });
    await c.sc("create_task_or_note", {
      title: "billing decision",
      project: q,
      type: "note",
      description: "Decision: the billing service depends on the ledger.",
    });
    const r = await c.sc("enrich_context", { depth: "standard" });
    expect(r.claims_promoted).toBe(1);
    const facts = await h.db.db.selectFrom("governance_facts").selectAll().where("project", "=", q).execute();
    expect(facts.map((f) => [f.subject, f.predicate, f.object, f.validation_mode])).toEqual([
      ["the billing service", "depends_on", "the ledger", "auto_layer1"],
    ]);
  });

  it("a claim's scope is what its own subject and object name, not any word of the note", async () => {
    const { chunkId } = await assessedNote(
      a,
      p,
      "billing",
      "The billing service uses Stripe. The export job produces a nightly CSV.",
    );
    const x = await a.sc("extract_candidate_claims", { chunk_ref: chunkId });
    const claims = x.claims as Array<{ subject: string; scope: string }>;
    expect(claims.map((k) => [k.subject, k.scope])).toEqual([
      ["The billing service", "memory"],
      ["The export job", "export"],
    ]);
  });

  it("govern_fact keeps valid time apart from transaction time", async () => {
    // The harness clock reads 2026-11-30T12:00:00Z.
    const later = (await factsFrom(a, p, "later", "The scheduler uses Cron.")).facts.Cron as string;
    await a.sc("govern_fact", { fact_id: later, action: "invalidate", effective_at: "2027-01-01T00:00:00Z" });
    expect(await factRow(h, later)).toMatchObject({ status: "live", valid_to: "2027-01-01T00:00:00.000Z" });

    const learned = (await factsFrom(a, p, "learned", "The mailer uses Postfix.")).facts.Postfix as string;
    const r = await a.call("govern_fact", {
      fact_id: learned,
      action: "invalidate",
      effective_at: "2026-11-23T00:00:00Z",
    });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    expect(await factRow(h, learned)).toMatchObject({
      status: "invalidated",
      valid_from: "0001-01-01T00:00:00.000Z",
      valid_to: "2026-11-23T00:00:00.000Z",
    });

    const dated = (await factsFrom(a, p, "dated", "The billing API uses gRPC since 2026-06-01.")).facts.gRPC as string;
    const refused = await a.call("govern_fact", {
      fact_id: dated,
      action: "invalidate",
      effective_at: "2026-01-01T00:00:00Z",
    });
    expect(refused.structuredContent).toEqual({
      error: "effective_at is before the fact's validity start (valid_from)",
      error_type: "validation",
    });
  });

  it("replay_memory stops at 4 MB of events and says it truncated", async () => {
    const t = await a.sc("create_task_or_note", { title: "big", project: p, description: "a".repeat(90_000) });
    for (let i = 0; i < 25; i++)
      await a.sc("update_task", { task_id: t.task_id, description: `${i}`.repeat(90_000).slice(0, 90_000) });
    const r = await a.sc("replay_memory", { aggregate_kind: "task", aggregate_id: t.task_id, limit: 500 });
    expect(r.truncated).toBe(true);
    expect(r.count).toBeLessThan(26);
    expect(Buffer.byteLength(JSON.stringify(r.events))).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});
