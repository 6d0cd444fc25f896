import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { factsFrom } from "./support/governance.ts";
import { uniq } from "./support/sessions.ts";
import { type Harness, harness } from "./support/shampoo.ts";

describe.each(DIALECTS)("context packs on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  // A pack reads the newest 300 live facts and 200 candidate claims; a targeted pack read them
  // first and tested relevance after, so a fact naming the target but older than the newest 300
  // was never considered. It must be found however many newer facts there are.
  it("a targeted pack finds the facts and claims naming its target behind 300 newer ones", async () => {
    const p = uniq("packs");
    const alice = await h.as({ principal: uniq("alice"), grants: [p] });
    const target = await alice.sc("create_task_or_note", { title: "Orion launch", project: p });
    const relevant = (await factsFrom(alice, p, "launch site", "The Orion launch site is Kourou since 2026-01-05."))
      .facts.Kourou as string;
    expect(relevant).toBeDefined();
    // A candidate claim naming the target, left unpromoted.
    const note = await alice.sc("create_task_or_note", {
      title: "launch fuel",
      project: p,
      type: "note",
      description: "The Orion launch vehicle uses hydrazine.",
    });
    const a = await alice.sc("assess_context", { chunk_ref: note.task_id });
    const claim = (
      (await alice.sc("extract_candidate_claims", { chunk_ref: a.chunk_id })).claims as Array<{
        claim_id: string;
      }>
    )[0]?.claim_id as string;
    expect(claim).toBeDefined();

    h.clock.advance(60_000);
    const lines = Array.from({ length: 310 }, (_, i) => `Filler component ${i} uses library ${i}.`).join(" ");
    const filler = await factsFrom(alice, p, "filler", lines);
    expect(Object.keys(filler.facts)).toHaveLength(310);
    const fillerClaims = Array.from({ length: 210 }, (_, i) => `Padding module ${i} uses crate ${i}.`).join(" ");
    const pad = await alice.sc("create_task_or_note", {
      title: "padding",
      project: p,
      type: "note",
      description: fillerClaims,
    });
    const pa = await alice.sc("assess_context", { chunk_ref: pad.task_id });
    const px = await alice.sc("extract_candidate_claims", { chunk_ref: pa.chunk_id });
    expect(px.claims as unknown[]).toHaveLength(210);

    // The executor role weighs facts, the reviewer claims: each finds its own kind.
    const args = (pack_type: string, target_ref?: string) => (target_ref ? { pack_type, target_ref } : { pack_type });
    const body = async (pack_type: string, target_ref?: string) =>
      (await alice.sc("build_context_pack", args(pack_type, target_ref))).body as string;
    expect(await body("executor")).not.toContain(`(fact ${relevant})`);
    expect(await body("reviewer")).not.toContain(`(claim ${claim})`);
    const executor = await alice.sc("build_context_pack", args("executor", target.task_id as string));
    expect(executor.task_scoped).toBe(true);
    expect(executor.body as string).toContain(`(fact ${relevant})`);
    const reviewer = await alice.sc("build_context_pack", args("reviewer", target.task_id as string));
    expect(reviewer.body as string).toContain(`(claim ${claim})`);
    // Its provenance names them too.
    const sources = await h.db.db
      .selectFrom("governance_provenance")
      .select(["source_kind", "source_ref"])
      .where("target_kind", "=", "pack")
      .where("target_id", "in", [executor.pack_id as string, reviewer.pack_id as string])
      .execute();
    expect(sources).toContainEqual({ source_kind: "fact", source_ref: relevant });
    expect(sources).toContainEqual({ source_kind: "claim", source_ref: claim });
  });
});
