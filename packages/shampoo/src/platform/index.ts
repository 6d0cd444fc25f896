import { defineModule } from "./module.ts";
import { platformLegacy, platformMigrations } from "./schema.ts";

/** What every module stands on: history, per-profile clocks, leases. No tools of its own. */
export const platformModule = defineModule({
  name: "platform",
  dependsOn: [],
  tools: [],
  migrations: platformMigrations,
  legacy: platformLegacy,
});
