import { authModule } from "./domains/auth/index.ts";
import type { AuthDB } from "./domains/auth/schema.ts";
import { coordinationModule } from "./domains/coordination/index.ts";
import type { CoordinationDB } from "./domains/coordination/schema.ts";
import { debateModule } from "./domains/debate/index.ts";
import type { DebateDB } from "./domains/debate/schema.ts";
import { governanceModule } from "./domains/governance/index.ts";
import type { GovernanceDB } from "./domains/governance/schema/tables.ts";
import { graphModule } from "./domains/graph/index.ts";
import type { GraphDB } from "./domains/graph/schema.ts";
import { healthModule } from "./domains/health/index.ts";
import { inboundModule } from "./domains/inbound/index.ts";
import type { InboundDB } from "./domains/inbound/schema.ts";
import { linksModule } from "./domains/links/index.ts";
import type { LinksDB } from "./domains/links/schema.ts";
import { reflectionModule } from "./domains/reflection/index.ts";
import type { ReflectionDB } from "./domains/reflection/schema.ts";
import { sessionsModule } from "./domains/sessions/index.ts";
import type { SessionsDB } from "./domains/sessions/schema.ts";
import { tasksModule } from "./domains/tasks/index.ts";
import type { TasksDB } from "./domains/tasks/schema.ts";
import { installContributions } from "./platform/extend.ts";
import { platformModule } from "./platform/index.ts";
import { type FixtureStep, fixtureKeys, fixtureSteps, type Module, moduleOrder } from "./platform/module.ts";

/**
 * The one list of SHAMPOO's modules. The tool list (tools/list order: module order, then each
 * module's own order) and the migration order both derive from it (platform/module.ts). A new
 * category adds one line here and its `<Area>DB` to ShampooDB below.
 */
export const MODULES: readonly Module[] = [
  platformModule,
  tasksModule,
  graphModule,
  linksModule,
  sessionsModule,
  governanceModule,
  reflectionModule,
  debateModule,
  healthModule,
  authModule,
  coordinationModule,
  inboundModule,
];

/** What tools' examples may name with `fx(key)`, and the e2e steps that make them (module order). */
export const FIXTURE_KEYS: readonly string[] = fixtureKeys(MODULES);
export const FIXTURE_STEPS: readonly FixtureStep[] = fixtureSteps(MODULES);

/** Every module's tables join the database type (store/schema.ts ShampooDB) here, with the module. */
declare module "./store/schema.ts" {
  interface ShampooDB
    extends TasksDB,
      GraphDB,
      LinksDB,
      SessionsDB,
      GovernanceDB,
      ReflectionDB,
      DebateDB,
      AuthDB,
      CoordinationDB,
      InboundDB {}
}

// The extension points (platform/extend.ts) answer what these modules contribute, in module order.
installContributions(moduleOrder(MODULES));
