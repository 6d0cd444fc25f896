import { defineModule } from "../../platform/module.ts";
import { tasksWritten } from "../tasks/hooks.ts";
import { linksFixtures } from "./fixtures.ts";
import { linksLegacy, linksMigrations } from "./schema.ts";
import { discoverOnTaskWrite } from "./service/discovery.ts";
import { linkTools } from "./tools.ts";

/**
 * Task-entity links: connections between tasks and the entities they concern. Every task write
 * runs its auto-discovery (tasks' `tasksWritten` hook), in the task's own transaction.
 */
export const linksModule = defineModule({
  name: "links",
  dependsOn: ["tasks", "graph"],
  tools: linkTools,
  fixtures: linksFixtures,
  migrations: linksMigrations,
  legacy: linksLegacy,
  contributes: [tasksWritten.contribute(discoverOnTaskWrite)],
});
