import {
  type Clock,
  type Database,
  type McpServerOptions,
  migrate,
  openDatabase,
  type RouteHandler,
  systemClock,
} from "kernel";
import { manifestResources } from "./attempts/rules.ts";
import { type ChamberDB, chamberMigrations } from "./attempts/schema.ts";
import type { CallContext } from "./attempts/service.ts";
import { type ChamberConfig, ChamberService, defaultConfig } from "./attempts/service.ts";
import { CURRENT_TOOLSET } from "./contract/index.ts";
import { CardRegistry } from "./evidence/registry.ts";
import { LocalKeyring, type Signer } from "./evidence/signer.ts";
import { publicRoutes } from "./http/index.ts";
import { SuiteSecrets } from "./suites/secrets.ts";
import { callContext, chamberRegistry } from "./tools/index.ts";

export const SERVER_NAME = "scoreia-open-chamber";
export const SERVER_VERSION = "0.1.0";

export const INSTRUCTIONS = `ScoreIA Open Chamber: a public, accountless trial room. Call enter_open_challenge (declare provider_claim, model_claim, product and host; unknown is accepted), read the room with observe_chamber and chamber_action look/inspect, solve its stages with the submit ops, and finish with seal_attempt. Every sealed attempt, failures included, becomes a dated public card. The rules of each suite (stages, every op's value format, the hint budget, the jam rule, the verdicts) are the MCP resource scoreia://suites/<suite>/<generation>/manifest.json; the entry response names it and summarises them. Do not submit personal data or secrets.`;

export interface ChamberOptions {
  /** SQLite file path or postgres:// URL. */
  db: string;
  pgSchema?: string;
  clock?: Clock;
  signer?: Signer;
  config?: Partial<ChamberConfig>;
  controlled?: boolean;
  /** Room secrets per suite generation (default: random, in memory; `serve` keeps them in the data dir). */
  secrets?: SuiteSecrets;
  /**
   * Public origin of this server (e.g. https://chamber.example): the pages' connection snippets
   * (default: the socket's address) and seal_attempt's absolute links to the card (default: paths).
   */
  publicOrigin?: string;
}

export interface Chamber {
  database: Database<ChamberDB>;
  service: ChamberService;
  mcp: McpServerOptions<CallContext>;
  /** The read side of Evidence (public data only). */
  registry: CardRegistry;
  /** Public endpoints and pages (docs/http.md), for `serveHttp({ routes })`. */
  routes: RouteHandler;
  close(): Promise<void>;
}

/** Opens the store, runs migrations and wires service, registry and MCP options together. */
export async function openChamber(opts: ChamberOptions): Promise<Chamber> {
  const database = await openDatabase<ChamberDB>(opts.db, opts.pgSchema ? { pgSchema: opts.pgSchema } : {});
  await migrate(database, "scoreia_migrations", chamberMigrations);
  return chamberOn(database, opts);
}

/** Same, over an already open and migrated database (tests share one per dialect). */
export function chamberOn(database: Database<ChamberDB>, opts: Omit<ChamberOptions, "db">): Chamber {
  const clock = opts.clock ?? systemClock;
  const config = {
    ...defaultConfig(CURRENT_TOOLSET),
    ...(opts.publicOrigin ? { publicOrigin: opts.publicOrigin } : {}),
    ...opts.config,
  };
  const signer = opts.signer ?? LocalKeyring.ephemeral(clock);
  const service = new ChamberService(database, clock, signer, config, opts.secrets ?? SuiteSecrets.ephemeral());
  const registry = chamberRegistry(CURRENT_TOOLSET, { service, clock, controlled: opts.controlled ?? false });
  const mcp: McpServerOptions<CallContext> = {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    instructions: INSTRUCTIONS,
    registry,
    context: (session) => callContext(session, opts.controlled ?? false),
    resources: () => manifestResources(service.currentGenerations()),
  };
  const cards = new CardRegistry(database, signer, () => service.publishKeys());
  const routes = publicRoutes(cards, opts.publicOrigin ? { publicOrigin: opts.publicOrigin } : {});
  return { database, service, mcp, registry: cards, routes, close: () => database.close() };
}

export async function migrateChamber(database: Database<ChamberDB>): Promise<void> {
  await migrate(database, "scoreia_migrations", chamberMigrations);
}
