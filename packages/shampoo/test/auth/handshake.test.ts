import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localCaller } from "../../src/access/caller.ts";
import type { ShampooCtx } from "../../src/context.ts";
import { type Challenge, handshake, prepareCompletion } from "../../src/domains/auth/client.ts";
import { resolveSessionToken } from "../../src/domains/auth/service/registry.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

/** The one answer of every handshake failure, byte for byte. */
const FAILED = JSON.stringify({ error: "handshake failed", error_type: "handshake_failed" });

const b64 = (b: Uint8Array | Buffer) => Buffer.from(b).toString("base64url");
const flip = (s: string, at = 5) => {
  const b = Buffer.from(s, "base64url");
  b[at] = (b[at] as number) ^ 1;
  return b64(b);
};

describe.each(DIALECTS)("auth handshake on %s", (dialect) => {
  let h: Harness;
  let conductor: Agent;
  let host: Agent;
  let ctx: ShampooCtx;
  const sc = async (a: Agent, tool: string, args: Record<string, unknown>) => {
    const r = await a.call(tool, args);
    if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
    return r.structuredContent as Record<string, unknown>;
  };
  /** The raw answer bytes of a call that must fail. */
  const failure = async (tool: string, args: Record<string, unknown>) => {
    const r: CallToolResult = await host.call(tool, args);
    expect(r.isError).toBe(true);
    return JSON.stringify(r.structuredContent);
  };
  const hostCall = (tool: string, args: Record<string, unknown>) => sc(host, tool, args);
  const ticket = (over: Record<string, unknown> = {}) =>
    sc(conductor, "issue_ticket", { user: "agent-7", projects: ["p1"], ...over });
  const challenge = async (refKind: string, refId: string) =>
    (await hostCall("handshake_challenge", { ref_kind: refKind, ref_id: refId })) as unknown as Challenge;

  beforeAll(async () => {
    h = await harness(dialect);
    conductor = await h.as({ principal: "cond", role: "conductor", grants: ["p1", "p2", ""] });
    // Handshake calls come from a caller with nothing: its identity never matters to them.
    host = await h.as({ principal: "pre-auth", grants: ["nothing"] });
    ctx = { caller: localCaller(), source: { tool: "", session: "test" }, clock: h.clock, database: h.db };
  });
  afterAll(async () => {
    await h.close();
  });

  it("a ticket enrols its principal with the server-held grant; the bootstrap secret renews", async () => {
    const t = await ticket({ role: "agent", projects: ["p1", ""] });
    expect(Object.keys(t).sort()).toEqual(["expires_at", "note", "profile", "secret", "ticket_id"]);
    const grant = await handshake(hostCall, {
      refKind: "ticket",
      refId: String(t.ticket_id),
      secret: String(t.secret),
      client: { client_name: "claude-code", client_version: "2.1", client_kind: "client" },
    });
    expect(grant).toMatchObject({ principal: "agent-7", profile: "default" });
    expect(grant.bootstrap_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(grant.expires_at) - h.clock.now()).toBe(3600_000);
    const caller = await resolveSessionToken(ctx, grant.session_token);
    expect(caller).toMatchObject({
      principal: "agent-7",
      role: "agent",
      profile: "default",
      untagged: true,
      star: false,
    });
    expect([...(caller?.projects ?? [])]).toEqual(["p1"]);

    const renewed = await handshake(hostCall, {
      refKind: "bootstrap",
      refId: grant.client_id,
      secret: String(grant.bootstrap_secret),
    });
    expect(renewed.client_id).toBe(grant.client_id);
    expect(renewed.bootstrap_secret).toBeUndefined();
    expect(renewed.session_id).not.toBe(grant.session_id);
    const listed = await sc(conductor, "list_sessions", { client_id: grant.client_id });
    expect(listed.count).toBe(2);
    const rows = listed.sessions as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.generation).sort()).toEqual([1, 2]);
    expect(rows.find((r) => r.generation === 1)).toMatchObject({
      status: "active",
      client_name: "claude-code",
      client_kind: "client",
      ref_kind: "ticket",
      revoked: false,
    });
    for (const r of rows) expect(JSON.stringify(r)).not.toMatch(/digest|seed|token/);
  });

  it("every failure answers the same bytes: replay, reused ticket, key lengths, tampering, expiry, full table, revocation", async () => {
    const answers: Record<string, string> = {};
    const t = await ticket();
    const cred = { refKind: "ticket" as const, refId: String(t.ticket_id), secret: String(t.secret) };

    // tampered envelope (ciphertext, then tag), tampered KEM ciphertext, wrong lengths: each burns its challenge
    const cases: Array<[string, (args: Record<string, string>) => Record<string, string>]> = [
      ["tampered envelope", (a) => ({ ...a, envelope_ct: flip(a.envelope_ct as string, 2) })],
      ["tampered envelope tag", (a) => ({ ...a, envelope_tag: flip(a.envelope_tag as string) })],
      ["tampered KEM ciphertext", (a) => ({ ...a, kem_ct: flip(a.kem_ct as string, 100) })],
      ["tampered client point", (a) => ({ ...a, client_ecdh: flip(a.client_ecdh as string, 40) })],
      [
        "short client point",
        (a) => ({ ...a, client_ecdh: b64(Buffer.from(a.client_ecdh as string, "base64url").subarray(0, 64)) }),
      ],
      ["compressed client point", (a) => ({ ...a, client_ecdh: b64(Buffer.alloc(33, 2)) })],
      [
        "short KEM ciphertext",
        (a) => ({ ...a, kem_ct: b64(Buffer.from(a.kem_ct as string, "base64url").subarray(1)) }),
      ],
      [
        "long KEM ciphertext",
        (a) => ({ ...a, kem_ct: b64(Buffer.concat([Buffer.from(a.kem_ct as string, "base64url"), Buffer.of(0)])) }),
      ],
      ["short nonce", (a) => ({ ...a, envelope_iv: b64(Buffer.alloc(11)) })],
      ["short tag", (a) => ({ ...a, envelope_tag: b64(Buffer.alloc(15)) })],
      ["missing KEM ciphertext", ({ kem_ct: _k, ...a }) => a],
      ["another profile than the transcript's", (a) => ({ ...a, profile: "other" })],
      ["not base64url", (a) => ({ ...a, kem_ct: `${a.kem_ct}=` })],
    ];
    for (const [name, mutate] of cases) {
      const ch = await challenge("ticket", cred.refId);
      const { args } = prepareCompletion(ch, cred);
      answers[name] = await failure("handshake_complete", mutate(args));
      // the failed attempt consumed the slot: the untouched completion fails as well
      answers[`${name}, then the honest retry`] = await failure("handshake_complete", args);
    }

    const wrong = await challenge("ticket", cred.refId);
    answers["wrong ticket secret"] = await failure(
      "handshake_complete",
      prepareCompletion(wrong, { ...cred, secret: "x".repeat(43) }).args,
    );
    const unknown = await challenge("ticket", "00000000-0000-4000-8000-000000000000");
    answers["unknown ticket"] = await failure("handshake_complete", prepareCompletion(unknown, { ...cred, refId: "00000000-0000-4000-8000-000000000000" }).args); // biome-ignore format: one case a line

    // the honest completion still works after all that, once
    const ok = await challenge("ticket", cred.refId);
    const c = prepareCompletion(ok, cred);
    const grant = c.open(await hostCall("handshake_complete", c.args));
    answers["replayed challenge"] = await failure("handshake_complete", c.args);
    const again = await challenge("ticket", cred.refId);
    answers["reused ticket"] = await failure("handshake_complete", prepareCompletion(again, cred).args);

    const late = await challenge("ticket", String((await ticket()).ticket_id));
    h.clock.advance(301_000);
    answers["expired challenge"] = await failure("handshake_complete", prepareCompletion(late, cred).args);
    answers["unknown challenge"] = await failure("handshake_complete", {
      ...prepareCompletion(late, cred).args,
      challenge_id: "00000000-0000-4000-8000-000000000001",
    });

    answers["bad ref kind"] = await failure("handshake_challenge", { ref_kind: "password", ref_id: "x" });
    answers["bad ref shape"] = await failure("handshake_challenge", { ref_kind: "ticket", ref_id: "a b" });
    answers["bad client kind"] = await failure("handshake_challenge", { ref_kind: "ticket", ref_id: "x", client_kind: "robot" }); // biome-ignore format: one case a line
    answers["overlong metadata"] = await failure("handshake_challenge", { ref_kind: "ticket", ref_id: "x", client_name: "n".repeat(201) }); // biome-ignore format: one case a line

    // the table of 64 live slots (the ones above expired with the clock)
    h.clock.advance(301_000);
    for (let i = 0; i < 64; i++) await challenge("ticket", `slot-${i}`);
    answers["full challenge table"] = await failure("handshake_challenge", { ref_kind: "ticket", ref_id: "slot-64" });
    h.clock.advance(301_000);
    await challenge("ticket", "slot-after-expiry");

    // revocation: the principal's bootstrap no longer opens a session; its session token resolves to nobody
    expect(await resolveSessionToken(ctx, grant.session_token)).not.toBeNull();
    h.clock.advance(3600_000); // the session's hour is over
    expect(await resolveSessionToken(ctx, grant.session_token)).toBeNull();
    const fresh = await handshake(hostCall, { refKind: "bootstrap", refId: grant.client_id, secret: String(grant.bootstrap_secret) }); // biome-ignore format: one case a line
    expect(await resolveSessionToken(ctx, fresh.session_token)).not.toBeNull();
    expect(await sc(conductor, "revoke_session", { session_id: fresh.session_id, reason: "test" })).toEqual({
      session_id: fresh.session_id,
      revoked: true,
      status: "revoked",
    });
    expect(await resolveSessionToken(ctx, fresh.session_token)).toBeNull();
    const third = await handshake(hostCall, { refKind: "bootstrap", refId: grant.client_id, secret: String(grant.bootstrap_secret) }); // biome-ignore format: one case a line
    expect(await sc(conductor, "revoke_principal", { client_id: grant.client_id })).toEqual({
      client_id: grant.client_id,
      revoked: true,
      status: "revoked",
      sessions_revoked: 1,
    });
    expect(await resolveSessionToken(ctx, third.session_token)).toBeNull();
    const revoked = await challenge("bootstrap", grant.client_id);
    answers["revoked principal"] = await failure(
      "handshake_complete",
      prepareCompletion(revoked, {
        refKind: "bootstrap",
        refId: grant.client_id,
        secret: String(grant.bootstrap_secret),
      }).args,
    );
    const revokedSession = await challenge("bootstrap", grant.client_id);
    answers["revoked session's principal, wrong secret"] = await failure(
      "handshake_complete",
      prepareCompletion(revokedSession, { refKind: "bootstrap", refId: grant.client_id, secret: "y".repeat(43) }).args,
    );

    const distinct = new Set(Object.values(answers));
    expect([...distinct]).toEqual([FAILED]);
    expect(Object.keys(answers).length).toBe(39);
  });

  it("16 concurrent redemptions of one ticket: exactly one succeeds", async () => {
    const t = await ticket({ user: "racer" });
    const cred = { refKind: "ticket" as const, refId: String(t.ticket_id), secret: String(t.secret) };
    const completions = [];
    for (let i = 0; i < 16; i++) completions.push(prepareCompletion(await challenge("ticket", cred.refId), cred));
    const results = await Promise.all(completions.map((c) => host.call("handshake_complete", c.args)));
    const ok = results.filter((r) => !r.isError);
    expect(ok.length).toBe(1);
    for (const r of results.filter((x) => x.isError)) expect(JSON.stringify(r.structuredContent)).toBe(FAILED);
    const principals = await h.db.db
      .selectFrom("shampoo_auth_principals")
      .select("client_id")
      .where("ticket_id", "=", cred.refId)
      .execute();
    expect(principals.length).toBe(1);
  });

  it("tickets: conductor only, within the issuer's grants, strict values", async () => {
    const agent = await h.as({ principal: "plain", grants: ["p1"] });
    const denied = await agent.call("issue_ticket", { user: "x", projects: ["p1"] });
    expect(denied.structuredContent).toMatchObject({ error_type: "requires-conductor" });
    const refused = { error: "ticket issue failed", error_type: "ticket_issue_failed" };
    for (const bad of [
      { user: "x", projects: ["p9"] },
      { user: "x", projects: ["*"] },
      { user: "x", projects: [] },
      { user: " ", projects: ["p1"] },
      { user: "x", projects: ["p1"], role: "admin" },
      { user: "x", projects: ["p1"], ticket_kind: "gold" },
      { user: "x", projects: ["p1"], ttl_seconds: 0 },
    ]) {
      const r = await conductor.call("issue_ticket", bad);
      expect(r.structuredContent, JSON.stringify(bad)).toEqual(refused);
    }
    const ok = await ticket({
      user: "boss",
      role: "conductor",
      projects: ["p2"],
      ticket_kind: "spoke",
      ttl_seconds: 60,
    });
    h.clock.advance(61_000);
    const ch = await challenge("ticket", String(ok.ticket_id));
    expect(
      await failure(
        "handshake_complete",
        prepareCompletion(ch, { refKind: "ticket", refId: String(ok.ticket_id), secret: String(ok.secret) }).args,
      ),
    ).toBe(FAILED);
  });

  it("list_sessions: the profile's sessions, status filters, clamped limit; conductor only", async () => {
    const all = await sc(conductor, "list_sessions", { limit: 1000 });
    expect(all.count).toBeGreaterThan(2);
    expect(all.count).toBeLessThanOrEqual(100);
    expect((await sc(conductor, "list_sessions", { limit: 0 })).count).toBe(1);
    expect(await sc(conductor, "list_sessions", { status: "paused" })).toEqual({ sessions: [], count: 0 });
    const revoked = await sc(conductor, "list_sessions", { status: "revoked" });
    expect((revoked.sessions as Array<{ status: string }>).every((s) => s.status === "revoked")).toBe(true);
    expect(revoked.count).toBeGreaterThan(0);
    const other = await h.as({ principal: "cond-b", role: "conductor", grants: ["*"], profile: "other" });
    expect(await sc(other, "list_sessions", {})).toEqual({ sessions: [], count: 0 });
    const r = await host.call("list_sessions", {});
    expect(r.structuredContent).toMatchObject({ error_type: "requires-conductor" });
    expect((await conductor.call("revoke_session", { session_id: "nope" })).structuredContent).toMatchObject({
      error: "session not found",
    });
  });
});
