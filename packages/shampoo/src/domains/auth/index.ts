import { defineModule } from "../../platform/module.ts";
import { authFixtures } from "./fixtures.ts";
import { authMigrations } from "./schema.ts";
import { authTools } from "./tools.ts";

/** Auth and sessions registry: hybrid handshakes, enrolment tickets, registry sessions, revocation. */
export const authModule = defineModule({
  name: "auth",
  dependsOn: ["platform"],
  tools: authTools,
  fixtures: authFixtures,
  migrations: authMigrations,
});
