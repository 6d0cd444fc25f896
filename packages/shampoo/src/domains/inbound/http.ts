import { DomainError, type RouteHandler, systemClock } from "kernel";
import type { Caller } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import { StageError, stageInbound } from "./service/stage.ts";

/**
 * The HTTP side of staging: `POST /inbound/stage` with a stage document as its JSON body (the
 * format of service/stage.ts) and the same bearer token as /mcp. 200 {"staged": [...]};
 * 400 {"error": "validation", "message"} for a refused document (nothing staged); 401 without a
 * known token; 413 over `maxBytes`.
 */
export function inboundRoutes(opts: {
  database: ShampooCtx["database"];
  /** The caller of a request (its bearer token's principal), or null for 401. */
  caller(req: Request): Caller | null;
  maxBytes: number;
}): RouteHandler {
  return (app) => {
    app.post("/inbound/stage", async (c) => {
      const caller = opts.caller(c.req.raw);
      if (!caller) return c.json({ error: "unauthorized", message: "a bearer token of a principal is needed" }, 401);
      const text = await c.req.text();
      if (Buffer.byteLength(text, "utf8") > opts.maxBytes) {
        return c.json({ error: "too_large", message: `at most ${opts.maxBytes} bytes` }, 413);
      }
      const ctx: ShampooCtx = {
        caller,
        source: { tool: "http.inbound_stage" },
        clock: systemClock,
        database: opts.database,
      };
      try {
        return c.json(await stageInbound(ctx, text), 200);
      } catch (e) {
        if (e instanceof StageError || e instanceof DomainError) {
          return c.json({ error: "validation", message: `nothing staged: ${e.message}` }, 400);
        }
        throw e;
      }
    });
  };
}
