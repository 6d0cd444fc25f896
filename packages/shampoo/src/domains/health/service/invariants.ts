import type { ShampooCtx } from "../../../context.ts";
import { read } from "../../../platform/write.ts";
import { type HealthCheck, healthReferences, type ReferenceRule } from "../hooks.ts";
import type { Observation } from "../model.ts";
import { factIntervalFaults, fenceFaults, leaseFaults, plural, sameProject, staleLeases } from "../rules.ts";
import { auditedTables, type Catalog, catalogOf } from "../store/catalog.ts";
import {
  changedSinceEvent,
  eventless,
  factVersions,
  leaseClaims,
  leases,
  projectsWithEvents,
  referenceFaults,
} from "../store/invariants.ts";

/**
 * The invariants section: what must hold of the stored data whatever wrote it, judged afresh on
 * every run from the history and the domain tables of the caller's profile, through `read()`.
 * Findings are counts per table or kind, never row content.
 */

/** The references of the modules built so far; later modules contribute theirs (healthReferences). */
export const BUILTIN_REFERENCES: readonly ReferenceRule[] = [
  { table: "shampoo_tasks", column: "parent_id", target: "shampoo_tasks", key: "id" },
  { table: "shampoo_task_links", column: "task_id", target: "shampoo_tasks", key: "id" },
  {
    table: "shampoo_task_links",
    column: "entity_id",
    target: "shampoo_entities",
    key: "id",
    voidAllowed: "entity voids never cascade: the link resolves as absent while its entity is void",
  },
  ...["entity_id"].flatMap((column) =>
    ["shampoo_observations", "shampoo_aliases"].map((table) => ({
      table,
      column,
      target: "shampoo_entities",
      key: "id",
      voidAllowed: "entity voids never cascade to observations or aliases (graph)",
    })),
  ),
  ...["from_id", "to_id"].map((column) => ({
    table: "shampoo_relations",
    column,
    target: "shampoo_entities",
    key: "id",
    voidAllowed: "entity voids never cascade to relations (graph)",
  })),
  { table: "governance_claims", column: "fact_id", target: "governance_facts", key: "fact_id" },
  { table: "governance_facts", column: "superseded_by", target: "governance_facts", key: "fact_id" },
  { table: "governance_fact_versions", column: "fact_id", target: "governance_facts", key: "fact_id" },
];

function findings(list: string[], none: string): Observation {
  if (list.length === 0) return { status: "ok", summary: none };
  return {
    status: "fail",
    summary: list.slice(0, 3).join("; ") + (list.length > 3 ? ` (+${list.length - 3} more)` : ""),
    detail: list.join("\n"),
  };
}

async function withCatalog<T>(ctx: ShampooCtx, fn: (catalog: Catalog) => Promise<T>): Promise<T> {
  return fn(await read(ctx, (db, engine) => catalogOf(db, engine)));
}

/** Every audited row points at its history event, and no row changed after it (no unrecorded mutation). */
const events: HealthCheck = {
  section: "invariants",
  id: "invariants.events",
  severity: "critical",
  run: (ctx) =>
    withCatalog(ctx, async (catalog) => {
      const p = ctx.caller.profile;
      const tables = auditedTables(catalog);
      const out: string[] = [];
      await read(ctx, async (db) => {
        for (const table of tables) {
          const e = await eventless(db, table, p);
          if (e.missing > 0) out.push(`${table}: ${plural(e.missing, "row")} without their history event`);
          if (catalog.get(table)?.has("updated_at")) {
            const late = await changedSinceEvent(db, table, p);
            if (late > 0) out.push(`${table}: ${plural(late, "row")} changed after their last history event`);
          }
        }
      });
      return findings(out, `every audited row of ${plural(tables.length, "table")} has its history event`);
    }),
};

function referenceRules(): ReferenceRule[] {
  return [...BUILTIN_REFERENCES, ...healthReferences.all()];
}

/** Checks `rules` whose tables exist: live rows name an existing row, void only where the owner allows it. */
export async function checkReferences(ctx: ShampooCtx, rules: readonly ReferenceRule[]): Promise<Observation> {
  return withCatalog(ctx, async (catalog) => {
    const out: string[] = [];
    let checked = 0;
    await read(ctx, async (db) => {
      for (const rule of rules) {
        const src = catalog.get(rule.table);
        const dst = catalog.get(rule.target);
        if (!src?.has(rule.column) || !dst?.has(rule.key)) continue;
        checked++;
        const f = await referenceFaults(db, rule, ctx.caller.profile, src.has("lifecycle"), dst.has("lifecycle"));
        const at = `${rule.table}.${rule.column} → ${rule.target}`;
        if (f.missing > 0) out.push(`${at}: ${plural(f.missing, "live row")} name a row that does not exist`);
        if (f.void > 0 && !rule.voidAllowed) out.push(`${at}: ${plural(f.void, "live row")} point at a void one`);
      }
    });
    return findings(out, `no live row points at a missing or void one (${plural(checked, "reference")} checked)`);
  });
}

const references: HealthCheck = {
  section: "invariants",
  id: "invariants.references",
  severity: "critical",
  run: (ctx) => checkReferences(ctx, referenceRules()),
};

/** Nothing crosses the profile, and a row's project is the one its last event recorded. */
const projects: HealthCheck = {
  section: "invariants",
  id: "invariants.projects",
  severity: "critical",
  run: (ctx) =>
    withCatalog(ctx, async (catalog) => {
      const p = ctx.caller.profile;
      const out: string[] = [];
      await read(ctx, async (db) => {
        for (const table of auditedTables(catalog)) {
          const e = await eventless(db, table, p);
          if (e.foreign > 0) out.push(`${table}: ${plural(e.foreign, "row")} audited by another profile's event`);
          if (!catalog.get(table)?.has("project")) continue;
          let moved = 0;
          for (const r of await projectsWithEvents(db, table, p)) {
            const recorded = r.new_json ? (JSON.parse(r.new_json) as Record<string, unknown>) : null;
            if (recorded && "project" in recorded && !sameProject(r.project, recorded.project)) moved++;
          }
          if (moved > 0) out.push(`${table}: ${plural(moved, "row")} in a project their history never recorded`);
        }
        for (const rule of referenceRules()) {
          const src = catalog.get(rule.table);
          const dst = catalog.get(rule.target);
          if (!src?.has(rule.column) || !dst?.has(rule.key)) continue;
          const f = await referenceFaults(db, rule, p, src.has("lifecycle"), dst.has("lifecycle"));
          if (f.foreign > 0)
            out.push(`${rule.table}.${rule.column}: ${plural(f.foreign, "row")} point into another profile`);
        }
      });
      return findings(out, "rows stay in their profile and in the project their history recorded");
    }),
};

/** Leases are held (holder and expiry) or free to take over; fencing tokens only increase. */
const leaseCheck: HealthCheck = {
  section: "invariants",
  id: "invariants.leases",
  severity: "critical",
  async run(ctx) {
    const rows = await read(ctx, (db) => leases(db, ctx.caller.profile));
    const out = leaseFaults(rows);
    const stale = staleLeases(rows, ctx.clock.now());
    const held = rows.filter((l) => l.state === "held").length;
    return findings(out, `${plural(rows.length, "lease")}, ${held} held (${stale} past expiry, free to be taken over)`);
  },
};

const fences: HealthCheck = {
  section: "invariants",
  id: "invariants.fences",
  severity: "critical",
  async run(ctx) {
    const { rows, claims } = await read(ctx, async (db) => ({
      rows: await leases(db, ctx.caller.profile),
      claims: await leaseClaims(db, ctx.caller.profile),
    }));
    const handed = claims.map((c) => ({
      kind: c.entity_kind.slice("lease:".length),
      resourceId: c.entity_id,
      fence: Number((c.new_json ? (JSON.parse(c.new_json) as { fence?: unknown }) : {}).fence ?? Number.NaN),
    }));
    return findings(fenceFaults(rows, handed), `fencing tokens only increase (${plural(handed.length, "claim")})`);
  },
};

const facts: HealthCheck = {
  section: "invariants",
  id: "invariants.facts",
  severity: "major",
  run: (ctx) =>
    withCatalog(ctx, async (catalog) => {
      if (!catalog.has("governance_fact_versions")) return { status: "ok", summary: "no fact versions in this build" };
      const versions = await read(ctx, (db) => factVersions(db, ctx.caller.profile));
      const ids = new Set(versions.map((v) => v.fact_id)).size;
      return findings(
        factIntervalFaults(versions),
        `validity intervals never overlap (${plural(ids, "fact")}, ${plural(versions.length, "version")})`,
      );
    }),
};

export const invariantChecks: readonly HealthCheck[] = [events, references, projects, leaseCheck, fences, facts];
