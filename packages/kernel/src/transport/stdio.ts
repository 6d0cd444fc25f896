import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "../server.ts";

/** Serves one MCP session over stdin/stdout. Logs go to stderr; stdout belongs to the protocol. */
export async function serveStdio<Ctx>(opts: McpServerOptions<Ctx>): Promise<{ close(): Promise<void> }> {
  const server = createMcpServer(opts, { sessionId: "stdio", transport: "stdio" });
  const transport = new StdioServerTransport();
  await server.connect(transport);
  return { close: () => server.close() };
}
