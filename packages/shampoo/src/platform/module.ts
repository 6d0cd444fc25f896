import type { Database } from "kernel";
import type { ShampooDB, Up } from "../store/schema.ts";
import type { ShampooTool } from "../tooling.ts";
import type { Contribution } from "./extend.ts";

/** A tool call as a fixture step makes it (any transport): its structured result. */
export type FixtureCall = (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * One step of the e2e fixture (test/e2e/support.ts makeFixture): calls that make objects the
 * tools' examples name with `fx(key)`. A module declares the steps for its own objects in
 * `domains/<area>/fixtures.ts`, each with the keys it makes (documented there) and the tool that
 * must be registered for it to run; steps run in module order, after the modules they build on.
 * `project` (the suite's project name) is always there; `taskId` comes from the tasks module.
 */
export interface FixtureStep {
  /** The keys this step makes (each a placeholder examples may use). */
  makes: readonly string[];
  /** The step runs only when this tool is registered (a server serving part of the catalog). */
  needs: string;
  run(f: FixtureValues, call: FixtureCall): Promise<Record<string, string | undefined>>;
}

/** The values behind the placeholders, by key. */
export type FixtureValues = { readonly [key: string]: string | undefined };

/** The fixture value `key`, or a clear failure naming the step that should have made it. */
export function need(f: FixtureValues, key: string): string {
  const v = f[key];
  if (typeof v !== "string") throw new Error(`this step needs fixture.${key}: register the tool that makes it`);
  return v;
}

/**
 * A module is one category of SHAMPOO: its tools, its tables' migrations, and the modules whose
 * tables or services it uses. modules.ts lists them; the tool list and the migration order are
 * derived from that list (moduleOrder), never written by hand.
 */
export interface Module {
  name: string;
  dependsOn: readonly string[];
  tools: readonly ShampooTool[];
  /**
   * Its migrations, `NNNN_what` (applied in name order, recorded as `<module>/NNNN_what`):
   * two modules can add migrations at the same time without ever colliding.
   */
  migrations: Readonly<Record<string, Up>>;
  /**
   * For databases created before the module ledger: the name(s) a migration had in the old
   * single ledger (shampoo_migrations). Present there = already applied here.
   */
  legacy?: Readonly<Record<string, readonly string[]>>;
  /**
   * What it adds to other modules' extension points (extend.ts), e.g. links'
   * `tasksWritten.contribute(discover)`: the other module runs it without importing this one.
   */
  contributes?: readonly Contribution<unknown>[];
  /** Its steps of the e2e fixture: the objects its tools' examples name (`fx(key)`). */
  fixtures?: readonly FixtureStep[];
  /** Runs once the server's database is open and migrated, in module order (maintenance). */
  opened?(database: Database<ShampooDB>): Promise<void>;
  /** Runs before the server's database closes, in module order (flush what waits in memory). */
  closing?(database: Database<ShampooDB>): Promise<void>;
}

const MODULE_NAME = /^[a-z][a-z0-9_]{0,30}$/;
const MIGRATION_NAME = /^\d{4}_[a-z0-9_]+$/;

export function defineModule(m: Module): Module {
  if (!MODULE_NAME.test(m.name)) throw new Error(`module name ${JSON.stringify(m.name)}: use [a-z][a-z0-9_]*`);
  for (const name of Object.keys(m.migrations)) {
    if (!MIGRATION_NAME.test(name)) throw new Error(`${m.name}: migration ${name} must be named NNNN_what`);
  }
  for (const name of Object.keys(m.legacy ?? {})) {
    if (!Object.hasOwn(m.migrations, name)) throw new Error(`${m.name}: legacy names for unknown migration ${name}`);
  }
  return m;
}

/**
 * The modules in dependency order: each after the modules it depends on, otherwise in the order
 * listed. Refuses duplicates, unknown dependencies and cycles, naming them.
 */
export function moduleOrder(modules: readonly Module[]): Module[] {
  const byName = new Map<string, Module>();
  for (const m of modules) {
    if (byName.has(m.name)) throw new Error(`module ${m.name} is listed twice`);
    byName.set(m.name, m);
  }
  const out: Module[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (m: Module, path: string[]) => {
    const s = state.get(m.name);
    if (s === "done") return;
    if (s === "visiting") throw new Error(`module dependency cycle: ${[...path, m.name].join(" -> ")}`);
    state.set(m.name, "visiting");
    for (const dep of m.dependsOn) {
      const d = byName.get(dep);
      if (!d) throw new Error(`module ${m.name} depends on ${dep}, which is not in the module list`);
      visit(d, [...path, m.name]);
    }
    state.set(m.name, "done");
    out.push(m);
  };
  for (const m of modules) visit(m, []);
  return out;
}

/** Every tool of the modules, in module order; a name defined twice is refused. */
export function toolsOf(modules: readonly Module[]): ShampooTool[] {
  const seen = new Map<string, string>();
  const tools: ShampooTool[] = [];
  for (const m of moduleOrder(modules)) {
    for (const t of m.tools) {
      const other = seen.get(t.name);
      if (other) throw new Error(`tool ${t.name} is defined by both ${other} and ${m.name}`);
      seen.set(t.name, m.name);
      tools.push(t);
    }
  }
  return tools;
}

export interface PlannedMigration {
  id: string;
  module: string;
  name: string;
  up: Up;
  legacy: readonly string[];
}

/** Every migration of the modules, in the order they run: module order, then name order. */
export function migrationPlan(modules: readonly Module[]): PlannedMigration[] {
  return moduleOrder(modules).flatMap((m) =>
    Object.keys(m.migrations)
      .sort()
      .map((name) => ({
        id: `${m.name}/${name}`,
        module: m.name,
        name,
        up: m.migrations[name] as Up,
        legacy: m.legacy?.[name] ?? [],
      })),
  );
}

/** Every fixture key the modules make, plus `project`: what an example's `fx(key)` may name. */
export function fixtureKeys(modules: readonly Module[]): string[] {
  return ["project", ...moduleOrder(modules).flatMap((m) => (m.fixtures ?? []).flatMap((s) => s.makes))];
}

/** Every fixture step of the modules, in module order. */
export function fixtureSteps(modules: readonly Module[]): FixtureStep[] {
  return moduleOrder(modules).flatMap((m) => [...(m.fixtures ?? [])]);
}
