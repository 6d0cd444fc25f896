import { defineModule } from "../../platform/module.ts";
import { inboundMigrations } from "./schema.ts";
import { inboundTools } from "./tools.ts";

/** Inbound review: staged tasks and knowledge, inert until a conductor approves them. */
export const inboundModule = defineModule({
  name: "inbound",
  dependsOn: ["tasks", "graph", "coordination"],
  tools: inboundTools,
  migrations: inboundMigrations,
});
