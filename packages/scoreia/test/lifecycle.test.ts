import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TOOLSET_0_3_2 } from "../src/contract/index.ts";
import { solveAtelier } from "../src/suites/atelier/solver.ts";
import { solveChrono } from "../src/suites/chrono/solver.ts";
import { connect, type Harness, harness, IDENTITY, mcpPort } from "./support/chamber.ts";

describe.each(DIALECTS)("Chamber lifecycle on %s", (dialect) => {
  let h: Harness;
  /** Codes the tests below prove reachable; the last test checks this covers all 19 of the contract. */
  const reached = new Set<string>();

  function expectError(sc: Record<string, unknown>, code: string): void {
    expect(sc.ok, JSON.stringify(sc)).toBe(false);
    expect(sc.code).toBe(code);
    expect(typeof sc.error).toBe("string");
    expect((sc.error as string).length).toBeGreaterThan(10);
    reached.add(code);
  }

  const START = "2026-11-30T12:00:00.000Z";

  beforeAll(async () => {
    h = await harness(dialect, { clientName: "lifecycle-client" });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.clock.set(START);
    h.signer.available = true;
  });

  async function counts(): Promise<number[]> {
    const db = h.db.db;
    const n = async (t: "chamber_attempts" | "chamber_events" | "chamber_cards" | "chamber_help") =>
      Number(
        (
          await db
            .selectFrom(t)
            .select((e) => e.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return [await n("chamber_attempts"), await n("chamber_events"), await n("chamber_cards"), await n("chamber_help")];
  }

  async function enter(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const r = await h.sc("enter_open_challenge", { ...IDENTITY, ...extra });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    return r;
  }

  async function card(cardId: string): Promise<Record<string, unknown>> {
    const row = await h.db.db
      .selectFrom("chamber_cards")
      .selectAll()
      .where("card_id", "=", cardId)
      .executeTakeFirstOrThrow();
    return {
      ...JSON.parse(row.body_json),
      _status: row.evidence_status,
      _sig: row.signature_json,
      _raw: row.body_json,
    };
  }

  describe("enter_open_challenge", () => {
    it("opens the default suite with a truthful envelope and the publication notice", async () => {
      const r = await enter();
      expect(r.attempt_handle).toMatch(/^chl-[0-9a-f]{16}$/);
      expect(r).toMatchObject({
        attempt_state: "created",
        toolset_id: "scoreia-chamber-tools/0.3.2",
        suite_id: "chambre-chrono-v0",
        action_index: 0,
        remaining_actions: 64,
        terminal: false,
        must_seal: false,
        assurance: "participant_claimed",
        participation_class: "external",
      });
      expect(r.allowed_next_tools).toEqual(["chamber_action", "observe_chamber", "call_for_help", "seal_attempt"]);
      expect(r.allowed_ops).toContain("look");
      expect(r.allowed_ops).not.toContain("submit_bolt");
      expect(Date.parse(r.expires_at as string) - Date.parse(START)).toBe(7200 * 1000);
      expect(r.publication_notice).toEqual(TOOLSET_0_3_2.identity.publication_notice);
      expect(r.seed).toMatch(/^s-[0-9a-f]{16}$/);
    });

    it("accepts unknown for every claim, a participant seed, and the atelier suite", async () => {
      const r = await enter({
        provider_claim: "unknown",
        model_claim: "unknown",
        product: "unknown",
        host: "unknown",
        seed: "my-seed-1",
        suite: "chambre-atelier-v0",
      });
      expect(r).toMatchObject({ seed: "my-seed-1", suite_id: "chambre-atelier-v0" });
      // A generation with a room secret: the shipped generation 002, named after the secret's commitment.
      expect(r.suite_generation).toMatch(/^002\.[0-9a-f]{8}$/);
    });

    it("same seed builds the same room for two attempts", async () => {
      const a = await enter({ seed: "twin" });
      const b = await enter({ seed: "twin" });
      expect(a.attempt_handle).not.toBe(b.attempt_handle);
      expect(a.room).toEqual(b.room);
      expect(a.objects).toEqual(b.objects);
    });

    it("stores preflight as metadata and never gates on it", async () => {
      const r = await enter({
        preflight: { tools_visible: false, actions_available: false, publication_understood: false },
      });
      const row = await h.db.db
        .selectFrom("chamber_attempts")
        .selectAll()
        .where("handle", "=", r.attempt_handle as string)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.preflight_json as string)).toEqual({
        tools_visible: false,
        actions_available: false,
        publication_understood: false,
      });
    });

    it("keeps the MCP clientInfo as a separate observation", async () => {
      const r = await enter({ host: "claude-desktop", host_claim: "claude-desktop" });
      const row = await h.db.db
        .selectFrom("chamber_attempts")
        .selectAll()
        .where("handle", "=", r.attempt_handle as string)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.observed_client_json as string)).toEqual({ name: "lifecycle-client", version: "1.0.0" });
      expect(JSON.parse(row.identity_json).host).toBe("claude-desktop");
    });

    const bad: Array<[string, Record<string, unknown>, string]> = [
      ["product pattern", { product: "GPT 5" }, "product_id_invalid"],
      ["product too long", { product: `a${"b".repeat(80)}` }, "product_id_invalid"],
      ["host as product: cursor", { product: "cursor" }, "host_is_not_a_product"],
      ["host as product: vscode", { product: "vscode" }, "host_is_not_a_product"],
      ["host as product: claude-desktop", { product: "claude-desktop" }, "host_is_not_a_product"],
      ["host as product: hermes-agent", { product: "hermes-agent" }, "host_is_not_a_product"],
      ["host as product: openclaw", { product: "openclaw" }, "host_is_not_a_product"],
      ["host as product: grok.com", { product: "grok.com" }, "host_is_not_a_product"],
      ["host as product: windsurf", { product: "windsurf" }, "host_is_not_a_product"],
      ["host vs host_claim", { host: "cursor", host_claim: "vscode" }, "claim_conflict"],
      ["origin vs origin_claim", { origin: "relayed", origin_claim: "summoned" }, "claim_conflict"],
      ["missing host", { host: undefined }, "host_required"],
      ["blank host", { host: "   " }, "host_required"],
      ["missing model_claim", { model_claim: undefined }, "identity_incomplete"],
      ["blank provider_claim", { provider_claim: "  " }, "identity_incomplete"],
      ["email in model_claim", { model_claim: "me@example.com" }, "identity_invalid"],
      ["URL in host_version", { host_version: "https://example.com/x" }, "identity_invalid"],
      ["token in product_plan", { product_plan: "sk-abcdefghijklmnop1234" }, "identity_invalid"],
      ["bad origin", { origin: "invited" }, "identity_invalid"],
      ["bad participation_class", { participation_class: "vip" }, "identity_invalid"],
      ["unknown suite", { suite: "chambre-x" }, "suite_unknown"],
      ["removed export field", { export: true }, "value_format_invalid"],
      ["unknown preflight field", { preflight: { gdpr: true } }, "value_format_invalid"],
      ["a lone surrogate in the seed", { seed: "ab\uD800" }, "value_format_invalid"],
      // A bad string in an identity field is an identity problem, whichever check catches it.
      ["a lone surrogate in host", { host: "\uDC00cursor" }, "identity_invalid"],
      ["a NUL in host", { host: "cur\u0000sor" }, "identity_invalid"],
      ["a NUL in model_claim", { model_claim: "m\u0000" }, "identity_invalid"],
      ["a NUL in the seed (not an identity field)", { seed: "a\u0000b" }, "value_format_invalid"],
    ];
    it.each(bad)("refuses %s and changes nothing", async (_name, patch, code) => {
      const before = await counts();
      const args: Record<string, unknown> = { ...IDENTITY, ...patch };
      for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
      const res = await h.call("enter_open_challenge", args);
      expect(res.isError).toBe(true);
      expectError(res.structuredContent as Record<string, unknown>, code);
      expect(await counts()).toEqual(before);
    });

    it("names the removed export field in its error", async () => {
      const r = await h.sc("enter_open_challenge", { ...IDENTITY, export: true });
      expect(r.error).toMatch(/unknown argument export.*removed in 0\.3/);
    });

    it("refuses entry when no publication notice is configured (fails closed)", async () => {
      const { chamberOn } = await import("../src/app.ts");
      const closed = chamberOn(h.db, { clock: h.clock, signer: h.signer, config: { publicationNotice: null } });
      const c = await connect(closed, "no-notice");
      const before = await counts();
      const r = (await c.callTool({ name: "enter_open_challenge", arguments: IDENTITY })).structuredContent as Record<
        string,
        unknown
      >;
      expectError(r, "publication_notice_missing");
      expect(await counts()).toEqual(before);
      await c.close();
    });

    it("records route_key and participation_class without changing the evidence", async () => {
      const a = await enter({ seed: "same", route_key: "route-abc-123", participation_class: "sponsored" });
      const b = await enter({ seed: "same" });
      const sa = await h.sc("seal_attempt", { challenge_handle: a.attempt_handle });
      const sb = await h.sc("seal_attempt", { challenge_handle: b.attempt_handle });
      const ca = await card(sa.card_id as string);
      const cb = await card(sb.card_id as string);
      expect(ca.participation_class).toBe("sponsored");
      expect(ca.route_key).toBe("route-abc-123");
      expect(cb.participation_class).toBe("external");
      expect(ca.verdict).toBe(cb.verdict);
      expect(ca._status).toBe(cb._status);
      expect(ca.suite).toEqual(cb.suite);
    });
  });

  describe("acting", () => {
    it("counts actions, moves created → active, and keeps allowed_ops truthful", async () => {
      const e = await enter();
      const h1 = e.attempt_handle as string;
      const look = await h.sc("chamber_action", { challenge_handle: h1, op: "look", expected_action_index: 0 });
      expect(look).toMatchObject({
        ok: true,
        attempt_state: "active",
        action_index: 1,
        remaining_actions: 63,
        terminal: false,
        must_seal: false,
      });
      expect(look.observation).toHaveProperty("text");
      const notAllowed = await h.sc("chamber_action", {
        challenge_handle: h1,
        op: "submit_bolt",
        value: "1",
        expected_action_index: 1,
      });
      expectError(notAllowed, "op_not_allowed");
      expect(notAllowed.allowed_ops).toEqual(look.allowed_ops);
      const ghost = await h.sc("chamber_action", {
        challenge_handle: h1,
        op: "inspect",
        object: "ghost",
        expected_action_index: 1,
      });
      expectError(ghost, "object_not_available");
      const badValue = await h.sc("chamber_action", {
        challenge_handle: h1,
        op: "submit_sequence",
        value: "",
        expected_action_index: 1,
      });
      expectError(badValue, "value_format_invalid");
      // refusals cost nothing
      const again = await h.sc("chamber_action", { challenge_handle: h1, op: "look", expected_action_index: 1 });
      expect(again.action_index).toBe(2);
    });

    it("answers a stale expected_action_index with retryable stale_action_index and the current index", async () => {
      const e = await enter();
      const before = await counts();
      const r = await h.sc("chamber_action", {
        challenge_handle: e.attempt_handle,
        op: "look",
        expected_action_index: 5,
      });
      expectError(r, "stale_action_index");
      expect(r.retryable).toBe(true);
      expect(r.current_action_index).toBe(0);
      // The refusal carries the attempt's truthful status, as every envelope does.
      expect(r).toMatchObject({
        attempt_state: "created",
        action_index: 0,
        remaining_actions: 64,
        terminal: false,
        must_seal: false,
        allowed_next_tools: ["chamber_action", "observe_chamber", "call_for_help", "seal_attempt"],
      });
      expect(r.allowed_ops).toEqual(e.allowed_ops);
      expect(await counts()).toEqual(before);
    });

    it("refuses op names outside the contract, unknown arguments, and the sia_ handle pattern", async () => {
      const e = await enter();
      expectError(
        await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "teleport" }),
        "op_not_allowed",
      );
      expectError(
        await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look", speed: 2 }),
        "value_format_invalid",
      );
      const sia = await h.sc("chamber_action", { challenge_handle: "sia_0123456789abcdef", op: "look" });
      expectError(sia, "value_format_invalid");
      expect(sia.error).toMatch(/sia_ handles are not ScoreIA/);
    });

    it("answers attempt_not_found for a well-formed unknown handle", async () => {
      for (const tool of ["observe_chamber", "chamber_action", "call_for_help", "seal_attempt"]) {
        const args: Record<string, unknown> = { challenge_handle: "chl-0000000000000000" };
        if (tool === "observe_chamber") args.object = "logbook";
        if (tool === "chamber_action") args.op = "look";
        if (tool === "call_for_help") args.ally = "grok-4.6";
        expectError(await h.sc(tool, args), "attempt_not_found");
      }
    });

    it("enforces the request limits before anything runs", async () => {
      const e = await enter();
      const before = await counts();
      const many = await h.sc("chamber_action", {
        challenge_handle: e.attempt_handle,
        op: "submit_order",
        value: Array.from({ length: 17 }, (_, i) => `p${i}`),
      });
      expectError(many, "value_format_invalid");
      expect(many.error).toMatch(/max_array_items is 16/);
      let deep: unknown = "x";
      for (let i = 0; i < 9; i++) deep = [deep];
      const tooDeep = await h.sc("chamber_action", {
        challenge_handle: e.attempt_handle,
        op: "submit_order",
        value: deep,
      });
      expect(tooDeep.error).toMatch(/max_json_depth 8/);
      const big = await h.sc("chamber_action", {
        challenge_handle: e.attempt_handle,
        op: "look",
        object: "x".repeat(70_000),
      });
      expect(big.error).toMatch(/max_request_bytes is 65536/);
      expect(await counts()).toEqual(before);
    });

    it("stops at 64 actions with action_limit_reached and seals to an exhausted card", async () => {
      const e = await enter();
      const handle = e.attempt_handle as string;
      let last: Record<string, unknown> = {};
      for (let i = 0; i < 64; i++) {
        last = await h.sc("chamber_action", { challenge_handle: handle, op: "look", expected_action_index: i });
        expect(last.ok).toBe(true);
      }
      expect(last).toMatchObject({
        attempt_state: "terminal_unsealed",
        remaining_actions: 0,
        terminal: true,
        must_seal: true,
        allowed_ops: [],
      });
      expect(last.allowed_next_tools).toEqual(["seal_attempt", "observe_chamber"]);
      const over = await h.sc("chamber_action", { challenge_handle: handle, op: "look" });
      expectError(over, "action_limit_reached");
      const s = await h.sc("seal_attempt", { challenge_handle: handle, expected_action_index: 64 });
      expect(s).toMatchObject({ ok: true, verdict: "exhausted", attempt_state: "sealed" });
    });

    it("observe_chamber is free: it never moves the action index", async () => {
      const e = await enter();
      const first = (e.objects as string[])[0];
      const o = await h.sc("observe_chamber", { challenge_handle: e.attempt_handle, object: first });
      expect(o).toMatchObject({ ok: true, action_index: 0, object: first });
      expect(o.observation).toHaveProperty("text");
      expectError(
        await h.sc("observe_chamber", { challenge_handle: e.attempt_handle, object: "ghost" }),
        "object_not_available",
      );
    });
  });

  describe.each([
    ["chambre-chrono-v0", solveChrono],
    ["chambre-atelier-v0", solveAtelier],
  ] as const)("solving %s over MCP", (suite, solve) => {
    it("reaches terminal_unsealed, must_seal, then a signed solved card; a second seal returns the first", async () => {
      const e = await enter({ suite, seed: "e2e-1" });
      const port = mcpPort((n, a) => h.sc(n, a), e);
      await solve(port);
      const status = await h.sc("observe_chamber", {
        challenge_handle: e.attempt_handle,
        object: (e.objects as string[])[0],
      });
      expect(status).toMatchObject({
        attempt_state: "terminal_unsealed",
        terminal: true,
        must_seal: true,
        allowed_ops: [],
      });
      const s1 = await h.sc("seal_attempt", {
        challenge_handle: e.attempt_handle,
        expected_action_index: port.index(),
      });
      expect(s1).toMatchObject({
        ok: true,
        attempt_state: "sealed",
        already_sealed: false,
        evidence_status: "signed",
        verdict: "solved",
      });
      expect(s1.card_id).toMatch(/^sia-[0-9a-f]{32}$/);
      const s2 = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expect(s2).toMatchObject({ ok: true, already_sealed: true, card_id: s1.card_id });
      const c = await card(s1.card_id as string);
      expect(c).toMatchObject({
        verdict: "solved",
        channel: "mcp_session",
        seed: "e2e-1",
        toolset: { id: "scoreia-chamber-tools/0.3.2" },
        identity: {
          declared_model: "gpt-5.6-sol",
          product: "gpt-5.6-sol",
          declared_host: "cursor",
          assurance: "participant_claimed",
        },
        observed_client: { name: "lifecycle-client" },
      });
      expect((c.attempt as Record<string, unknown>).actions_used).toBe(port.index());
      expectError(
        await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look" }),
        "attempt_already_sealed",
      );
    });
  });

  describe("sealing", () => {
    it("seals an abandoned attempt to a failure card, with the export bundle only when asked", async () => {
      const e = await enter();
      const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle, include_export_bundle: true });
      expect(s).toMatchObject({ ok: true, verdict: "abandoned", evidence_status: "signed" });
      expect(s.export_bundle).toMatchObject({ card: { card_id: s.card_id, verdict: "abandoned" } });
      const plain = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expect(plain.export_bundle).toBeUndefined();
    });

    it("refuses personal data in next_candidate", async () => {
      const e = await enter();
      expectError(
        await h.sc("seal_attempt", { challenge_handle: e.attempt_handle, next_candidate: "bob@example.com" }),
        "identity_invalid",
      );
    });

    it("expires after the TTL, still seals within retention, then refuses", async () => {
      const e = await enter();
      const handle = e.attempt_handle as string;
      h.clock.advance(7199_000);
      expect((await h.sc("chamber_action", { challenge_handle: handle, op: "look" })).ok).toBe(true);
      h.clock.advance(1_000);
      const late = await h.sc("chamber_action", { challenge_handle: handle, op: "look" });
      expectError(late, "attempt_expired");
      expect(late.allowed_next_tools).toEqual(["seal_attempt"]);
      const s = await h.sc("seal_attempt", { challenge_handle: handle });
      expect(s).toMatchObject({ ok: true, verdict: "expired" });

      const e2 = await enter();
      h.clock.advance((7200 + 86400) * 1000);
      expectError(await h.sc("seal_attempt", { challenge_handle: e2.attempt_handle }), "attempt_expired");
    });

    it("goes pending_signature when no signer is reachable, then signs later without changing the card", async () => {
      const e = await enter();
      h.signer.available = false;
      const s1 = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expectError(s1, "signature_unavailable");
      expect(s1).toMatchObject({
        retryable: true,
        attempt_state: "pending_signature",
        already_sealed: false,
        evidence_status: "pending_signature",
      });
      const pending = await card(s1.card_id as string);
      expect(pending._status).toBe("pending_signature");
      const s2 = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expectError(s2, "evidence_pending");
      expect(s2).toMatchObject({ card_id: s1.card_id, already_sealed: true, retryable: true });
      expectError(
        await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look" }),
        "attempt_already_sealed",
      );
      h.signer.available = true;
      const s3 = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
      expect(s3).toMatchObject({
        ok: true,
        attempt_state: "sealed",
        already_sealed: true,
        evidence_status: "signed",
        card_id: s1.card_id,
      });
      const signed = await card(s1.card_id as string);
      expect(signed._raw).toBe(pending._raw);
      expect(signed._sig).toBeTruthy();
    });

    it("a quarantined attempt refuses actions and seals to a quarantined card", async () => {
      const e = await enter();
      await h.chamber.service.quarantine(e.attempt_handle as string, "abuse report");
      const a = await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look" });
      expectError(a, "op_not_allowed");
      expect(a.attempt_state).toBe("quarantined");
      const o = await h.sc("observe_chamber", {
        challenge_handle: e.attempt_handle,
        object: (e.objects as string[])[0],
      });
      expect(o).toMatchObject({ attempt_state: "quarantined", must_seal: true, allowed_ops: [] });
      expect(await h.sc("seal_attempt", { challenge_handle: e.attempt_handle })).toMatchObject({
        ok: true,
        verdict: "quarantined",
      });
    });
  });

  describe("call_for_help", () => {
    it("records a separate future challenger with a fresh seed that never joins the room", async () => {
      const e = await enter({ seed: "helpme" });
      const before = await counts();
      const r = await h.sc("call_for_help", { challenge_handle: e.attempt_handle, ally: "grok-4.6" });
      expect(r).toMatchObject({ ok: true, attempt_handle: e.attempt_handle, ally: "grok-4.6", action_index: 0 });
      expect(r.ally_seed).not.toBe("helpme");
      const after = await counts();
      expect(after[0]).toBe(before[0]); // no attempt created for the ally
      expect(after[3]).toBe((before[3] as number) + 1);
      expectError(
        await h.sc("call_for_help", { challenge_handle: e.attempt_handle, ally: "Bad Ally" }),
        "value_format_invalid",
      );
    });
  });

  describe("toolset versions and aliases", () => {
    it("lists canonical names only, with the 0.3.2 schemas verbatim", async () => {
      const { tools } = await h.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOLSET_0_3_2.canonical_tools.map((t) => t.name));
      for (const t of tools) {
        const c = TOOLSET_0_3_2.canonical_tools.find((x) => x.name === t.name);
        expect(t.inputSchema).toEqual(c?.inputSchema);
        expect(t.outputSchema).toEqual(c?.outputSchema);
      }
    });

    it("accepts the 0.2.0 aliases through 2027-02-21 and refuses them after, naming the canonical tool", async () => {
      h.clock.set("2027-02-21T23:59:59.000Z");
      const ok = await h.sc("start_challenge", IDENTITY);
      expect(ok.ok).toBe(true);
      expect((await h.sc("challenge_action", { challenge_handle: ok.attempt_handle, op: "look" })).ok).toBe(true);
      h.clock.set("2027-02-22T00:00:00.000Z");
      for (const [alias, canonical] of [
        ["start_challenge", "enter_open_challenge"],
        ["challenge_action", "chamber_action"],
        ["finish_challenge", "seal_attempt"],
      ]) {
        const r = await h.sc(alias as string, IDENTITY);
        expectError(r, "toolset_version_mismatch");
        expect(r.error).toContain(canonical);
      }
    });

    it("refuses a client pinned to another toolset", async () => {
      const r = await h.sc("enter_open_challenge", IDENTITY, { "scoreia/toolset_id": "scoreia-chamber-tools/0.3.0" });
      expectError(r, "toolset_version_mismatch");
      const ok = await h.sc("enter_open_challenge", IDENTITY, { "scoreia/toolset_id": "scoreia-chamber-tools/0.3.2" });
      expect(ok.ok).toBe(true);
    });

    it("answers an unknown tool with JSON-RPC -32602", async () => {
      await expect(h.call("list_suites", {})).rejects.toMatchObject({ code: -32602 });
    });
  });

  it("reaches every error code of the contract", () => {
    expect([...reached].sort()).toEqual([...TOOLSET_0_3_2.error_codes].sort());
  });
});
