/**
 * The `shampoo` command line: usage errors and refusals from the real binary, --insecure-local,
 * and the --config file rules (access/config.ts) case by case.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  authenticateBearer,
  ConfigError,
  callerFromFlags,
  describeCaller,
  loadConfig,
  parseConfig,
  parseGrants,
} from "../../src/access/config.ts";
import { connectHttp, newToken, runBin, startHttp, tempDir, writeConfig } from "./support.ts";

const tmp = tempDir("cli");
afterAll(() => tmp.remove());

const TOKEN = "tok-0123456789abcdef";
const entry = (over: Record<string, unknown> = {}) => ({
  token: TOKEN,
  principal: "alice",
  role: "agent",
  grants: ["ops"],
  ...over,
});
const doc = (...principals: unknown[]) => JSON.stringify({ principals });

describe("shampoo (usage)", () => {
  it("--help prints the usage and exits 0", async () => {
    const r = await runBin(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("shampoo serve --http [--port N] [--host ADDR] --config FILE");
    expect(r.out).toContain("--insecure-local");
    expect(r.out).toContain("default port 8421");
  });

  // Independent processes: run together (each is mostly the server's module loading).
  it.concurrent.for([
    [["frobnicate"], "unknown command frobnicate"],
    [["serve", "--bogus"], "Unknown option '--bogus'"],
    [["serve", "--http"], "--http needs --config FILE"],
    [["serve", "--http", "--insecure-local", "--host", "0.0.0.0"], "serves loopback only"],
    [["serve", "--http", "--port", "70000", "--insecure-local"], "--port must be 0..65535"],
    [["serve", "--insecure-local"], "--insecure-local goes with --http"],
    [["serve", "--port", "1"], "--port and --host need --http"],
    [["serve", "--role", "admin"], "--role must be agent or conductor, got admin"],
    [["serve", "--profile", "no spaces"], "--profile must match"],
    [["serve", "--config", "/nonexistent/shampoo.json"], "cannot read --config /nonexistent/shampoo.json"],
    [["serve", "--trust-proxy", "10.0.0.0/8"], "--trust-proxy applies to --http only"],
    [["serve", "--http", "--insecure-local", "--trust-proxy", "proxy.internal"], 'got "proxy.internal"'],
    [["serve", "--http", "--insecure-local", "--trust-proxy", "10.0.0.0/8,"], "comma-separated list"],
  ] as const)("refuses %j with exit 2", async ([args, message], { expect }) => {
    const r = await runBin([...args]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  it("refuses contradictory caller sources with a config file", async () => {
    const config = writeConfig(tmp.dir, [entry()]);
    const cases = [
      [["--http", "--insecure-local"], "contradict each other"],
      [["--http", "--principal", "alice"], "drop --principal/--role/--grants/--profile"],
      [["--principal", "alice", "--grants", "x"], "would contradict it"],
      [["--principal", "zed"], 'no principal "zed"'],
      [["--grants", "x"], "name the caller with --principal NAME"],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => runBin(["serve", "--config", config, ...args])));
    for (const [i, [args, message]] of cases.entries()) {
      expect(runs[i]?.code, args.join(" ")).toBe(2);
      expect(runs[i]?.err).toContain(message);
    }
  });

  it("refuses a bad config file naming the entry and the field, before opening anything", async () => {
    const file = join(tmp.dir, "bad.json");
    writeFileSync(file, doc(entry(), entry({ token: "x".repeat(20), role: "admin" })));
    const r = await runBin(["serve", "--http", "--config", file, "--db", join(tmp.dir, "never.db")]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}: principals[1].role must be "agent" or "conductor", got "admin"`);
  });
});

describe("shampoo serve --http --insecure-local", () => {
  it("lets every loopback connection act as the command-line caller, and says so loudly", async () => {
    const server = await startHttp([
      "--insecure-local",
      "--db",
      join(tmp.dir, "insecure.db"),
      "--principal",
      "dev",
      "--grants",
      "sandbox",
    ]);
    try {
      expect(server.stdout()).toContain("NO AUTHENTICATION (--insecure-local)");
      expect(server.stdout()).toContain("dev (conductor, profile default, grants: sandbox)");
      const s = await connectHttp(server.url);
      const ok = await s.call("create_task_or_note", { title: "anyone here is dev", project: "sandbox" });
      expect(ok.isError).toBeFalsy();
      const denied = await s.call("create_task_or_note", { title: "not granted", project: "elsewhere" });
      expect(denied.structuredContent).toMatchObject({ error_type: "scope" });
      await s.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("warns when the config file is readable by others", async () => {
    const config = writeConfig(tmp.dir, [entry({ token: newToken() })]);
    chmodSync(config, 0o644);
    const server = await startHttp(["--config", config, "--db", join(tmp.dir, "warn.db")]);
    try {
      await expect.poll(() => server.stderr()).toContain("is readable by others (mode 644); chmod 600 it");
    } finally {
      await server.stop();
    }
  });
});

describe("config files others can write", () => {
  for (const mode of [0o666, 0o620, 0o602]) {
    it(`refuses a config file of mode ${mode.toString(8)} (others can write it), naming why`, () => {
      const config = writeConfig(tmp.dir, [entry({ token: newToken() })]);
      chmodSync(config, mode);
      expect(() => loadConfig(config)).toThrow(
        new RegExp(
          `others can write it \\(mode ${mode.toString(8)}\\): anyone who can write it can make themselves any principal; chmod 600 it`,
        ),
      );
    });
  }
  it("a group- or world-readable file (644) still loads, with its warning", () => {
    const config = writeConfig(tmp.dir, [entry({ token: newToken() })]);
    chmodSync(config, 0o644);
    expect(loadConfig(config).warnings).toEqual([expect.stringContaining("is readable by others (mode 644)")]);
  });
});

describe("config file rules (access/config.ts)", () => {
  it("accepts the documented shape; profile defaults to default", () => {
    const c = parseConfig(
      doc(
        { token: TOKEN, principal: "alice", role: "agent", grants: ["shared-ops", ""], profile: "work" },
        { token: `${TOKEN}-2`, principal: "root", role: "conductor", grants: ["*", ""] },
      ),
    );
    expect(c.principals.map((p) => describeCaller(p.caller))).toEqual([
      'alice (agent, profile work, grants: shared-ops, "" (untagged))',
      'root (conductor, profile default, grants: * (every named project), "" (untagged))',
    ]);
  });

  it.each([
    ["{", "is not JSON"],
    ["[]", 'must be a JSON object {"principals":[…]}'],
    [JSON.stringify({ principals: [], admins: [] }), 'unknown key "admins"'],
    [JSON.stringify({ principals: [] }), '"principals" must be a non-empty array'],
    [doc("alice"), "principals[0] must be an object"],
    [doc(entry({ scopes: ["x"] })), 'principals[0]: unknown key "scopes"'],
    [doc(entry({ token: undefined })), "principals[0].token is required"],
    [doc(entry({ token: "short" })), "principals[0].token must be 16..512 characters (got 5)"],
    [doc(entry({ token: "has a space in it!" })), "principals[0].token may hold only"],
    [doc(entry({ principal: "  " })), "principals[0].principal is required"],
    [doc(entry({ role: "root" })), 'principals[0].role must be "agent" or "conductor", got "root"'],
    [doc(entry({ grants: [] })), "principals[0].grants must be a non-empty array"],
    [doc(entry({ grants: "ops" })), "principals[0].grants must be a non-empty array"],
    [doc(entry({ grants: [" ops"] })), "principals[0].grants[0] must be a project name"],
    [doc(entry({ grants: [3] })), "principals[0].grants[0] must be a project name"],
    [doc(entry({ profile: "a b" })), "principals[0].profile must match"],
    [doc(entry(), entry({ principal: "bob" })), "principals[1].token is the same as principals[0].token"],
  ])("refuses %s: %s", (text, message) => {
    expect(() => parseConfig(text, "cfg.json")).toThrow(ConfigError);
    expect(() => parseConfig(text, "cfg.json")).toThrow(message);
  });

  it("authenticates exactly one configured bearer token; the scheme is case-insensitive", () => {
    const other = `${TOKEN}-bob`;
    const c = parseConfig(doc(entry(), entry({ token: other, principal: "bob" })));
    expect(authenticateBearer(c, `Bearer ${TOKEN}`)?.caller.principal).toBe("alice");
    expect(authenticateBearer(c, `bearer ${other}`)?.caller.principal).toBe("bob");
    expect(authenticateBearer(c, [`Bearer ${TOKEN}`])?.caller.principal).toBe("alice");
    for (const h of [undefined, "", "Bearer", `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, `Bearer  ${TOKEN} extra`, TOKEN]) {
      expect(authenticateBearer(c, h), String(h)).toBeNull();
    }
  });

  it('parses --grants: "" or an empty item is the untagged enclave, * is every named project', () => {
    expect(parseGrants('a,b,"",*')).toEqual(["a", "b", "", "*"]);
    expect(parseGrants("a,b,,*")).toEqual(["a", "b", "", "*"]);
    expect(parseGrants("")).toEqual([""]);
    expect(parseGrants(" a , b ")).toEqual(["a", "b"]);
  });

  it("builds the command-line caller over the local principal's defaults", () => {
    expect(describeCaller(callerFromFlags({}))).toBe(
      'local (conductor, profile default, grants: * (every named project), "" (untagged))',
    );
    expect(describeCaller(callerFromFlags({ principal: "bob", role: "agent", grants: "x,y" }))).toBe(
      "bob (agent, profile default, grants: x, y)",
    );
    expect(describeCaller(callerFromFlags({ profile: "p2" }))).toContain("profile p2");
    const c = parseConfig(doc(entry({ profile: "work" })));
    expect(callerFromFlags({ principal: "alice" }, c)).toBe(c.principals[0]?.caller);
    expect(callerFromFlags({}, c).principal).toBe("local");
  });
});
