import { governanceModule } from "./domains/governance/index.ts";
import { graphModule } from "./domains/graph/index.ts";
import { linksModule } from "./domains/links/index.ts";
import { reflectionModule } from "./domains/reflection/index.ts";
import { sessionsModule } from "./domains/sessions/index.ts";
import { tasksModule } from "./domains/tasks/index.ts";
import { installContributions } from "./platform/extend.ts";
import { platformModule } from "./platform/index.ts";
import { type Module, moduleOrder } from "./platform/module.ts";

/**
 * The one list of SHAMPOO's modules. The tool list (tools/list order: module order, then each
 * module's own order) and the migration order both derive from it (platform/module.ts). A new
 * category adds one line here and `& <Area>DB` to store/schema.ts ShampooDB.
 */
export const MODULES: readonly Module[] = [
  platformModule,
  tasksModule,
  graphModule,
  linksModule,
  sessionsModule,
  governanceModule,
  reflectionModule,
];

// The extension points (platform/extend.ts) answer what these modules contribute, in module order.
installContributions(moduleOrder(MODULES));
