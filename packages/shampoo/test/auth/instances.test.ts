import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type HttpHandle, type SessionInfo, serveHttp, systemClock } from "kernel";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/access/caller.ts";
import { authenticateBearer, parseConfig } from "../../src/access/config.ts";
import { LIMITS, openShampoo, type Shampoo } from "../../src/app.ts";
import { type Challenge, httpCall, prepareCompletion, RenewingSession } from "../../src/domains/auth/client.ts";
import { authHttp } from "../../src/domains/auth/http.ts";
import { login } from "../../src/domains/auth/login.ts";

/**
 * Two SHAMPOO instances on one PostgreSQL database, each serving Streamable HTTP with the auth
 * registry (as `shampoo serve --http --config` wires it): a challenge issued by one completes on
 * the other; a session token resolves its caller on both; a revocation on one refuses the very
 * next call on the other; `shampoo login` enrols on one and renews on the other.
 */
const schema = `shauth_${process.pid}_${Date.now()}`;
const SECRET = "two instances share this session secret";
const CONDUCTOR_TOKEN = "conductor-token-0123456789";
const config = parseConfig(
  JSON.stringify({ principals: [{ token: CONDUCTOR_TOKEN, principal: "cond", role: "conductor", grants: ["*", ""] }] }),
);
const instances: Shampoo[] = [];
let https: HttpHandle[] = [];
const clients: Client[] = [];

async function connect(url: string, token: string, name = "t"): Promise<Client> {
  const client = new Client({ name, version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}?toolsets=all`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}
const sc = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = await c.callTool({ name, arguments: args });
  if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
  return r.structuredContent as Record<string, unknown>;
};

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    instances.push(
      await openShampoo({
        db: PG_URL,
        pgSchema: schema,
        resolveCaller: (s: SessionInfo) => s.auth?.extra?.caller as Caller,
      }),
    );
  }
  https = await Promise.all(
    instances.map(async (s) => {
      const auth = authHttp({
        database: s.database,
        registry: s.registry,
        clock: systemClock,
        fallback: (req) => {
          const p = authenticateBearer(config, req.headers.get("authorization") ?? undefined);
          return p && { token: "bearer", clientId: p.caller.principal, scopes: [], extra: { caller: p.caller } };
        },
      });
      return serveHttp({
        mcp: s.mcp,
        port: 0,
        maxRequestBytes: LIMITS.maxRequestBytes,
        sessionSecret: SECRET,
        authenticate: auth.authenticate,
        routes: auth.routes,
      });
    }),
  );
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const h of https) await h.close();
  for (const s of instances) await s.close();
  await dropPgSchema(schema);
});

describe("the auth registry on two instances over one PostgreSQL", () => {
  it("challenge on one, completion on the other; revocation on one refuses the next call on the other", async () => {
    const [a, b] = https.map((h) => h.url) as [string, string];
    const cond = await connect(a, CONDUCTOR_TOKEN, "conductor");
    const t = await sc(cond, "issue_ticket", { user: "agent-x", projects: ["alpha"] });
    const cred = { refKind: "ticket" as const, refId: String(t.ticket_id), secret: String(t.secret) };

    // no token: the MCP endpoint refuses; the handshake routes are open
    expect((await fetch(a, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).status).toBe(401); // biome-ignore format: one check
    const ch = (await httpCall(a)("handshake_challenge", { ref_kind: "ticket", ref_id: cred.refId })) as unknown as Challenge; // biome-ignore format: one call
    const done = prepareCompletion(ch, cred);
    const grant = done.open(await httpCall(b)("handshake_complete", done.args));
    expect(grant.principal).toBe("agent-x");
    // the replay on the first instance: the challenge was consumed on the second
    const replay = await fetch(new URL("/auth/handshake_complete", a), { method: "POST", body: JSON.stringify(done.args) }); // biome-ignore format: one call
    expect(replay.status).toBe(401);
    expect(await replay.text()).toBe('{"error":"handshake failed","error_type":"handshake_failed"}');

    // the session token is a bearer on both instances, with the ticket's grant and nothing more
    const onB = await connect(b, grant.session_token, "agent-on-b");
    const made = await sc(onB, "create_task_or_note", { title: "from b", project: "alpha" });
    expect(made).toBeTruthy();
    const denied = await onB.callTool({ name: "create_task_or_note", arguments: { title: "x", project: "beta" } });
    expect(denied.isError).toBe(true);
    const onA = await connect(a, grant.session_token, "agent-on-a");
    await sc(onA, "create_task_or_note", { title: "from a", project: "alpha" });
    const refused = await onA.callTool({ name: "issue_ticket", arguments: { user: "y", projects: ["alpha"] } });
    expect(refused.structuredContent).toMatchObject({ error_type: "requires-conductor" });

    // revoke on A; the next call on B is refused (401 at the transport)
    const listed = await sc(cond, "list_sessions", { client_id: grant.client_id, status: "active" });
    expect(listed.count).toBe(1);
    await sc(cond, "revoke_session", { session_id: grant.session_id, reason: "test" });
    await expect(onB.callTool({ name: "query_tasks", arguments: { project: "alpha" } })).rejects.toThrow(/401|Unauthorized/); // biome-ignore format: one check
    await expect(onA.callTool({ name: "query_tasks", arguments: { project: "alpha" } })).rejects.toThrow(/401|Unauthorized/); // biome-ignore format: one check

    // the principal renews with its bootstrap secret (on B), then revoke_principal on B ends that on A
    const renewing = new RenewingSession(httpCall(b), { ...grant, expires_at: new Date(0).toISOString() }, String(grant.bootstrap_secret)); // biome-ignore format: one call
    const token = await renewing.token();
    expect(token).not.toBe(grant.session_token);
    const again = await connect(a, token, "agent-renewed");
    await sc(again, "query_tasks", { project: "alpha" });
    const byB = await connect(b, CONDUCTOR_TOKEN, "conductor-b");
    expect(await sc(byB, "revoke_principal", { client_id: grant.client_id })).toMatchObject({ revoked: true, sessions_revoked: 1 }); // biome-ignore format: one check
    await expect(again.callTool({ name: "query_tasks", arguments: { project: "alpha" } })).rejects.toThrow(/401|Unauthorized/); // biome-ignore format: one check
  });

  it("two agents at once on one instance each get their own answers", async () => {
    const [a] = https.map((h) => h.url) as [string];
    const cond = await connect(a, CONDUCTOR_TOKEN);
    const agents = [];
    for (const p of ["red", "blue"]) {
      const t = await sc(cond, "issue_ticket", { user: `agent-${p}`, projects: [p] });
      const dir = mkdtempSync(join(tmpdir(), "shampoo-login-"));
      const c = await login({ url: a, ticket: String(t.ticket_id), secret: String(t.secret), credentials: join(dir, "c.json") }); // biome-ignore format: one call
      agents.push({ p, client: await connect(a, c.session_token, p) });
    }
    const results = await Promise.all(
      agents.flatMap(({ p, client }) =>
        Array.from({ length: 5 }, (_, i) => sc(client, "create_task_or_note", { title: `${p} ${i}`, project: p })),
      ),
    );
    expect(results.length).toBe(10);
    for (const { p, client } of agents) {
      const q = await sc(client, "query_tasks", {});
      const titles = (q.tasks as Array<{ title: string; project: string }>).map((x) => x.project);
      expect(titles.length).toBe(5);
      expect(new Set(titles)).toEqual(new Set([p]));
    }
  });

  it("shampoo login enrols on one instance and renews on the other; the file is private", async () => {
    const [a, b] = https.map((h) => h.url) as [string, string];
    const cond = await connect(a, CONDUCTOR_TOKEN);
    const t = await sc(cond, "issue_ticket", { user: "cli-agent", projects: ["gamma"] });
    const file = join(mkdtempSync(join(tmpdir(), "shampoo-login-")), "credentials.json");
    const first = await login({ url: a, ticket: String(t.ticket_id), secret: String(t.secret), credentials: file });
    expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
    const renewed = await login({ url: b, credentials: file });
    expect(renewed.client_id).toBe(first.client_id);
    expect(renewed.session_token).not.toBe(first.session_token);
    expect(JSON.parse(readFileSync(file, "utf8")).session_token).toBe(renewed.session_token);
    await expect(login({ url: a, ticket: String(t.ticket_id), secret: String(t.secret), credentials: file })).rejects.toThrow("handshake failed"); // biome-ignore format: one check
  });
});
