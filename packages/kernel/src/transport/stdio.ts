import { StdioServerTransport, serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { logger } from "../log.ts";
import { createMcpServer, type McpServerOptions } from "../server.ts";
import { malformedToolsCall, unsupportedVersion } from "./guard.ts";

/**
 * stdio with malformed tools/call requests answered in one sentence, and every request naming an
 * unsupported revision refused (guard.ts).
 */
class GuardedStdio extends StdioServerTransport {
  override async start(): Promise<void> {
    const inner = this.onmessage;
    this.onmessage = (message) => {
      const refused = unsupportedVersion(message) ?? malformedToolsCall(message);
      if (refused) void this.send(refused as Parameters<StdioServerTransport["send"]>[0]);
      else inner?.(message);
    };
    await super.start();
  }
}

/**
 * Serves MCP over stdin/stdout, both eras: the SDK's entry reads the opening exchange — an
 * `initialize` pins a 2025-era instance for the connection, a request carrying the 2026-07-28
 * `_meta` envelope (or `server/discover`) is served per request — and answers an unsupported
 * revision with the specified error listing the supported ones. Logs go to stderr; stdout
 * belongs to the protocol.
 */
export async function serveStdio<Ctx>(opts: McpServerOptions<Ctx>): Promise<{ close(): Promise<void> }> {
  const handle = sdkServeStdio(
    (ctx) => createMcpServer(opts, { sessionId: "stdio", transport: "stdio", era: ctx.era }),
    {
      transport: new GuardedStdio(),
      onerror: (e) => logger("stdio").warn({ err: e.message }, "mcp stdio"),
    },
  );
  return { close: () => handle.close() };
}
