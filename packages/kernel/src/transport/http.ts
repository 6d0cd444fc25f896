import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerType } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import {
  createMcpHandler,
  type Implementation,
  isLegacyRequest,
  legacyStatelessFallback,
} from "@modelcontextprotocol/server";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { logger } from "../log.ts";
import { createMcpServer, type McpServerOptions, type SessionSeed } from "../server.ts";
import { type AdmissionLimits, Admitter } from "./admission.ts";
import { malformedToolsCall } from "./guard.ts";
import { TrustedProxies } from "./proxy.ts";
import { SessionSigner } from "./sessions.ts";

/** A product's own HTTP routes (public endpoints, pages): registers them on the app, one call per module. */
export type RouteHandler = (app: Hono) => void;

export interface HttpOptions<Ctx> {
  mcp: McpServerOptions<Ctx>;
  host?: string;
  port?: number;
  /** MCP endpoint path. */
  path?: string;
  /** Requests larger than this are refused with 413 before parsing. */
  maxRequestBytes: number;
  /** Host header values accepted on /mcp besides loopback on our port (DNS rebinding), e.g. "chamber.example". */
  allowedHosts?: string[];
  /** Route modules registered after /mcp, in order. */
  routes?: RouteHandler | RouteHandler[];
  /**
   * Resolves the caller of an MCP request (e.g. from `Authorization: Bearer …`). Returning null
   * answers 401; the result reaches tool handlers as SessionInfo.auth. Absent: no authentication.
   */
  authenticate?(req: Request): Promise<AuthResult | null> | AuthResult | null;
  /** The WWW-Authenticate value of a 401 (default `Bearer realm="mcp"`), e.g. RFC 9728's resource_metadata. */
  wwwAuthenticate?: string;
  /**
   * Secret that signs 2025-era session ids; every instance behind one endpoint must share it
   * (docs/deploy.md). Absent: random per process (sessions then live as long as this process).
   */
  sessionSecret?: string;
  /** Lifetime of a 2025-era session id, from its initialize. Default 24 h (docs/deploy.md, Sessions). */
  sessionTtlMs?: number;
  /** New 2025-era sessions admitted per client address and in all. Default 600 / 6,000 per minute: a signed id costs no memory, so the cap only bounds initialize work; one address may be a NAT or a test harness opening a client per call. */
  sessionLimits?: AdmissionLimits;
  /** Admission limits on every request of this listener (a public door). Absent: none. */
  admission?: AdmissionLimits;
  /**
   * Proxies (IP addresses or CIDR blocks) whose `X-Forwarded-For` names the client for the
   * per-address limits: the rightmost hop that is not one of them (proxy.ts). Absent: the socket
   * peer is the client, and the header is ignored.
   */
  trustProxy?: readonly string[];
}

export interface AuthResult {
  token: string;
  clientId: string;
  scopes: string[];
  extra?: Record<string, unknown>;
}

export interface HttpHandle {
  url: string;
  port: number;
  server: NodeServer;
  close(): Promise<void>;
}

export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_SESSION_LIMITS: AdmissionLimits = { perAddress: 600, global: 6000, windowSeconds: 60 };

type JsonRpcId = string | number | null;

/** The one JSON-RPC error body of this layer; `id` is the request's when it could be read. */
function rpcError(
  status: number,
  code: number,
  message: string,
  id: JsonRpcId = null,
  headers: Record<string, string> = {},
) {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function requestId(body: unknown): JsonRpcId {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function isInitialize(body: unknown): body is { params?: { clientInfo?: Implementation } } {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}

type NodeEnv = { incoming?: { socket?: { localPort?: number } } } | undefined;

/**
 * DNS-rebinding protection: Host must be loopback on the port this connection arrived on (or an
 * allowed value), and so must Origin when sent. The SDK's helpers compare host names only, which
 * would let a page served on another loopback port drive this server: a measured reason to keep
 * the port in the comparison.
 */
function loopbackGuard(c: Context, extra: string[]): boolean {
  const port = (c.env as NodeEnv)?.incoming?.socket?.localPort;
  const ok = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...extra]);
  const host = c.req.header("host")?.toLowerCase();
  if (!host || !ok.has(host)) return false;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  try {
    return ok.has(new URL(origin).host.toLowerCase());
  } catch {
    return false;
  }
}

/** The peer's address as the socket saw it, or behind trusted proxies the client they forward for. */
function clientAddress(c: Context, proxies: TrustedProxies | undefined): string {
  let peer: string;
  try {
    peer = getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
  return proxies ? proxies.clientAddress(peer, c.req.header("x-forwarded-for")) : peer;
}

/** A copy of the request without its session header (the stateless leg must not see one). */
function withoutSession(req: Request): Request {
  const headers = new Headers(req.headers);
  headers.delete("mcp-session-id");
  return new Request(req.url, { method: req.method, headers });
}

/**
 * Streamable HTTP on Hono, both protocol eras on one endpoint (docs/http.md "Protocol eras"):
 * a request carrying the 2026-07-28 `_meta` envelope is served by the SDK's per-request
 * handler; anything else is 2025-era, served statelessly per request under a self-verifying
 * session id (sessions.ts). No state outside the database and the request: any instance answers.
 * Loopback Host/Origin only on /mcp unless allowed (DNS rebinding: a page on another origin must
 * not drive a local server). Every response says `nosniff`.
 */
export function buildHttpApp<Ctx>(opts: HttpOptions<Ctx>): Hono {
  const path = opts.path ?? "/mcp";
  const allowed = (opts.allowedHosts ?? []).map((h) => h.toLowerCase());
  const signer = new SessionSigner(opts.sessionSecret, opts.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS);
  const newSessions = new Admitter(opts.sessionLimits ?? DEFAULT_SESSION_LIMITS, "new MCP sessions");
  const admission = opts.admission ? new Admitter(opts.admission, "requests") : undefined;
  const proxies = opts.trustProxy?.length ? new TrustedProxies(opts.trustProxy) : undefined;
  // Requests the SDK refuses (a bad envelope, an unknown version) are the client's error, answered
  // on the wire; only the rest is worth a line on stderr.
  const onerror = (e: Error) => {
    if (!/^(Rejected inbound request|Unsupported protocol version)/.test(e.message)) {
      logger("http").warn({ err: e.message }, "mcp http");
    }
  };

  const modern = createMcpHandler(
    (ctx) =>
      createMcpServer(opts.mcp, {
        sessionId: "stateless",
        transport: "http",
        era: "modern",
        ...(ctx.requestInfo ? { url: ctx.requestInfo.url } : {}),
        ...(ctx.authInfo ? { auth: ctx.authInfo as SessionSeed["auth"] & object } : {}),
      }),
    { legacy: "reject", maxRequestBodySize: opts.maxRequestBytes, onerror },
  );
  const legacy = (seed: SessionSeed) =>
    legacyStatelessFallback(() => createMcpServer(opts.mcp, { ...seed, era: "legacy" }), onerror, {
      maxRequestBodySize: opts.maxRequestBytes,
    });

  const app = new Hono();
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("x-content-type-options", "nosniff");
  });
  if (admission) {
    app.use("*", async (c, next) => {
      const a = await admission.admit(clientAddress(c, proxies));
      if (a.ok) return next();
      const headers = { "retry-after": String(a.retryAfterSeconds), "cache-control": "no-store" };
      const message = `${a.message}; retry after ${a.retryAfterSeconds} s`;
      if (c.req.path === path) return rpcError(429, -32000, `Too many requests: ${message}`, null, headers);
      return c.json({ error: "rate_limited", message }, 429, headers);
    });
  }

  app.use(path, async (c, next) => {
    if (!loopbackGuard(c, allowed))
      return rpcError(403, -32000, "Forbidden: Host or Origin not allowed (DNS rebinding protection)");
    return next();
  });
  app.use(
    path,
    bodyLimit({
      maxSize: opts.maxRequestBytes,
      onError: () => rpcError(413, -32600, `request exceeds max_request_bytes ${opts.maxRequestBytes}`),
    }),
  );

  app.all(path, async (c) => {
    let auth: AuthResult | undefined;
    if (opts.authenticate) {
      const a = await opts.authenticate(c.req.raw);
      if (!a) {
        return rpcError(401, -32001, "Unauthorized: a valid bearer token is required", null, {
          "www-authenticate": opts.wwwAuthenticate ?? 'Bearer realm="mcp"',
        });
      }
      auth = a;
    }
    const principal = auth?.clientId ?? "";
    const sessionHeader = c.req.header("mcp-session-id");
    const method = c.req.method;

    if (method === "GET" || method === "DELETE") {
      // 2025-era session operations. There is no stream to resume and no session to end early:
      // a valid id gets 405 (both allowed by the 2025 transport), anything else 404 (or 400 without an id).
      if (!sessionHeader) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      if (!signer.verify(sessionHeader, principal)) return rpcError(404, -32001, "Session not found");
      return rpcError(405, -32000, `Method not allowed: ${method} on a session; sessions end by expiry`, null, {
        allow: "POST",
      });
    }
    if (method !== "POST") return rpcError(405, -32000, "Method not allowed", null, { allow: "GET, POST, DELETE" });

    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return rpcError(400, -32700, "Parse error: body is not JSON");
    }
    if (Array.isArray(body) && body.length === 0) {
      return rpcError(400, -32600, "Invalid Request: an empty JSON-RPC batch");
    }
    const malformed = malformedToolsCall(body);
    if (malformed) return new Response(JSON.stringify(malformed), { headers: { "content-type": "application/json" } });
    const authInfo = auth ? { authInfo: auth } : {};

    if (!(await isLegacyRequest(c.req.raw, body, { maxRequestBodySize: opts.maxRequestBytes }))) {
      return modern.fetch(c.req.raw, { parsedBody: body, ...authInfo });
    }

    const id = requestId(body);
    if (isInitialize(body)) {
      const admitted = await newSessions.admit(clientAddress(c, proxies));
      if (!admitted.ok) {
        return rpcError(429, -32000, `Too many sessions: ${admitted.message}`, id, {
          "retry-after": String(admitted.retryAfterSeconds),
        });
      }
      const clientInfo = body.params?.clientInfo;
      const minted = signer.mint(principal, clientInfo);
      const seed: SessionSeed = {
        sessionId: minted.nonce,
        transport: "http",
        url: c.req.url,
        ...(clientInfo ? { clientInfo } : {}),
        ...(auth ? { auth } : {}),
      };
      const res = await legacy(seed)(withoutSession(c.req.raw), { parsedBody: body, ...authInfo });
      if (res.ok) res.headers.set("mcp-session-id", minted.id);
      return res;
    }
    if (!sessionHeader) return rpcError(400, -32000, "Bad Request: no session; send initialize first", id);
    const claims = signer.verify(sessionHeader, principal);
    if (!claims) return rpcError(404, -32001, "Session not found", id);
    const seed: SessionSeed = {
      sessionId: claims.n,
      transport: "http",
      url: c.req.url,
      ...(claims.c ? { clientInfo: claims.c } : {}),
      ...(auth ? { auth } : {}),
    };
    return legacy(seed)(withoutSession(c.req.raw), { parsedBody: body, ...authInfo });
  });

  for (const register of [opts.routes ?? []].flat()) register(app);
  app.notFound((c) => c.json({ error: "not_found", message: `No route for ${c.req.path}` }, 404));
  app.onError((e, c) => {
    logger("http").error({ err: e }, "http error");
    if (c.req.path === path) return rpcError(500, -32603, "Internal error");
    return c.json({ error: "internal_error", message: "internal error" }, 500);
  });
  return app;
}

/** Serves buildHttpApp on a Node listener (port 0: any free port). */
export async function serveHttp<Ctx>(opts: HttpOptions<Ctx>): Promise<HttpHandle> {
  const host = opts.host ?? "127.0.0.1";
  const path = opts.path ?? "/mcp";
  const app = buildHttpApp(opts);
  // Loaded here, when HTTP is served: a stdio start does not pay for Node's HTTP server.
  const { serve } = await import("@hono/node-server");
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, () => resolve(s));
    s.once("error", reject);
  });
  const node = server as NodeServer;
  const port = (node.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    server: node,
    close: async () => {
      await new Promise<void>((resolve) => node.close(() => resolve()));
      node.closeAllConnections?.();
    },
  };
}
