import { serveStdio as sdkServeStdio } from "@modelcontextprotocol/server/stdio";
import { createMcpServer, type McpServerOptions } from "../server.ts";

/**
 * Serves MCP over stdin/stdout, both eras: the SDK's entry reads the opening exchange — an
 * `initialize` pins a 2025-era instance for the connection, a request carrying the 2026-07-28
 * `_meta` envelope (or `server/discover`) is served per request — and answers an unsupported
 * revision with the specified error listing the supported ones. Logs go to stderr; stdout
 * belongs to the protocol.
 */
export async function serveStdio<Ctx>(opts: McpServerOptions<Ctx>): Promise<{ close(): Promise<void> }> {
  const handle = sdkServeStdio(() => createMcpServer(opts, { sessionId: "stdio", transport: "stdio" }), {
    onerror: (e) => process.stderr.write(`mcp stdio: ${e.message}\n`),
  });
  return { close: () => handle.close() };
}
