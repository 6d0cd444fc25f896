import { defineModule } from "../../platform/module.ts";
import { reflectionFixtures } from "./fixtures.ts";
import { reflectionMigrations } from "./schema.ts";
import { reflectionTools } from "./tools.ts";

/**
 * Reflection: a reviewed pipeline over accumulated memory (audit → run → review → decide →
 * apply). It reads tasks and entities and changes tasks through the tasks module's canonical path.
 */
export const reflectionModule = defineModule({
  name: "reflection",
  dependsOn: ["tasks", "graph"],
  tools: reflectionTools,
  fixtures: reflectionFixtures,
  migrations: reflectionMigrations,
});
