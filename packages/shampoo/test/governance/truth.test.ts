import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeOf } from "../../src/access/caller.ts";
import type { ShampooCtx } from "../../src/context.ts";
import { resolveChunk } from "../../src/domains/governance/service/chunks.ts";
import { stageClaim } from "../../src/domains/governance/service/claims.ts";
import { trueAtRows } from "../../src/domains/governance/store/facts.ts";
import { write } from "../../src/platform/write.ts";
import { actions, assessedNote, factRow, factsFrom } from "../support/governance.ts";
import { uniq } from "../support/sessions.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

const ctxOf = (h: Harness, a: Agent): ShampooCtx => ({
  caller: a.caller,
  source: { tool: "test" },
  clock: h.clock,
  database: h.db,
});

describe.each(DIALECTS)("truth maintenance on %s", (dialect) => {
  let h: Harness;
  let a: Agent;
  let p: string;
  beforeAll(async () => {
    h = await harness(dialect);
    p = uniq("tm");
    a = await h.as({ principal: uniq("alice"), grants: [p] });
  });
  afterAll(async () => {
    await h.close();
  });
  const known = async (k: string, w: string, subject: string) =>
    (await h.db.read((db) => trueAtRows(db, scopeOf(a.caller), k, w)))
      .filter((r) => r.subject === subject)
      .map((r) => r.object);

  it("a supersede chain reads right as known at three times", async () => {
    const t1 = h.clock.now();
    const A = (await factsFrom(a, p, "db v1", "The chain store is Alpha since 2026-01-01.")).facts.Alpha as string;
    h.clock.advance(60_000);
    const t2 = h.clock.now();
    const B = (await factsFrom(a, p, "db v2", "The chain store is Beta since 2026-02-01.")).facts.Beta as string;
    await a.sc("govern_fact", {
      fact_id: A,
      action: "supersede",
      target_fact_id: B,
      effective_at: "2026-02-01T00:00:00Z",
    });
    h.clock.advance(60_000);
    const t3 = h.clock.now();
    const C = (await factsFrom(a, p, "db v3", "The chain store is Gamma since 2026-03-01.")).facts.Gamma as string;
    await a.sc("govern_fact", {
      fact_id: B,
      action: "supersede",
      target_fact_id: C,
      effective_at: "2026-03-01T00:00:00Z",
    });
    const at = (ms: number) => new Date(ms).toISOString();
    const june = "2026-06-01T00:00:00.000Z";
    expect(await known(at(t1), june, "The chain store")).toEqual(["Alpha"]);
    expect(await known(at(t2), june, "The chain store")).toEqual(["Beta"]);
    expect(await known(at(t3), june, "The chain store")).toEqual(["Gamma"]);
    // Now, asking about the world in mid-February: Beta held then.
    expect(await known(at(t3), "2026-02-15T00:00:00.000Z", "The chain store")).toEqual(["Beta"]);
    expect((await factRow(h, A)).superseded_by).toBe(B);
    expect((await factRow(h, B)).superseded_by).toBe(C);
    expect((await factRow(h, C)).status).toBe("live");
  });

  it("contradict links both ways with counts; a repeat adds nothing", async () => {
    const { facts } = await factsFrom(a, p, "cache", "The edge uses Redis. The edge uses Memcached.");
    const [x, y] = [facts.Redis as string, facts.Memcached as string];
    expect((await factRow(h, x)).contradiction_count).toBe(0); // multi-valued: no structural contradiction
    await a.sc("govern_fact", { fact_id: x, action: "contradict", target_fact_id: y, rationale: "one cache only" });
    await a.sc("govern_fact", { fact_id: y, action: "contradict", target_fact_id: x });
    for (const [f, other] of [
      [x, y],
      [y, x],
    ] as const) {
      const row = await factRow(h, f);
      expect([row.status, row.contradiction_count, JSON.parse(row.contradicts_json)]).toEqual(["live", 1, [other]]);
    }
    const decisions = await h.db.db
      .selectFrom("governance_decisions")
      .selectAll()
      .where("fact_id", "in", [x, y])
      .execute();
    expect(decisions.map((d) => d.action)).toEqual(["contradict", "contradict"]);
    expect(decisions.find((d) => d.fact_id === x)?.rationale).toBe("one cache only");
  });

  it("invalidate, then revalidate; errors name what is wrong and change nothing", async () => {
    const f = (await factsFrom(a, p, "queue", "The worker depends on NATS since 2026-01-01.")).facts.NATS as string;
    await a.sc("govern_fact", {
      fact_id: f,
      action: "invalidate",
      effective_at: "2026-05-01T00:00:00Z",
      rationale: "",
    });
    expect(await factRow(h, f)).toMatchObject({ status: "invalidated", valid_to: "2026-05-01T00:00:00.000Z" });
    const again = await a.call("govern_fact", { fact_id: f, action: "invalidate" });
    expect(again.structuredContent).toEqual({
      error: "fact is invalidated; only a live fact can be changed by invalidate",
      error_type: "invalid_state",
    });
    await a.sc("govern_fact", { fact_id: f, action: "revalidate" });
    expect(await factRow(h, f)).toMatchObject({ status: "live", valid_to: null, superseded_by: null });
    const bad = async (args: Record<string, unknown>) => (await a.call("govern_fact", args)).structuredContent;
    expect(await bad({ fact_id: f, action: "supersede" })).toEqual({
      error: "target_fact_id is required for supersede",
      error_type: "validation",
    });
    expect(await bad({ fact_id: f, action: "contradict", target_fact_id: f })).toEqual({
      error: "target_fact_id must differ from fact_id",
      error_type: "validation",
    });
    expect(await bad({ fact_id: "nope", action: "invalidate" })).toEqual({
      error: "fact not found",
      error_type: "not_found",
    });
    const other = await h.as({ principal: uniq("mallory"), grants: [uniq("elsewhere")] });
    expect((await other.call("govern_fact", { fact_id: f, action: "invalidate" })).structuredContent).toEqual({
      error: "fact not found",
      error_type: "not_found",
    });
    expect(await bad({ fact_id: f, action: "delete" })).toMatchObject({ error_type: "validation" });
  });

  it("a decision artifact names the last history event its decision recorded", async () => {
    const { facts } = await factsFrom(a, p, "decided", "The ledger uses Kafka. The ledger uses Pulsar.");
    const [x, y] = [facts.Kafka as string, facts.Pulsar as string];
    const decisionOf = async (id: string, action: string) =>
      h.db.db
        .selectFrom("governance_decisions")
        .selectAll()
        .where("fact_id", "=", id)
        .where("action", "=", action)
        .executeTakeFirstOrThrow();
    // invalidate: one event, the fact's own.
    await a.sc("govern_fact", { fact_id: x, action: "invalidate" });
    expect((await decisionOf(x, "invalidate")).event_id).toBe((await factRow(h, x)).last_event_id);
    // contradict: both facts change, the one written last (the higher id, in refreshCounts' order) is named.
    await a.sc("govern_fact", { fact_id: x, action: "revalidate" });
    await a.sc("govern_fact", { fact_id: y, action: "contradict", target_fact_id: x });
    const last = (await factRow(h, [x, y].sort()[1] as string)).last_event_id;
    expect((await decisionOf(y, "contradict")).event_id).toBe(last);
    expect(await actions(a, "fact", [x, y].sort()[1] as string)).toContain("refresh_contradictions");
  });

  it("eight concurrent supersedes of one fact leave exactly one live successor", async () => {
    const { facts } = await factsFrom(
      a,
      p,
      "race",
      "The race root uses R0. The race one uses R1. The race two uses R2. The race three uses R3. The race four uses R4. The race five uses R5. The race six uses R6. The race seven uses R7. The race eight uses R8.",
    );
    const root = facts.R0 as string;
    const agents = await Promise.all(
      Array.from({ length: 8 }, () => h.as({ principal: a.caller.principal, grants: [p] })),
    );
    const results = await Promise.all(
      agents.map((g, i) =>
        g.call("govern_fact", { fact_id: root, action: "supersede", target_fact_id: facts[`R${i + 1}`] }),
      ),
    );
    const ok = results.filter((r) => !r.isError);
    expect(ok).toHaveLength(1);
    const winner = (ok[0]!.structuredContent as { target_fact_id: string }).target_fact_id;
    expect(await factRow(h, root)).toMatchObject({ status: "superseded", superseded_by: winner });
    for (const r of results.filter((x) => x.isError))
      expect((r.structuredContent as { error_type: string }).error_type).toMatch(/invalid_state|conflict/);
    const successors = await h.db.db
      .selectFrom("governance_facts")
      .select("fact_id")
      .where("superseded_by", "=", root)
      .execute();
    expect(successors).toEqual([]);
    const links = await h.db.db
      .selectFrom("governance_impact_links")
      .selectAll()
      .where("from_id", "=", root)
      .where("rationale", "=", "superseded by")
      .execute();
    expect(links.map((l) => l.to_id)).toEqual([winner]);
  });

  it("a late fact with an earlier validity answers all four bi-temporal questions", async () => {
    const before = new Date(h.clock.now()).toISOString();
    h.clock.advance(60_000);
    const f = (await factsFrom(a, p, "late", "The billing region is Frankfurt since 2026-01-10.")).facts
      .Frankfurt as string;
    const after = new Date(h.clock.now()).toISOString();
    expect((await factRow(h, f)).valid_from).toBe("2026-01-10T00:00:00.000Z");
    const s = "The billing region";
    expect(await known(after, "2026-02-01T00:00:00.000Z", s)).toEqual(["Frankfurt"]); // known now, valid then
    expect(await known(after, "2026-01-01T00:00:00.000Z", s)).toEqual([]); // known now, before validity
    expect(await known(before, "2026-02-01T00:00:00.000Z", s)).toEqual([]); // not yet known
    expect(await known(before, "2026-01-01T00:00:00.000Z", s)).toEqual([]); // neither
  });

  it("a claim about a neighbouring entity retires and flags nothing else", async () => {
    const { facts } = await factsFrom(
      a,
      p,
      "neighbours",
      "The gateway is PostgreSQL. The gateway cache is Redis. The gateway replica is MySQL. The gateway uses TLS.",
    );
    const before = await h.db.db
      .selectFrom("governance_facts")
      .select(["fact_id", "status", "contradiction_count"])
      .orderBy("fact_id")
      .execute();
    const { facts: next } = await factsFrom(a, p, "neighbours 2", "The gateway is CockroachDB.");
    const after = await h.db.db
      .selectFrom("governance_facts")
      .select(["fact_id", "status", "contradiction_count"])
      .orderBy("fact_id")
      .execute();
    const changed = after.filter((r) => {
      const b = before.find((x) => x.fact_id === r.fact_id);
      return b && (b.status !== r.status || b.contradiction_count !== r.contradiction_count);
    });
    expect(changed.map((r) => r.fact_id)).toEqual([facts.PostgreSQL]);
    expect(
      after.filter((r) => r.status !== "live" && !before.some((b) => b.fact_id === r.fact_id && b.status === r.status)),
    ).toEqual([]);
    expect((await factRow(h, next.CockroachDB as string)).contradiction_count).toBe(1);
    for (const n of ["Redis", "MySQL", "TLS"])
      expect(await factRow(h, facts[n] as string)).toMatchObject({ status: "live", contradiction_count: 0 });
  });

  it("multi_evidence: 2 entries refused, 3 at 0.69 refused, 3 at 0.70 promoted; identical live facts are reinforced", async () => {
    const chunks: string[] = [];
    for (let i = 0; i < 3; i++)
      chunks.push((await assessedNote(a, p, `evidence ${i}`, `Evidence note ${i}: the vault uses HSM.`)).chunkId);
    const stage = (object: string, confidence: number, n: number) =>
      write(ctxOf(h, a), async (w) => {
        let id = "";
        for (const ref of chunks.slice(0, n)) {
          const chunk = await resolveChunk(w, ref);
          id = (
            await stageClaim(w, chunk, "memory", {
              subject: "the vault",
              predicate: "uses",
              object,
              confidence,
              excerpt: "x",
              valid_from: null,
            })
          ).claim_id;
        }
        return id;
      });
    const two = await stage("HSM-A", 0.95, 2);
    expect(await a.sc("promote_candidate", { claim_id: two, mode: "multi_evidence" })).toEqual({
      claim_id: two,
      promoted: false,
      reason: "insufficient_evidence",
    });
    const low = await stage("HSM-B", 0.69, 3);
    expect(await a.sc("promote_candidate", { claim_id: low, mode: "multi_evidence" })).toEqual({
      claim_id: low,
      promoted: false,
      reason: "low_confidence",
    });
    const ok = await stage("HSM-C", 0.7, 3);
    const r = await a.sc("promote_candidate", { claim_id: ok, mode: "multi_evidence" });
    expect(r).toMatchObject({ promoted: true, validation_mode: "multi_evidence", reused_existing_fact: false });
    // The same triple again, from a fresh extraction: reinforced, not duplicated.
    const again = await stage("HSM-C", 0.8, 1);
    const r2 = await a.sc("promote_candidate", { claim_id: again });
    expect(r2).toMatchObject({ promoted: true, fact_id: r.fact_id, reused_existing_fact: true });
    expect(await factRow(h, r.fact_id as string)).toMatchObject({
      reinforced_count: 1,
      evidence_count: 4,
      confidence: 0.8,
    });
    // Sensitive scopes accept only human_confirmed.
    const sens = await write(
      ctxOf(h, a),
      async (w) =>
        (
          await stageClaim(w, await resolveChunk(w, chunks[0] as string), "export", {
            subject: "the vault",
            predicate: "uses",
            object: "S3",
            confidence: 0.99,
            excerpt: "x",
            valid_from: null,
          })
        ).claim_id,
    );
    expect(await a.sc("promote_candidate", { claim_id: sens, mode: "imported" })).toMatchObject({
      promoted: false,
      reason: "human_confirmation_required",
    });
    expect(await a.sc("promote_candidate", { claim_id: sens, mode: "auto_layer1" })).toMatchObject({
      promoted: false,
      reason: "pipeline_internal",
    });
    expect(await a.sc("promote_candidate", { claim_id: sens })).toMatchObject({ promoted: true, scope: "export" });
  });

  it("replay_memory reads newest first with every field; folding its events rebuilds the current rows", async () => {
    const r = await a.sc("replay_memory", { aggregate_kind: "fact", limit: 500 });
    const events = r.events as Array<Record<string, unknown>>;
    expect(r.contract_version).toBe("memory_replay_v1");
    expect(events.length).toBeGreaterThan(10);
    for (const e of events) expect(Object.keys(e)).toHaveLength(20);
    const seqs = events.map((e) => e.seq as number);
    expect(seqs).toEqual([...seqs].sort((x, y) => y - x));
    for (const [kind, table, id] of [
      ["fact", "governance_facts", "fact_id"],
      ["claim", "governance_claims", "claim_id"],
      ["chunk", "governance_chunks", "chunk_id"],
    ] as const) {
      const evs = (
        (await a.sc("replay_memory", { aggregate_kind: kind, limit: 500 })).events as Array<Record<string, unknown>>
      ).reverse();
      expect(evs.length).toBeLessThan(500);
      const folded = new Map<string, unknown>();
      for (const e of evs) folded.set(e.aggregate_id as string, e.new_value);
      const rows = (await h.db.db
        .selectFrom(table)
        .selectAll()
        .where("profile", "=", "default")
        .where("project", "=", p)
        .execute()) as Array<Record<string, unknown>>;
      expect(rows.length).toBeGreaterThan(0);
      expect(folded.size).toBe(rows.length);
      for (const row of rows) {
        const { profile: _p, last_event_id: _l, ...rest } = row;
        expect(folded.get(row[id] as string), `${kind} ${row[id]}`).toEqual(rest);
      }
    }
    const none = await a.sc("replay_memory", { aggregate_kind: "fact", aggregate_id: "no-such-fact" });
    expect(none).toEqual({ count: 0, events: [], contract_version: "memory_replay_v1" });
    const outsider = await h.as({ principal: uniq("eve"), grants: [uniq("x")] });
    expect((await outsider.sc("replay_memory", { aggregate_kind: "fact" })).count).toBe(0);
  });
});
