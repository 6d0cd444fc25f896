import { defineModule } from "../../platform/module.ts";
import { coordinationFixtures } from "./fixtures.ts";
import { coordinationMigrations } from "./schema.ts";
import { coordinationTools } from "./tools.ts";

/** Coordination: quorums (what was agreed), lanes (reviewed streams of work), jobs (fenced leases). */
export const coordinationModule = defineModule({
  name: "coordination",
  dependsOn: ["tasks"],
  tools: coordinationTools,
  fixtures: coordinationFixtures,
  migrations: coordinationMigrations,
});
