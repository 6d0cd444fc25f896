import { defineModule } from "../../platform/module.ts";
import { sessionsFixtures } from "./fixtures.ts";
import { sessionsLegacy, sessionsMigrations } from "./schema.ts";
import { sessionTools } from "./tools.ts";

/** Sessions: save, recall, resume and close a working session (its context pack reads tasks). */
export const sessionsModule = defineModule({
  name: "sessions",
  dependsOn: ["tasks"],
  tools: sessionTools,
  fixtures: sessionsFixtures,
  migrations: sessionsMigrations,
  legacy: sessionsLegacy,
});
