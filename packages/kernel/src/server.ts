import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type Implementation,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { type ToolRegistry, UnknownToolError } from "./tools/registry.ts";

/** What a product learns about the MCP session a call arrives on. */
export interface SessionInfo {
  /** "stdio", or the Streamable HTTP session id. */
  sessionId: string;
  transport: "stdio" | "http" | "memory";
  /** MCP clientInfo as the client sent it at initialize (an observation, never a claim). */
  clientInfo(): Implementation | undefined;
  /** `_meta` of the current tools/call request, if any. */
  meta?: Record<string, unknown>;
  /** What the HTTP layer authenticated for this session (serveHttp `authenticate`), if anything. */
  auth?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
  /** Send a log notification honouring the level the client set (logging capability). */
  log(level: "debug" | "info" | "notice" | "warning" | "error", data: unknown): Promise<void>;
}

export interface McpServerOptions<Ctx> {
  name: string;
  version: string;
  instructions?: string;
  registry: ToolRegistry<Ctx>;
  /** Builds the per-call context from the session. */
  context(session: SessionInfo): Ctx;
  /** Static resources (MCP resources/list and resources/read); none means no resources capability. */
  resources?: StaticResource[];
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

/** MCP "Resource not found" (specification, server/resources: error handling). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * The low-level SDK Server with our own registry. (McpServer would wrap tool failures and
 * unknown names the wrong way round: unknown names must be JSON-RPC -32602, known-tool
 * failures `isError: true` results.)
 */
export function createMcpServer<Ctx>(
  opts: McpServerOptions<Ctx>,
  session: { sessionId: string; transport: SessionInfo["transport"] },
): Server {
  const server = new Server(
    { name: opts.name, version: opts.version },
    {
      capabilities: {
        tools: { listChanged: false },
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

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  const resources = opts.resources;
  if (resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: resources.map(({ text: _t, ...meta }) => meta),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const r = resources.find((x) => x.uri === request.params.uri);
      if (!r) {
        throw Object.assign(new Error(`Resource not found: ${request.params.uri.slice(0, 200)}`), {
          code: RESOURCE_NOT_FOUND,
          data: { uri: request.params.uri.slice(0, 200) },
        });
      }
      return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: r.text }] };
    });
  }

  // One Server per session, so the level the client set is simply this server's. (Replaces the
  // SDK's own setLevel handler: its level map only serves sendLoggingMessage, which we avoid.)
  let minLevel: LoggingLevel | undefined;
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minLevel = request.params.level;
    return {};
  });
  const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    const info: SessionInfo = {
      ...session,
      clientInfo: () => server.getClientVersion(),
      ...(_meta ? { meta: _meta as Record<string, unknown> } : {}),
      ...(extra.authInfo ? { auth: extra.authInfo as SessionInfo["auth"] & object } : {}),
      // Sent as related to this tools/call, so over Streamable HTTP it travels on the call's own
      // response stream; server.sendLoggingMessage would use the optional standalone GET stream
      // and silently drop the message when the client has none open.
      log: async (level, data) => {
        if (minLevel && severity(level) < severity(minLevel)) return;
        await extra.sendNotification({ method: "notifications/message", params: { level, data } });
      },
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
        // A plain error with a code: McpError would prefix its message ("MCP error -32602: …")
        // and clients prefix it again on their side.
        throw Object.assign(new Error(`Unknown tool: ${name}`), { code: ErrorCode.InvalidParams });
      }
      throw e;
    }
  });

  return server;
}
