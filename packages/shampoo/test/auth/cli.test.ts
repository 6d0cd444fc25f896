import { spawn } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, connectHttp, type HttpServer, newToken, ROOT, startHttp, tempDir } from "../e2e/support.ts";

/**
 * The real binary: `shampoo serve --http --config FILE` takes registry session tokens and, with
 * an "oauth" section, OAuth access tokens beside the file's own; `shampoo login` enrols with a
 * ticket and renews from its credentials file.
 */
const tmp = tempDir("auth-cli");
const CONDUCTOR = newToken();
const ISSUER = "https://auth.example";
const AUDIENCE = "https://shampoo.example/mcp";
const key = generateKeyPairSync("ec", { namedCurve: "P-256" });
let server: HttpServer;

function login(args: string[], secret?: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...(secret ? { SHAMPOO_TICKET_SECRET: secret } : {}) };
    const child = spawn(process.execPath, [BIN, "login", ...args], {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    child.once("close", (code) => resolve({ code, out, err }));
  });
}

function jwt(sub: string): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const head = `${b64({ alg: "ES256", kid: "k1" })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub, scope: "shampoo", exp: Date.now() / 1000 + 300 })}`; // biome-ignore format: one value
  return `${head}.${sign("sha256", Buffer.from(head), { key: key.privateKey, dsaEncoding: "ieee-p1363" }).toString("base64url")}`; // biome-ignore format: one value
}

beforeAll(async () => {
  const config = join(tmp.dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      principals: [{ token: CONDUCTOR, principal: "cond", role: "conductor", grants: ["*", ""] }],
      oauth: {
        issuer: ISSUER,
        audience: AUDIENCE,
        jwks: { keys: [{ ...key.publicKey.export({ format: "jwk" }), kid: "k1" }] },
        subjects: [{ subject: "sso-7", principal: "sso-user", role: "agent", grants: ["sso"] }],
      },
    }),
  );
  chmodSync(config, 0o600);
  server = await startHttp(["--db", join(tmp.dir, "s.db"), "--config", config]);
});

afterAll(async () => {
  await server.stop();
  tmp.remove();
});

describe("shampoo serve --http --config with the auth registry", () => {
  it("login enrols with a ticket, the token calls tools, login renews, revocation refuses the next call", async () => {
    const cond = await connectHttp(`${server.url}?toolsets=all`, CONDUCTOR, "conductor");
    const t = await cond.sc("issue_ticket", { user: "cli-agent", projects: ["cli"] });
    const file = join(tmp.dir, "credentials.json");
    const first = await login(["--url", server.url, "--ticket", String(t.ticket_id), "--credentials", file], String(t.secret)); // biome-ignore format: one call
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("logged in as cli-agent");
    const creds = JSON.parse(readFileSync(file, "utf8"));
    const agent = await connectHttp(server.url, creds.session_token, "agent");
    expect((await agent.call("create_task_or_note", { title: "via login", project: "cli" })).isError).toBeFalsy();

    const again = await login(["--url", server.url, "--ticket", String(t.ticket_id), "--credentials", join(tmp.dir, "x.json")], String(t.secret)); // biome-ignore format: one call
    expect(again.code).toBe(1);
    expect(again.err).toContain("handshake failed");

    const renewed = await login(["--credentials", file]);
    expect(renewed.code, renewed.err).toBe(0);
    const next = JSON.parse(readFileSync(file, "utf8"));
    expect(next.session_token).not.toBe(creds.session_token);
    await cond.sc("revoke_session", { session_id: creds.session_token.split(".")[1] });
    await expect(agent.client.callTool({ name: "query_tasks", arguments: {} })).rejects.toThrow(/401|Unauthorized/);
    const fresh = await connectHttp(server.url, next.session_token, "agent-renewed");
    expect((await fresh.call("query_tasks", {})).isError).toBeFalsy();
  });

  it("an OAuth access token from the configured issuer is its subject's principal; metadata per RFC 9728", async () => {
    const base = server.url.replace(/\/mcp$/, "");
    const meta = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(meta).toMatchObject({ resource: AUDIENCE, authorization_servers: [ISSUER] });
    const denied = await fetch(server.url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }); // biome-ignore format: one call
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toContain("resource_metadata=");
    const sso = await connectHttp(server.url, jwt("sso-7"), "sso");
    expect((await sso.call("create_task_or_note", { title: "via sso", project: "sso" })).isError).toBeFalsy();
    expect((await sso.call("create_task_or_note", { title: "x", project: "cli" })).isError).toBe(true);
    await expect(connectHttp(server.url, jwt("sso-unknown"), "nobody")).rejects.toThrow(/401|Unauthorized/);
  });
});
