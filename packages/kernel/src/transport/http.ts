import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { logger } from "../log.ts";
import { createMcpServer, type McpServerOptions } from "../server.ts";

/** A product's own HTTP routes (public endpoints, pages). Returns false when it did not handle. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export interface HttpOptions<Ctx> {
  mcp: McpServerOptions<Ctx>;
  host?: string;
  port?: number;
  /** MCP endpoint path. */
  path?: string;
  /** Requests larger than this are refused with 413 before parsing. */
  maxRequestBytes: number;
  /** Extra Host header values accepted besides loopback (DNS-rebinding protection). */
  allowedHosts?: string[];
  routes?: RouteHandler;
  /**
   * Resolves the caller of an MCP request (e.g. from `Authorization: Bearer …`). Returning null
   * answers 401; the result reaches tool handlers as SessionInfo.auth. Absent: no authentication.
   */
  authenticate?(req: IncomingMessage): Promise<AuthResult | null> | AuthResult | null;
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
  sessions(): number;
  close(): Promise<void>;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | "too_large"> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0");
    if (declared > max) {
      req.resume();
      resolve("too_large");
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on("end", () => resolve(over ? "too_large" : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Streamable HTTP: one MCP Server per session, built from the same options as stdio, plus the
 * product's public routes on the same listener. Loopback Host/Origin only, unless allowed
 * (DNS-rebinding protection: a browser page on another origin must not drive a local server).
 */
export async function serveHttp<Ctx>(opts: HttpOptions<Ctx>): Promise<HttpHandle> {
  const host = opts.host ?? "127.0.0.1";
  const path = opts.path ?? "/mcp";
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let port = opts.port ?? 0;

  const hostAllowed = (h: string | undefined): boolean => {
    if (!h) return false;
    const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...(opts.allowedHosts ?? [])]);
    return allowed.has(h.toLowerCase());
  };
  const originAllowed = (o: string | undefined): boolean => {
    if (!o) return true;
    try {
      return hostAllowed(new URL(o).host);
    } catch {
      return false;
    }
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host) || !originAllowed(req.headers.origin)) {
      jsonRpcError(res, 403, -32000, "Forbidden: Host or Origin not allowed (DNS rebinding protection)");
      return;
    }
    if (opts.authenticate) {
      const auth = await opts.authenticate(req);
      if (!auth) {
        res.setHeader("www-authenticate", 'Bearer realm="mcp"');
        jsonRpcError(res, 401, -32001, "Unauthorized: a valid bearer token is required");
        return;
      }
      (req as IncomingMessage & { auth?: AuthResult }).auth = auth;
    }
    const sid = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    if (req.method === "POST") {
      const body = await readBody(req, opts.maxRequestBytes);
      if (body === "too_large") {
        jsonRpcError(res, 413, -32600, `request exceeds max_request_bytes ${opts.maxRequestBytes}`);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        jsonRpcError(res, 400, -32700, "Parse error: body is not JSON");
        return;
      }
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId) {
          jsonRpcError(res, 404, -32001, "Session not found");
          return;
        }
        if (!isInitializeRequest(parsed)) {
          jsonRpcError(res, 400, -32000, "Bad Request: no session; send initialize first");
          return;
        }
        const session = { sessionId: "", transport: "http" as const };
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            session.sessionId = id;
            transports.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
        };
        transport = created;
        const server = createMcpServer(opts.mcp, session);
        await server.connect(transport);
      }
      await transport.handleRequest(req, res, parsed);
      return;
    }
    if (req.method === "GET" || req.method === "DELETE") {
      const transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        jsonRpcError(res, sessionId ? 404 : 400, -32000, sessionId ? "Session not found" : "Missing mcp-session-id");
        return;
      }
      await transport.handleRequest(req, res);
      return;
    }
    res.writeHead(405, { allow: "GET, POST, DELETE" }).end();
  };

  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
    } catch {
      // A malformed Host (or path) must never take the process down.
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "bad_request", message: "malformed Host header or request target" }));
      return;
    }
    const work = url.pathname === path ? handleMcp(req, res) : routeOr404(req, res, url);
    work.catch((e) => {
      logger("http").error({ err: e }, "http error");
      if (!res.headersSent) jsonRpcError(res, 500, -32603, "Internal error");
      else res.end();
    });
  });

  const routeOr404 = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    if (opts.routes && (await opts.routes(req, res, url))) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "not_found", message: `No route for ${url.pathname}` }));
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    server,
    sessions: () => transports.size,
    close: async () => {
      for (const t of transports.values()) await t.close().catch(() => {});
      transports.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
    },
  };
}
