import { PROTOCOL_VERSION_META_KEY, UnsupportedProtocolVersionError } from "@modelcontextprotocol/server";
import { MODERN_PROTOCOL_VERSIONS } from "../server.ts";

/**
 * Malformed `tools/call` requests answered before the SDK sees them. The SDK answers them with
 * the right code (-32602) but its message is a raw schema-validation dump; a client gets one
 * plain sentence instead, and no internals (JSON-RPC 2.0 §5.1; MCP tools/call params).
 */
export interface RpcErrorMessage {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

export function malformedToolsCall(msg: unknown): RpcErrorMessage | null {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return null;
  const m = msg as { method?: unknown; id?: unknown; params?: unknown };
  if (m.method !== "tools/call" || !("id" in m)) return null;
  const id = typeof m.id === "string" || typeof m.id === "number" ? m.id : null;
  const fail = (message: string): RpcErrorMessage => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32602, message: `Invalid params: ${message}` },
  });
  const p = m.params;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return fail("tools/call needs params, an object");
  const { name, arguments: args } = p as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string") return fail("params.name must be a string, the tool's name");
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return fail("params.arguments must be an object");
  }
  return null;
}

/**
 * A request whose `_meta` names a protocol revision we do not serve, answered with the specified
 * -32022 listing the supported ones (2026-07-28: every request carries its revision). Over stdio
 * the SDK checks the opening message only; this guard checks every request, so a later request
 * naming another revision is refused instead of being served under the connection's.
 */
export function unsupportedVersion(msg: unknown): RpcErrorMessage | null {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return null;
  const m = msg as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof m.method !== "string" || !("id" in m)) return null;
  const meta = (m.params as { _meta?: unknown } | undefined)?._meta;
  if (typeof meta !== "object" || meta === null) return null;
  const requested = (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
  if (requested === undefined || (MODERN_PROTOCOL_VERSIONS as readonly unknown[]).includes(requested)) return null;
  const error = new UnsupportedProtocolVersionError({
    supported: [...MODERN_PROTOCOL_VERSIONS],
    requested: typeof requested === "string" ? requested : JSON.stringify(requested),
  });
  const id = typeof m.id === "string" || typeof m.id === "number" ? m.id : null;
  return { jsonrpc: "2.0", id, error: { code: error.code, message: error.message, data: error.data } };
}
