import { engineOf, sql } from "kernel";
import type { ShampooCtx } from "../../src/context.ts";
import { catalogOf } from "../../src/domains/health/store/catalog.ts";
import type { Agent, Harness } from "../support/shampoo.ts";

/** Helpers of the health suites (test/health/*.test.ts). */

export type Sc = Record<string, unknown>;
export interface Check {
  id: string;
  status: string;
  severity: string;
  summary: string;
  detail?: string;
}
export interface Section {
  name: string;
  status: string;
  checks: Check[];
}
export interface Report {
  status: string;
  detail: string;
  sections: Section[];
}

/** The sections this build observes itself (auth, jobs, pump, wake belong to modules not built yet). */
export const OBSERVED = "config,database,ledger,readiness,invariants";
export const UNOBSERVED = ["auth", "jobs", "pump", "wake"];

export async function doctorOf(a: Agent, args: Sc = {}): Promise<Report> {
  const r = await a.call("doctor", { detail: "full", ...args });
  if (r.isError) throw new Error(`doctor refused: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent as unknown as Report;
}

/** The check `id` of a report (throws when absent). */
export function check(r: Report, id: string): Check {
  for (const s of r.sections) for (const c of s.checks) if (c.id === id) return c;
  throw new Error(`no check ${id} in ${JSON.stringify(r.sections.map((s) => s.name))}`);
}

/** Every check's id → status, e.g. to compare two reports. */
export function statuses(r: Report): Record<string, string> {
  return Object.fromEntries(r.sections.flatMap((s) => s.checks.map((c) => [c.id, c.status])));
}

/** A context for calling the registry (or a service) directly, as `caller`, over `database`. */
export function ctxOf(h: Harness, a: Agent, over: Partial<ShampooCtx> = {}): ShampooCtx {
  return {
    caller: a.caller,
    source: { tool: "" },
    clock: h.clock,
    database: h.db,
    pipeline: h.shampoo.registry,
    ...over,
  };
}

/**
 * Everything the database holds that a write would change: every table's row count, the
 * history's last seq and the clocks. Two equal snapshots: nothing was written between them.
 */
export async function footprint(h: Harness): Promise<Record<string, unknown>> {
  const catalog = await catalogOf(h.db.db, engineOf(h.db));
  const out: Record<string, unknown> = {};
  for (const table of [...catalog.keys()].sort()) {
    const r = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(h.db.db);
    out[table] = Number(r.rows[0]?.n);
  }
  const seq = await sql<{ s: unknown }>`SELECT max(seq) AS s FROM shampoo_history`.execute(h.db.db);
  out["history.seq"] = Number(seq.rows[0]?.s);
  out.clocks = (await h.db.db.selectFrom("shampoo_clocks").selectAll().orderBy("profile").execute()).map((c) => [
    c.profile,
    Number(c.clock),
  ]);
  out.leases = await h.db.db.selectFrom("shampoo_leases").selectAll().orderBy("resource_id").execute();
  out.lastEvent = await h.db.db.selectFrom("shampoo_history").selectAll().orderBy("seq", "desc").limit(1).execute();
  return out;
}
