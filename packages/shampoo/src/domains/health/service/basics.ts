import { read } from "../../../platform/write.ts";
import type { HealthCheck } from "../hooks.ts";
import { describeScope, plural, visibilityOf } from "../rules.ts";
import { brokenChains, clockState, duplicateClocks, migrationLedger } from "../store/ledger.ts";

/**
 * The config, database and ledger sections' own checks. Each observes through `read()` (one
 * snapshot, no write) and says what it saw in counts and names; nothing here discloses a secret
 * (the database location is the engine's password-free form).
 */

const callerCheck: HealthCheck = {
  section: "config",
  id: "config.caller",
  severity: "major",
  async run(ctx) {
    const c = ctx.caller;
    const scope = describeScope(c);
    const who = `${c.principal} (${c.role}) in profile ${c.profile}, visibility ${visibilityOf(c)}: ${scope}`;
    if (!c.star && c.projects.size === 0 && !c.untagged)
      return { status: "warn", summary: `caller ${who}: no project grant, every read is empty` };
    return { status: "ok", summary: `caller ${who}` };
  },
};

const toolsCheck: HealthCheck = {
  section: "config",
  id: "config.tools",
  severity: "minor",
  async run(ctx) {
    if (!ctx.pipeline) return { status: "unknown", summary: "no tool registry in this context" };
    const names = ctx.pipeline.list().map((t) => t.name);
    const callable = names.filter((n) => ctx.toolsets?.visible(n) ?? ctx.caller.tools?.has(n) ?? true);
    if (callable.length === 0)
      return { status: "warn", summary: `0 of ${names.length} tools callable in this session` };
    return { status: "ok", summary: `${callable.length} of ${names.length} tools callable in this session` };
  },
};

const reachable: HealthCheck = {
  section: "database",
  id: "database.reachable",
  severity: "critical",
  async run(ctx) {
    const where = `${ctx.database.dialect} at ${ctx.database.location}`;
    try {
      await read(ctx, (db) => db.selectFrom("shampoo_clocks").select("profile").limit(1).execute());
      return { status: "ok", summary: `${where}: answers a read` };
    } catch (e) {
      return { status: "fail", summary: `${where}: a read failed`, detail: (e as Error).message };
    }
  },
};

const migrations: HealthCheck = {
  section: "database",
  id: "database.migrations",
  severity: "critical",
  async run(ctx) {
    const ledger = await read(ctx, (db) => migrationLedger(db));
    const total = [...ledger.values()].reduce((a, b) => a + b, 0);
    if (!ledger.has("platform"))
      return {
        status: "fail",
        summary: "the migration ledger has no platform migrations: the schema is not installed",
      };
    return {
      status: "ok",
      summary: `${plural(total, "migration")} applied across ${plural(ledger.size, "module")}`,
      detail: [...ledger.entries()].map(([m, k]) => `${m}: ${k}`).join(", "),
    };
  },
};

const clock: HealthCheck = {
  section: "ledger",
  id: "ledger.clock",
  severity: "critical",
  async run(ctx) {
    const s = await read(ctx, (db) => clockState(db, ctx.caller.profile));
    if (s.top === null) return { status: "ok", summary: "no history events in this profile yet" };
    if (s.clock === null)
      return { status: "fail", summary: `${plural(s.events, "event")} but no clock row for the profile` };
    if (s.clock < s.top)
      return { status: "fail", summary: `the profile clock ${s.clock} is behind its newest event's ${s.top}` };
    return { status: "ok", summary: `${plural(s.events, "event")}, clock ${s.clock}` };
  },
};

const sequence: HealthCheck = {
  section: "ledger",
  id: "ledger.sequence",
  severity: "critical",
  async run(ctx) {
    const dup = await read(ctx, (db) => duplicateClocks(db, ctx.caller.profile));
    if (dup > 0) return { status: "fail", summary: `${plural(dup, "event")} share a clock value with another` };
    return { status: "ok", summary: "every event has its own clock value" };
  },
};

const chains: HealthCheck = {
  section: "ledger",
  id: "ledger.chains",
  severity: "major",
  async run(ctx) {
    const broken = await read(ctx, (db) => brokenChains(db, ctx.caller.profile));
    if (broken > 0)
      return { status: "fail", summary: `${plural(broken, "event")} name a parent event the ledger lacks` };
    return { status: "ok", summary: "every event's parent is in the ledger" };
  },
};

export const basicChecks: readonly HealthCheck[] = [
  callerCheck,
  toolsCheck,
  reachable,
  migrations,
  clock,
  sequence,
  chains,
];
