import {
  type Clock,
  type Database,
  type McpServerOptions,
  openDatabase,
  type SessionInfo,
  systemClock,
  ToolRegistry,
} from "kernel";
import { type Caller, localCaller } from "./access/caller.ts";
import type { ShampooCtx } from "./context.ts";
import { MODULES } from "./modules.ts";
import { migrateModules } from "./platform/migrate.ts";
import { moduleOrder, toolsOf } from "./platform/module.ts";
import type { ToolProfile } from "./platform/profiles.ts";
import { TOOLSET_TOOLS } from "./platform/toolset-tools.ts";
import { META_TOOLS, Toolsets } from "./platform/toolsets.ts";
import type { ShampooDB } from "./store/schema.ts";
import { authorize, formatRejection, type ShampooTool } from "./tooling.ts";

export const SERVER_NAME = "shampoo";
export const SERVER_VERSION = "0.1.0";

export const INSTRUCTIONS =
  "SHAMPOO: shared, durable memory and coordination for agents. Tasks and notes, a knowledge graph, sessions and handoff. Every write is atomic and audited; nothing is ever physically deleted; every read and write is filtered by your project grants.";

/** Every SHAMPOO tool, in catalog order per category (derived from modules.ts). */
export const TOOLS: ShampooTool[] = toolsOf(MODULES);

/** SHAMPOO's request limits: generous for batches, still bounded. */
export const LIMITS = { maxRequestBytes: 1_048_576, maxJsonDepth: 16, maxArrayItems: 1000 };

export interface ShampooOptions {
  db: string;
  pgSchema?: string;
  clock?: Clock;
  /**
   * The server's tool profile (`--tools`): only these are ever listed and callable. A caller with
   * its own profile (Caller.tools, from --config) gets the tools both allow (its allowance).
   */
  tools?: ToolProfile;
  /**
   * What a session starts with when neither `tools` nor the caller's profile names its tools
   * (`shampoo serve`: the default toolsets, platform/toolsets.ts); absent: its whole allowance.
   * The session widens it with enable_toolset, within the allowance.
   */
  startWith?: ToolProfile;
  /** Resolves the caller of each call; default: the local all-powerful principal (stdio use). */
  resolveCaller?(session: SessionInfo): Caller;
}

export interface Shampoo {
  database: Database<ShampooDB>;
  /** Its context is synchronous here (callers resolved from the config in memory). */
  mcp: Omit<McpServerOptions<ShampooCtx>, "context"> & { context(session: SessionInfo): ShampooCtx };
  registry: ToolRegistry<ShampooCtx>;
  close(): Promise<void>;
}

export async function migrateShampoo(database: Database<ShampooDB>): Promise<void> {
  await migrateModules(database, MODULES);
}

export async function openShampoo(opts: ShampooOptions): Promise<Shampoo> {
  const database = await openDatabase<ShampooDB>(opts.db, opts.pgSchema ? { pgSchema: opts.pgSchema } : {});
  await migrateShampoo(database);
  for (const m of moduleOrder(MODULES)) await m.opened?.(database);
  return shampooOn(database, opts);
}

/** Wires registry and MCP options over an open, migrated database. */
export function shampooOn(database: Database<ShampooDB>, opts: Omit<ShampooOptions, "db"> = {}): Shampoo {
  const clock = opts.clock ?? systemClock;
  const resolve = opts.resolveCaller ?? (() => localCaller());
  const served = opts.tools ? TOOLS.filter((t) => opts.tools?.has(t.name)) : TOOLS;
  const toolsets = new Toolsets(MODULES, opts.tools, opts.startWith);
  const registry = new ToolRegistry<ShampooCtx>({
    // The meta-tools first: a host that keeps only the first N tools still sees them.
    tools: [...TOOLSET_TOOLS, ...served],
    limits: LIMITS,
    formatRejection,
    authorize,
    visible: (def, ctx) =>
      ctx.toolsets
        ? ctx.toolsets.visible(def.name)
        : !META_TOOLS.has(def.name) && (ctx.caller.tools?.has(def.name) ?? true),
  });
  const mcp: Shampoo["mcp"] = {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    instructions: INSTRUCTIONS,
    registry,
    toolsListChanged: true,
    // Over HTTP the caller of a session is its bearer token's principal (cli.ts authenticate).
    listFilter: (session) => {
      const view = toolsets.view(session, resolve(session));
      return (name) => view.visible(name);
    },
    context: (session) => {
      const caller = resolve(session);
      return {
        caller,
        source: { tool: "", session: session.sessionId },
        clock,
        database,
        toolsets: toolsets.view(session, caller),
        pipeline: registry,
      };
    },
  };
  return {
    database,
    mcp,
    registry,
    close: async () => {
      for (const m of moduleOrder(MODULES)) await m.closing?.(database); // e.g. the graph reads' access notes
      await database.close();
    },
  };
}
