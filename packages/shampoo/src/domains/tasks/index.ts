import { defineModule } from "../../platform/module.ts";
import { tasksLegacy, tasksMigrations } from "./schema.ts";
import { taskTools } from "./tools.ts";

/** Tasks and notes: everyday work, tracked to done (catalog "Tasks and notes"). */
export const tasksModule = defineModule({
  name: "tasks",
  dependsOn: ["platform"],
  tools: taskTools,
  migrations: tasksMigrations,
  legacy: tasksLegacy,
});
