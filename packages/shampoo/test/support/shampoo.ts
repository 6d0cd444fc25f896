import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer, type DialectName, ManualClock } from "kernel";
import { openTestDatabase, type TestDb } from "kernel/store/testing.ts";
import { type Caller, makeCaller, type Role } from "../../src/access/caller.ts";
import { migrateShampoo, type Shampoo, shampooOn } from "../../src/app.ts";
import type { ShampooDB } from "../../src/store/schema.ts";

/**
 * A SHAMPOO server on a fresh database of the given dialect, with a real SDK Client per caller
 * over the in-memory linked transport (the same server object stdio and HTTP serve).
 */
export interface Harness {
  db: TestDb<ShampooDB>;
  clock: ManualClock;
  shampoo: Shampoo;
  /** A client acting as the given caller. */
  as(caller: CallerSpec): Promise<Agent>;
  close(): Promise<void>;
}

export interface CallerSpec {
  principal: string;
  role?: Role;
  grants: string[];
  profile?: string;
}

export interface Agent {
  caller: Caller;
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** structuredContent of a call. */
  sc(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** `db`: a test database prepared by the caller (e.g. migrated part way), migrated to the latest. */
export async function harness(dialect: DialectName, opts: { db?: TestDb<ShampooDB> } = {}): Promise<Harness> {
  const db = opts.db ?? (await openTestDatabase<ShampooDB>(dialect));
  await migrateShampoo(db);
  const clock = new ManualClock("2026-11-30T12:00:00.000Z");
  const callers = new Map<string, Caller>();
  const shampoo = shampooOn(db, {
    clock,
    resolveCaller: (session) => {
      const c = callers.get(session.sessionId);
      if (!c) throw new Error(`no caller for session ${session.sessionId}`);
      return c;
    },
  });
  const clients: Client[] = [];
  let n = 0;
  return {
    db,
    clock,
    shampoo,
    async as(spec) {
      const caller = makeCaller({
        principal: spec.principal,
        role: spec.role ?? "agent",
        profile: spec.profile ?? "default",
        grants: spec.grants,
      });
      const sessionId = `mem-${++n}-${spec.principal}`;
      callers.set(sessionId, caller);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await createMcpServer(shampoo.mcp, { sessionId, transport: "memory" }).connect(b);
      const client = new Client({ name: spec.principal, version: "1.0.0" });
      await client.connect(a);
      clients.push(client);
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.request(
          { method: "tools/call", params: { name, arguments: args } },
          CallToolResultSchema,
        )) as CallToolResult;
      return {
        caller,
        client,
        call,
        sc: async (name, args) => (await call(name, args)).structuredContent as Record<string, unknown>,
      };
    },
    async close() {
      for (const c of clients) await c.close();
      await db.drop();
    },
  };
}
