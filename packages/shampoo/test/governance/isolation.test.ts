import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { factsFrom } from "../support/governance.ts";
import { uniq } from "../support/sessions.ts";
import { type Harness, harness } from "../support/shampoo.ts";

/**
 * Issue 23, "writes and reads across projects": each hole as a scenario that failed before its
 * fix. Nothing a caller writes lands in a project the caller cannot write, and no read shows
 * what the reader could not read when it was written.
 */
describe.each(DIALECTS)("governance isolation across projects on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  const projectsOf = async (table: "governance_questions" | "governance_claims", chunk: string) =>
    (await h.db.db.selectFrom(table).select("project").where("chunk_id", "=", chunk).execute()).map((r) => r.project);

  it("a chunk follows its task's move: the old project's caller loses it, the new one acts under the new project", async () => {
    const pa = uniq("pa");
    const pb = uniq("pb");
    const a = await h.as({ principal: uniq("a"), grants: [pa] });
    const b = await h.as({ principal: uniq("b"), grants: [pb] });
    const mover = await h.as({ principal: uniq("mover"), grants: [pa, pb] });
    const note = await a.sc("create_task_or_note", {
      title: "Billing storage",
      project: pa,
      type: "note",
      description: "We decided the billing service uses PostgreSQL. Maybe the cache is Redis, probably.",
    });
    const chunk = (await a.sc("assess_context", { chunk_ref: note.task_id })).chunk_id as string;
    await a.sc("queue_clarification", { chunk_ref: chunk });
    await a.sc("record_human_answer", { chunk_ref: chunk, answer_text: "The ledger uses Kafkasecret." });
    await mover.sc("update_task", { task_id: note.task_id, project: pb });

    // A no longer sees the source: every chunk tool answers not found.
    for (const [tool, args] of [
      ["extract_candidate_claims", { chunk_ref: chunk }],
      ["queue_clarification", { chunk_ref: chunk }],
      ["record_human_answer", { chunk_ref: chunk, answer_text: "still mine?" }],
      ["assess_context", { chunk_ref: chunk }],
    ] as const) {
      expect((await a.call(tool, args)).structuredContent, tool).toEqual({
        error: "chunk not found",
        error_type: "not_found",
      });
    }

    expect((await a.call("explain_impact", { source_kind: "chunk", source_ref: chunk })).structuredContent).toEqual({
      error: "source not found",
      error_type: "not_found",
    });

    // B acts on the moved chunk: under pb, from its source text, without A's answers.
    const assessed = await b.sc("assess_context", { chunk_ref: note.task_id });
    expect(assessed).toMatchObject({ chunk_id: chunk, previous_state: "new" });
    const q = await b.sc("queue_clarification", { chunk_ref: chunk });
    expect(q.chunk_id).toBe(chunk);
    expect(JSON.stringify(q)).not.toContain("Kafkasecret");
    await b.sc("record_human_answer", { chunk_ref: chunk, answer_text: "The ledger uses Oracleinjected." });
    const x = await b.sc("extract_candidate_claims", { chunk_ref: chunk });
    expect(JSON.stringify(x)).not.toContain("Kafkasecret");
    expect(JSON.stringify(x)).toContain("Oracleinjected");
    expect(new Set(await projectsOf("governance_claims", chunk))).toEqual(new Set([pb]));
    const questions = await h.db.db
      .selectFrom("governance_questions")
      .select(["project", "answered_by"])
      .where("chunk_id", "=", chunk)
      .execute();
    for (const row of questions.filter((r) => r.answered_by === b.caller.principal)) expect(row.project).toBe(pb);
    const chunkRow = await h.db.db
      .selectFrom("governance_chunks")
      .selectAll()
      .where("chunk_id", "=", chunk)
      .executeTakeFirstOrThrow();
    expect(chunkRow.project).toBe(pb);
    expect(chunkRow.answers_text).not.toContain("Kafkasecret");
    // A's next pack carries nothing B wrote.
    const pack = await a.sc("build_context_pack", { pack_type: "planner" });
    expect(String(pack.body ?? "")).not.toContain("Oracleinjected");
  });

  it("an untargeted pack lives where its author may read and write", async () => {
    const pa = uniq("pa");
    const a = await h.as({ principal: uniq("a"), grants: [pa] });
    const untagged = await h.as({ principal: uniq("u"), grants: [""] });
    await factsFrom(a, pa, "storage", "The archive uses S3 since 2026-01-01.");
    const pack = await a.sc("build_context_pack", { pack_type: "planner" });
    expect(pack.persisted).toBe(true);
    const row = await h.db.db
      .selectFrom("shampoo_context_packs")
      .selectAll()
      .where("pack_id", "=", pack.pack_id as string)
      .executeTakeFirstOrThrow();
    expect(row.project).toBe(pa);
    const seen = await untagged.sc("replay_memory", { aggregate_kind: "context_pack", limit: 500 });
    expect((seen.events as Array<{ aggregate_id: string }>).map((e) => e.aggregate_id)).not.toContain(pack.pack_id);
    // The author's own audit sees the issue about their pack.
    await h.db.db
      .deleteFrom("governance_pack_summaries")
      .where("pack_id", "=", pack.pack_id as string)
      .execute();
    await a.sc("audit_memory", { repair: false });
    const issues = await a.sc("list_memory_issues", { kind: "pack_summary_missing", limit: 100 });
    expect((issues.issues as Array<{ target_id: string }>).map((i) => i.target_id)).toContain(pack.pack_id);
    // A caller of several projects without the untagged grant has no single home for it.
    const many = await h.as({ principal: uniq("m"), grants: [pa, uniq("pz")] });
    const r = await many.call("build_context_pack", { pack_type: "planner" });
    expect(r.structuredContent).toMatchObject({ error_type: "validation" });
    expect(String((r.structuredContent as { error: string }).error)).toContain("target_ref or session_id");
  });

  it("history follows the visibility an event had when it happened, not today's", async () => {
    const priv = uniq("private");
    const shared = uniq("shared");
    const owner = await h.as({ principal: uniq("o"), grants: [priv, shared] });
    const reader = await h.as({ principal: uniq("r"), grants: [shared] });
    const t = await owner.sc("create_task_or_note", { title: "Plan", project: priv, description: "draftsecret one" });
    await owner.sc("update_task", { task_id: t.task_id, description: "draftsecret two" });
    await owner.sc("update_task", { task_id: t.task_id, project: shared });
    await owner.sc("update_task", { task_id: t.task_id, description: "public text" });
    const all = await owner.sc("replay_memory", { aggregate_kind: "task", aggregate_id: t.task_id });
    expect(all.count).toBe(4);
    const r = await reader.sc("replay_memory", { aggregate_kind: "task", aggregate_id: t.task_id });
    expect(r.count).toBe(1);
    expect(JSON.stringify(r.events)).not.toContain("draftsecret one");
    expect(JSON.stringify(r.events)).not.toContain(priv);
  });

  it("a contradiction with a fact the reader cannot see is hidden from replay and packs", async () => {
    const pa = uniq("pa");
    const pb = uniq("pb");
    const both = await h.as({ principal: uniq("both"), grants: [pa, pb] });
    const reader = await h.as({ principal: uniq("r"), grants: [pa] });
    const fa = (await factsFrom(both, pa, "gw", "The gateway uses Envoy.")).facts.Envoy as string;
    const fb = (await factsFrom(both, pb, "gw2", "The proxy uses Nginx.")).facts.Nginx as string;
    await both.sc("govern_fact", { fact_id: fa, action: "contradict", target_fact_id: fb, rationale: "hiddenwhy" });
    const mine = await both.sc("replay_memory", { aggregate_kind: "fact", aggregate_id: fa });
    expect(JSON.stringify(mine)).toContain(fb);
    const r = await reader.sc("replay_memory", { aggregate_kind: "fact", aggregate_id: fa });
    expect(r.count).toBeGreaterThan(0);
    expect(JSON.stringify(r)).not.toContain(fb);
    expect(JSON.stringify(r)).not.toContain("hiddenwhy");
    for (const e of r.events as Array<{ new_value: { contradiction_count?: number } | null }>)
      expect(e.new_value?.contradiction_count ?? 0).toBe(0);
    const pack = await reader.sc("build_context_pack", { pack_type: "planner" });
    expect(String(pack.body)).toContain("Envoy");
    expect(String(pack.body)).not.toContain("contradicted by");
    expect((pack.advanced_context as { contradicted_facts: number }).contradicted_facts).toBe(0);
  });
});
