import type { AuthResult, Clock, Database, RouteHandler, ToolRegistry } from "kernel";
import { type Caller, makeCaller } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { HANDSHAKE_FAILED } from "./rules.ts";
import { resolveSessionToken } from "./service/registry.ts";

/**
 * The auth registry on Streamable HTTP (wired by cli.ts `serve --http`):
 *
 * - `authenticate`: a request's `Authorization: Bearer shs1.…` registry session token is looked up
 *   in the database on EVERY request (no cache), so a revocation or an expiry made on any instance
 *   refuses the very next call on every instance; any other bearer goes to `fallback` (the
 *   --config file's static tokens).
 * - `routes`: POST /auth/handshake_challenge and /auth/handshake_complete, the two handshake
 *   tools for a client that has no token yet (the MCP endpoint answers 401 without one). They
 *   run through the same tool registry (strict validation, the same service), as a caller with
 *   no grants; every refusal is 401 with the one body `{"error":"handshake failed",…}`.
 */

export interface AuthHttpOptions {
  database: Database<ShampooDB>;
  registry: ToolRegistry<ShampooCtx>;
  clock: Clock;
  /** Bearer tokens that are not registry session tokens (the config file's), or null. */
  fallback?(req: Request): Promise<AuthResult | null> | AuthResult | null;
}

const PREFIX = "shs1.";
const PRE_AUTH_TOOLS = ["handshake_challenge", "handshake_complete"] as const;

/** The caller of a pre-authentication handshake call: no grants, no role beyond agent. */
const preAuth = (): Caller => makeCaller({ principal: "handshake", role: "agent", profile: "default", grants: [] });

export function authHttp(opts: AuthHttpOptions): {
  authenticate(req: Request): Promise<AuthResult | null>;
  routes: RouteHandler;
} {
  const ctx = (caller: Caller, session: string): ShampooCtx => ({
    caller,
    source: { tool: "", session },
    clock: opts.clock,
    database: opts.database,
  });
  return {
    async authenticate(req) {
      const m = /^Bearer +([^ ]+) *$/i.exec(req.headers.get("authorization") ?? "");
      const token = m?.[1];
      if (token?.startsWith(PREFIX)) {
        const caller = await resolveSessionToken(ctx(preAuth(), "auth"), token);
        return caller && { token: "session", clientId: caller.principal, scopes: [], extra: { caller } };
      }
      return (await opts.fallback?.(req)) ?? null;
    },
    routes(app) {
      for (const tool of PRE_AUTH_TOOLS) {
        app.post(`/auth/${tool}`, async (c) => {
          const failed = () =>
            c.json({ error: HANDSHAKE_FAILED, error_type: "handshake_failed" }, 401, { "cache-control": "no-store" });
          let args: unknown;
          try {
            args = await c.req.json();
          } catch {
            return failed();
          }
          if (typeof args !== "object" || args === null || Array.isArray(args)) return failed();
          const out = await opts.registry.call(tool, args, ctx(preAuth(), "http-handshake"));
          if (out.isError) {
            const sc = out.structuredContent as { error_type?: string } | undefined;
            // Store faults keep their own answer (retryable, nothing about a credential); all else is one.
            if (sc && ["db_unavailable", "database_busy", "storage_full", "busy"].includes(String(sc.error_type))) {
              return c.json(sc, 503, { "cache-control": "no-store" });
            }
            return failed();
          }
          return c.json(out.structuredContent ?? {}, 200, { "cache-control": "no-store" });
        });
      }
    },
  };
}
