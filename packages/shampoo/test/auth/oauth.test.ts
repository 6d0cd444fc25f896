import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpHandle, ManualClock, type SessionInfo, serveHttp } from "kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/access/caller.ts";
import { LIMITS, openShampoo, type Shampoo } from "../../src/app.ts";
import { OAuthVerifier, parseOAuth } from "../../src/domains/auth/oauth.ts";

/** SHAMPOO as an OAuth 2.1 resource server: JWT access tokens from one issuer, for this audience. */
const ISSUER = "https://auth.example";
const AUDIENCE = "https://shampoo.example/mcp";
const clock = new ManualClock("2026-12-01T00:00:00.000Z");
const es = generateKeyPairSync("ec", { namedCurve: "P-256" });
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwk = (k: KeyObject, kid: string) => ({ ...k.export({ format: "jwk" }), kid });
const config = parseOAuth({
  issuer: ISSUER,
  audience: AUDIENCE,
  jwks: { keys: [jwk(es.publicKey, "ec-1"), jwk(rsa.publicKey, "rsa-1")] },
  subjects: [
    { subject: "u-1", principal: "alice", role: "agent", grants: ["ops", ""] },
    { subject: "u-2", principal: "boss", role: "conductor", grants: ["*"], profile: "team" },
  ],
});
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
function jwt(claims: Record<string, unknown>, opts: { alg?: string; kid?: string; key?: KeyObject } = {}): string {
  const alg = opts.alg ?? "ES256";
  const head = `${b64({ alg, kid: opts.kid ?? (alg === "RS256" ? "rsa-1" : "ec-1"), typ: "at+jwt" })}.${b64({
    iss: ISSUER,
    aud: AUDIENCE,
    sub: "u-1",
    scope: "shampoo",
    exp: clock.now() / 1000 + 300,
    ...claims,
  })}`;
  const key = opts.key ?? (alg === "RS256" ? rsa.privateKey : es.privateKey);
  const sig = sign("sha256", Buffer.from(head), alg === "ES256" ? { key, dsaEncoding: "ieee-p1363" } : key);
  return `${head}.${sig.toString("base64url")}`;
}

describe("OAuth access tokens", () => {
  const v = new OAuthVerifier(config, clock);
  it("map issuer, subject and scopes to the configured principal and grants", async () => {
    const alice = await v.authenticate(jwt({}));
    expect(alice).toMatchObject({ principal: "alice", role: "agent", profile: "default", untagged: true, star: false });
    expect(await v.authenticate(jwt({}, { alg: "RS256" }))).toMatchObject({ principal: "alice" });
    expect(await v.authenticate(jwt({ sub: "u-2", scope: "shampoo shampoo:conductor" }))).toMatchObject({
      principal: "boss",
      role: "conductor",
      profile: "team",
      star: true,
    });
    // a conductor subject without the conductor scope acts as an agent
    expect(await v.authenticate(jwt({ sub: "u-2" }))).toMatchObject({ principal: "boss", role: "agent" });
  });
  it("refuse any other audience, issuer, key, expiry, scope, subject or shape", async () => {
    const refused = [
      jwt({ aud: "https://other.example/mcp" }),
      jwt({ aud: [] }),
      jwt({ iss: "https://evil.example" }),
      jwt({ exp: clock.now() / 1000 - 120 }),
      jwt({ exp: undefined }),
      jwt({ nbf: clock.now() / 1000 + 600 }),
      jwt({ scope: "other" }),
      jwt({ sub: "u-9" }),
      jwt({}, { key: other.privateKey }),
      jwt({}, { kid: "unknown" }),
      `${jwt({}).split(".").slice(0, 2).join(".")}.`,
      `${b64({ alg: "none" })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: "u-1", scope: "shampoo", exp: 9e9 })}.`,
      `${jwt({})}.extra`,
      "not-a-jwt",
    ];
    for (const t of refused) expect(await v.authenticate(t), t).toBeNull();
  });
  it("the configuration is strict", () => {
    const base = { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [] }, subjects: [{ subject: "s", principal: "p", role: "agent", grants: [] }] }; // biome-ignore format: one value
    expect(() => parseOAuth({ ...base, extra: 1 })).toThrow(/unknown key/);
    expect(() => parseOAuth({ ...base, jwks_uri: "https://x" })).toThrow(/exactly one/);
    expect(() => parseOAuth({ ...base, subjects: [{ ...base.subjects[0], role: "root" }] })).toThrow(/role/);
    expect(() => parseOAuth({ ...base, audience: "" })).toThrow(/audience/);
  });
  it("fetches the issuer's JWKS for an unknown key, at most once a minute", async () => {
    let fetches = 0;
    const remote = new OAuthVerifier({ ...config, jwks: undefined, jwks_uri: `${ISSUER}/jwks` } as never, clock, async () => {
      fetches++;
      return { keys: [jwk(es.publicKey, "ec-1")] };
    }); // biome-ignore format: one call
    expect(await remote.authenticate(jwt({}))).toMatchObject({ principal: "alice" });
    expect(await remote.authenticate(jwt({}, { kid: "rotated" }))).toBeNull();
    expect(fetches).toBe(1);
  });
});

describe("the resource server on HTTP", () => {
  let shampoo: Shampoo;
  let http: HttpHandle;
  beforeAll(async () => {
    shampoo = await openShampoo({
      db: join(mkdtempSync(join(tmpdir(), "shampoo-oauth-")), "s.db"),
      resolveCaller: (s: SessionInfo) => s.auth?.extra?.caller as Caller,
    });
    const v = new OAuthVerifier(config, clock);
    http = await serveHttp({
      mcp: shampoo.mcp,
      port: 0,
      maxRequestBytes: LIMITS.maxRequestBytes,
      authenticate: async (req) => {
        const token = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
        const caller = token ? await v.authenticate(token) : null;
        return caller && { token: "oauth", clientId: caller.principal, scopes: [], extra: { caller } };
      },
      routes: v.routes(),
      wwwAuthenticate: `Bearer resource_metadata="${AUDIENCE.replace("/mcp", "")}/.well-known/oauth-protected-resource/mcp"`,
    });
  });
  afterAll(async () => {
    await http.close();
    await shampoo.close();
  });
  it("serves RFC 9728 metadata, points 401s at it, and serves a token's principal", async () => {
    const base = http.url.replace(/\/mcp$/, "");
    const meta = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(meta).toMatchObject({ resource: AUDIENCE, authorization_servers: [ISSUER], bearer_methods_supported: ["header"] }); // biome-ignore format: one check
    const denied = await fetch(http.url, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="https://shampoo.example/.well-known/oauth-protected-resource/mcp"',
    );
    const client = new Client({ name: "oauth", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${jwt({})}` } } }), // biome-ignore format: one call
    );
    const r = await client.callTool({ name: "create_task_or_note", arguments: { title: "via oauth", project: "ops" } });
    expect(r.isError).toBeFalsy();
    const denied2 = await client.callTool({ name: "create_task_or_note", arguments: { title: "x", project: "hr" } });
    expect(denied2.isError).toBe(true);
    await client.close();
  });
});
