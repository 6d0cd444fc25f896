import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type DialectName, ManualClock } from "kernel";
import { openTestDatabase, type TestDb } from "kernel/store/testing.ts";
import { type Chamber, chamberOn, migrateChamber } from "../../src/app.ts";
import type { ChamberDB } from "../../src/attempts/schema.ts";
import type { ChamberConfig } from "../../src/attempts/service.ts";
import { LocalKeyring, SwitchableSigner } from "../../src/evidence/signer.ts";
import type { SuiteSecrets } from "../../src/suites/secrets.ts";
import type { ActResult, AgentPort, RoomAction } from "../../src/suites/types.ts";

export interface Harness {
  chamber: Chamber;
  clock: ManualClock;
  signer: SwitchableSigner;
  db: TestDb<ChamberDB>;
  client: Client;
  /** Calls a tool and returns the whole MCP result. */
  call(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool and returns its structuredContent. */
  sc(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export const IDENTITY = {
  provider_claim: "openai",
  model_claim: "gpt-5.6-sol",
  product: "gpt-5.6-sol",
  host: "cursor",
};

/**
 * A Chamber on a fresh database of the given dialect, driven by a real SDK Client over the
 * in-memory linked transport (the same server object that stdio and HTTP serve).
 */
export async function harness(
  dialect: DialectName,
  opts: {
    config?: Partial<ChamberConfig>;
    clientName?: string;
    controlled?: boolean;
    /** An open database to use (it is migrated to the latest schema); a fresh one otherwise. */
    db?: TestDb<ChamberDB>;
    /** Room secrets (another harness's, to carry on its attempts); random in memory otherwise. */
    secrets?: SuiteSecrets;
  } = {},
): Promise<Harness> {
  const db = opts.db ?? (await openTestDatabase<ChamberDB>(dialect));
  await migrateChamber(db);
  const clock = new ManualClock("2026-11-30T12:00:00.000Z");
  const signer = new SwitchableSigner(LocalKeyring.ephemeral(clock));
  const chamber = chamberOn(db, {
    clock,
    signer,
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.controlled ? { controlled: true } : {}),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
  });
  const client = await connect(chamber, opts.clientName ?? "vitest-client");
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.request(
      { method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } },
      CallToolResultSchema,
    )) as CallToolResult;
  return {
    chamber,
    clock,
    signer,
    db,
    client,
    call,
    sc: async (name, args, meta) => (await call(name, args, meta)).structuredContent as Record<string, unknown>,
    close: async () => {
      await client.close();
      await db.drop();
    },
  };
}

export async function connect(chamber: Chamber, name: string): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createMcpServer(chamber.mcp, { sessionId: `mem-${name}`, transport: "memory" }).connect(b);
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(a);
  return client;
}

/** Drives an attempt through chamber_action calls on any MCP client, for the reference solvers. */
export function mcpPort(
  call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  entry: Record<string, unknown>,
): AgentPort & { index(): number } {
  const handle = entry.attempt_handle as string;
  let index = entry.action_index as number;
  return {
    entry: {
      objects: entry.objects as string[],
      allowed_ops: entry.allowed_ops as string[],
      remaining_actions: entry.remaining_actions as number,
    },
    index: () => index,
    async act(action: RoomAction): Promise<ActResult> {
      const r = await call("chamber_action", { challenge_handle: handle, ...action, expected_action_index: index });
      if (typeof r.action_index === "number") index = r.action_index;
      return {
        ok: r.ok === true,
        ...(typeof r.code === "string" ? { code: r.code } : {}),
        ...(r.observation ? { observation: r.observation as ActResult["observation"] } : {}),
        ...(r.result ? { correct: r.result === "correct" } : {}),
        allowed_ops: (r.allowed_ops as string[] | undefined) ?? [],
        objects: (r.objects as string[] | undefined) ?? [],
        terminal: r.terminal === true,
        remaining_actions: (r.remaining_actions as number | undefined) ?? 0,
      };
    },
  };
}
