import {
  type CallToolResult,
  CLIENT_INFO_META_KEY,
  type Implementation,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { type ToolRegistry, UnknownToolError } from "./tools/registry.ts";

/**
 * The protocol revisions both servers answer (docs/http.md "Protocol eras"): 2026-07-28 per
 * request (no handshake, `_meta` envelope), the 2025 revisions through `initialize`.
 */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** What a product learns about the MCP exchange a call arrives on. */
export interface SessionInfo {
  /**
   * "stdio", the 2025-era Streamable HTTP session id, or "stateless" for a 2026-07-28 HTTP
   * request (that revision has no session; state lives in handles passed as arguments).
   */
  sessionId: string;
  transport: "stdio" | "http" | "memory";
  /**
   * MCP clientInfo as the client sent it: at initialize (2025 era), or in this request's `_meta`
   * (2026-07-28). An observation, never a claim.
   */
  clientInfo(): Implementation | undefined;
  /** The revision this request was served under, when known. */
  protocolVersion?: string;
  /** `_meta` of the current tools/call request, if any. */
  meta?: Record<string, unknown>;
  /** What the HTTP layer authenticated for this request (serveHttp `authenticate`), if anything. */
  auth?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
  /** The HTTP request's URL (its query may select tools, e.g. `/mcp?toolsets=tasks`); absent on stdio. */
  url?: string;
  /**
   * Tell this session's client that tools/list changed (`notifications/tools/list_changed`,
   * sent on the current call's own stream); present in tools/call only.
   */
  toolsChanged?(): Promise<void>;
  /** Send a log notification honouring the level the client set (logging capability). */
  log(level: "debug" | "info" | "notice" | "warning" | "error", data: unknown): Promise<void>;
}

export interface McpServerOptions<Ctx> {
  name: string;
  version: string;
  instructions?: string;
  registry: ToolRegistry<Ctx>;
  /**
   * Tool profiles: which tools tools/list shows on this exchange (undefined: all). It may throw
   * ToolSelectionError (e.g. a bad selection in the URL): the request is then answered -32602.
   */
  listFilter?(session: SessionInfo): ((name: string) => boolean) | undefined;
  /**
   * Declare `tools.listChanged` on 2025-era instances: the product sends it when a session's tool
   * list changes. A 2026-07-28 instance has no session whose list could change, so never declares it.
   */
  toolsListChanged?: boolean;
  /** Builds the per-call context from the session. */
  context(session: SessionInfo): Ctx | Promise<Ctx>;
  /**
   * Text resources (MCP resources/list and resources/read); none means no resources capability.
   * A function is asked on every list and read (the set may change, e.g. a suite's current generation).
   */
  resources?: StaticResource[] | (() => StaticResource[]);
}

/** What the transport knows of the exchange before any request arrives. */
export interface SessionSeed {
  sessionId: string;
  transport: SessionInfo["transport"];
  /** clientInfo learnt elsewhere (a 2025 session id carries the one sent at initialize). */
  clientInfo?: Implementation;
  auth?: SessionInfo["auth"];
  /** The HTTP request's URL. */
  url?: string;
  /** The era this instance serves (the SDK's factory context): a 2026-07-28 one never says list_changed. */
  era?: "legacy" | "modern";
}

/**
 * A tool selection the product refuses before any tool runs (listFilter, context), e.g. toolsets
 * in the URL the caller may not use: JSON-RPC -32602 (Invalid params) with this message.
 */
export class ToolSelectionError extends Error {
  override name = "ToolSelectionError";
}

function isImplementation(v: unknown): v is Implementation {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as Implementation).name === "string" &&
    typeof (v as Implementation).version === "string"
  );
}

/** A fixed text resource, e.g. a suite manifest an agent reads to learn the rules. */
export interface StaticResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  text: string;
}

/**
 * MCP "Resource not found" (specification 2026-07-28, server/resources: error handling): Invalid
 * Params with the uri in `data`, on every revision (SDK v2 maps the older -32002 to it on the wire).
 */
export const RESOURCE_NOT_FOUND = -32602;

/**
 * The low-level SDK (v2) Server with our own registry; the same instance shape serves both eras
 * (the serving entry binds it to one). McpServer would wrap tool failures and unknown names the
 * wrong way round: unknown names must be JSON-RPC -32602, known-tool failures `isError: true`.
 * tools/list is the registry's order, fixed at build time (2026-07-28 asks for a deterministic
 * order so clients can cache it).
 */
export function createMcpServer<Ctx>(opts: McpServerOptions<Ctx>, seed: SessionSeed): Server {
  const server = new Server(
    { name: opts.name, version: opts.version },
    {
      capabilities: {
        tools: { listChanged: opts.toolsListChanged === true && seed.era !== "modern" },
        logging: {},
        ...(opts.resources ? { resources: { listChanged: false } } : {}),
      },
      ...(opts.instructions ? { instructions: opts.instructions } : {}),
    },
  );

  const tools: Tool[] = opts.registry.list().map((t) => ({
    name: t.name,
    ...(t.title ? { title: t.title } : {}),
    description: t.description,
    inputSchema: t.inputSchema as Tool["inputSchema"],
    ...(t.outputSchema ? { outputSchema: t.outputSchema as Tool["outputSchema"] } : {}),
    ...(t.annotations ? { annotations: t.annotations } : {}),
  }));

  /** What the product learns of this exchange for one request (tools/list or tools/call). */
  const sessionOf = (ctx: ServerContext, meta?: Record<string, unknown>): SessionInfo => {
    // 2026-07-28: identity travels with each request; 2025: it was sent once, at initialize. The
    // SDK lifts the envelope keys out of `_meta` into ctx.mcpReq.envelope before handlers run (over
    // stdio a pinned modern connection has no other trace of them); `_meta` is read as well.
    const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
    const fromMeta = envelope[CLIENT_INFO_META_KEY] ?? meta?.[CLIENT_INFO_META_KEY];
    const clientInfo = isImplementation(fromMeta) ? fromMeta : (server.getClientVersion() ?? seed.clientInfo);
    const version = envelope[PROTOCOL_VERSION_META_KEY] ?? meta?.[PROTOCOL_VERSION_META_KEY];
    const auth = (ctx.http?.authInfo as SessionInfo["auth"]) ?? seed.auth;
    const url = ctx.http?.req?.url ?? seed.url;
    return {
      sessionId: seed.sessionId,
      transport: seed.transport,
      clientInfo: () => clientInfo,
      ...(typeof version === "string"
        ? { protocolVersion: version }
        : server.getNegotiatedProtocolVersion()
          ? { protocolVersion: server.getNegotiatedProtocolVersion() as string }
          : {}),
      ...(meta ? { meta } : {}),
      ...(auth ? { auth } : {}),
      ...(url ? { url } : {}),
      // Related to this request, so over Streamable HTTP it travels on the request's own response
      // stream, filtered by the level the client set (logging/setLevel, or `_meta` in 2026).
      log: (level, data) => ctx.mcpReq.log(level, data),
    };
  };

  server.setRequestHandler("tools/list", async (_request, ctx) => {
    let keep: ((name: string) => boolean) | undefined;
    try {
      keep = opts.listFilter?.(sessionOf(ctx));
    } catch (e) {
      if (e instanceof ToolSelectionError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message);
      throw e;
    }
    return { tools: keep ? tools.filter((t) => keep(t.name)) : tools };
  });

  const given = opts.resources;
  if (given) {
    const resources = typeof given === "function" ? given : () => given;
    server.setRequestHandler("resources/list", async () => ({
      resources: resources().map(({ text: _t, ...meta }) => meta),
    }));
    server.setRequestHandler("resources/read", async (request) => {
      const uri = request.params.uri;
      const r = resources().find((x) => x.uri === uri);
      if (!r)
        throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 200)}`, {
          uri: uri.slice(0, 200),
        });
      return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: r.text }] };
    });
  }

  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    const meta = _meta as Record<string, unknown> | undefined;
    const info: SessionInfo = {
      ...sessionOf(ctx, meta),
      toolsChanged: () => ctx.mcpReq.notify({ method: "notifications/tools/list_changed" }),
    };
    try {
      const out = await opts.registry.call(name, args ?? {}, opts.context(info));
      return {
        content: [{ type: "text", text: out.text ?? JSON.stringify(out.structuredContent) }],
        structuredContent: out.structuredContent,
        ...(out.isError ? { isError: true } : {}),
      };
    } catch (e) {
      if (e instanceof UnknownToolError) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      if (e instanceof ToolSelectionError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message);
      throw e;
    }
  });

  return server;
}
