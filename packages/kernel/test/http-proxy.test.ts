import { afterEach, describe, expect, it } from "vitest";
import { type HttpHandle, type HttpOptions, serveHttp } from "../src/transport/http.ts";
import { TrustedProxies } from "../src/transport/proxy.ts";
import { type FakeCtx, LIMITS, makeFixture } from "./fixtures.ts";

/**
 * Per-address admission behind a load balancer (`trustProxy`, docs/deploy.md "Behind a proxy"):
 * the client address comes from X-Forwarded-For only when the socket peer is a trusted proxy, and
 * then it is the rightmost hop that is not one. The test's requests arrive from 127.0.0.1, which
 * plays the balancer.
 */
describe("TrustedProxies: the client address behind trusted proxies", () => {
  const proxies = new TrustedProxies(["10.0.0.0/8", "192.168.1.7", "fd00::/8"]);

  it("takes the rightmost hop that is not a trusted proxy", () => {
    expect(proxies.clientAddress("10.1.2.3", "203.0.113.5")).toBe("203.0.113.5");
    // The client forged a left part; our proxies appended the rest.
    expect(proxies.clientAddress("10.1.2.3", "198.51.100.1, 203.0.113.5, 192.168.1.7")).toBe("203.0.113.5");
    expect(proxies.clientAddress("fd00::1", "2001:db8::42, 10.9.9.9")).toBe("2001:db8::42");
  });

  it("ignores the header when the peer is not a trusted proxy", () => {
    expect(proxies.clientAddress("203.0.113.9", "198.51.100.1")).toBe("203.0.113.9");
    expect(proxies.clientAddress("192.168.1.8", "198.51.100.1")).toBe("192.168.1.8");
    expect(proxies.clientAddress("10.1.2.3", undefined)).toBe("10.1.2.3");
  });

  it("reads IPv4-mapped peers as IPv4, and hops with ports or brackets as their address", () => {
    expect(proxies.clientAddress("::ffff:10.0.0.1", "203.0.113.5:4711")).toBe("203.0.113.5");
    expect(proxies.clientAddress("10.0.0.1", "[2001:db8::7]:443")).toBe("2001:db8::7");
  });

  it("stops at a malformed hop: the proxy that passed it on is the client (never a name the client chose)", () => {
    expect(proxies.clientAddress("10.0.0.1", "evil, unknown")).toBe("10.0.0.1");
    expect(proxies.clientAddress("10.0.0.1", "evil, 10.0.0.2")).toBe("10.0.0.2");
  });

  it("when every hop is trusted, the leftmost one is the client", () => {
    expect(proxies.clientAddress("10.0.0.1", "10.0.0.3, 10.0.0.2")).toBe("10.0.0.3");
  });

  it("refuses what is not an address or CIDR block, with the value in the message", () => {
    expect(() => new TrustedProxies(["10.0.0.0/33"])).toThrow(
      'trusted proxy "10.0.0.0/33": prefix length must be 1..32',
    );
    // A /0 block trusts every peer: any client could then pick its own address for the limits.
    for (const all of ["0.0.0.0/0", "::/0"]) {
      expect(() => new TrustedProxies([all])).toThrow(
        new RegExp(`"${all.replace(/\./g, "\\.")}" would trust every address`),
      );
    }
    expect(() => new TrustedProxies(["proxy.internal"])).toThrow(/IP address or CIDR block.*"proxy\.internal"/);
    expect(() => new TrustedProxies(["10.0.0.0/8/1"])).toThrow(/IP address or CIDR block/);
    expect(() => TrustedProxies.parse("10.0.0.0/8,,::1")).toThrow(/comma-separated list/);
    expect(TrustedProxies.parse(" 10.0.0.0/8 , ::1 ").entries).toEqual(["10.0.0.0/8", "::1"]);
  });
});

describe("trustProxy on the HTTP listener", () => {
  const open: HttpHandle[] = [];
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
  });

  async function serve(extra: Partial<HttpOptions<FakeCtx>>): Promise<HttpHandle> {
    const h = await serveHttp({ mcp: makeFixture().mcp, port: 0, maxRequestBytes: LIMITS.maxRequestBytes, ...extra });
    open.push(h);
    return h;
  }

  const initialize = (h: HttpHandle, forwardedFor?: string) =>
    fetch(h.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "proxied", version: "1" } },
      }),
    }).then(async (r) => {
      const body = await r.text();
      return { status: r.status, body };
    });

  const sessionLimits = { perAddress: 2, global: 5, windowSeconds: 60 };

  it("from a trusted proxy, new sessions are capped per forwarded client, and in all", async () => {
    const h = await serve({ sessionLimits, trustProxy: ["127.0.0.1"] });
    const a = "203.0.113.5";
    expect((await initialize(h, a)).status).toBe(200);
    expect((await initialize(h, `198.51.100.77, ${a}`)).status).toBe(200);
    // A forged left part does not make a new client: a's third session is refused.
    const third = await initialize(h, `198.51.100.78, ${a}`);
    expect(third.status).toBe(429);
    expect(third.body).toContain("too many new MCP sessions from this address: at most 2 per 60 s");
    // Other clients behind the same balancer still get in, up to the global cap of 5.
    expect((await initialize(h, "203.0.113.6")).status).toBe(200);
    expect((await initialize(h, "203.0.113.7")).status).toBe(200);
    expect((await initialize(h, "203.0.113.8")).status).toBe(200);
    const sixth = await initialize(h, "203.0.113.9");
    expect(sixth.status).toBe(429);
    expect(sixth.body).toContain("too many new MCP sessions on this server: at most 5 per 60 s in all");
  });

  it("without trustProxy, X-Forwarded-For is ignored: every request is the socket peer's", async () => {
    const h = await serve({ sessionLimits });
    expect((await initialize(h, "203.0.113.5")).status).toBe(200);
    expect((await initialize(h, "203.0.113.6")).status).toBe(200);
    expect((await initialize(h, "203.0.113.7")).status).toBe(429);
  });

  it("a peer outside the trusted list cannot choose its address with the header", async () => {
    const h = await serve({ sessionLimits, trustProxy: ["10.0.0.0/8"] });
    expect((await initialize(h, "203.0.113.5")).status).toBe(200);
    expect((await initialize(h, "203.0.113.6")).status).toBe(200);
    expect((await initialize(h, "203.0.113.7")).status).toBe(429);
  });

  it("the public door's admission limits count forwarded clients too", async () => {
    const h = await serve({
      trustProxy: ["127.0.0.0/8"],
      admission: { perAddress: 1, global: 100, windowSeconds: 60 },
      routes: (app) => {
        app.get("/hello", (c) => c.text("hi"));
      },
    });
    const hello = (xff: string) =>
      fetch(h.url.replace(/\/mcp$/, "/hello"), { headers: { "x-forwarded-for": xff } }).then((r) => r.status);
    expect(await hello("203.0.113.5")).toBe(200);
    expect(await hello("203.0.113.5")).toBe(429);
    expect(await hello("203.0.113.6")).toBe(200);
  });

  it("a bad trustProxy entry refuses to build the listener", async () => {
    await expect(serve({ trustProxy: ["localhost"] })).rejects.toThrow(/IP address or CIDR block.*"localhost"/);
  });
});
