import { defineModule } from "../../platform/module.ts";
import { sessionsLegacy, sessionsMigrations } from "./schema.ts";
import { sessionTools } from "./tools.ts";

/** Sessions: save, recall, resume and close a working session (its context pack reads tasks). */
export const sessionsModule = defineModule({
  name: "sessions",
  dependsOn: ["tasks"],
  tools: sessionTools,
  migrations: sessionsMigrations,
  legacy: sessionsLegacy,
});
