import type { Clock, Database, ToolRegistry } from "kernel";
import type { Caller } from "./access/caller.ts";
import type { ToolsetView } from "./platform/toolsets.ts";
import type { Source } from "./store/history.ts";
import type { ShampooDB } from "./store/schema.ts";

/** Everything a SHAMPOO tool handler gets: who calls, from where, the clock and the store. */
export interface ShampooCtx {
  caller: Caller;
  source: Source;
  clock: Clock;
  database: Database<ShampooDB>;
  /** The session's toolsets (platform/toolsets.ts), when served over MCP: what it sees and may enable. */
  toolsets?: ToolsetView;
  /** The registry this call came through (app.ts), when served: the doctor's readiness canary calls it. */
  pipeline?: Pick<ToolRegistry<ShampooCtx>, "call" | "list">;
}
