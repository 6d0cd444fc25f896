import { defineModule } from "../../platform/module.ts";
import { tasksFixtures } from "./fixtures.ts";
import { tasksLegacy, tasksMigrations } from "./schema.ts";
import { taskTools } from "./tools.ts";

/** Tasks and notes: everyday work, tracked to done (catalog "Tasks and notes"). */
export const tasksModule = defineModule({
  name: "tasks",
  dependsOn: ["platform"],
  tools: taskTools,
  fixtures: tasksFixtures,
  migrations: tasksMigrations,
  legacy: tasksLegacy,
});
