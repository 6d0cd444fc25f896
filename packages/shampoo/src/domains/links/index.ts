import { defineModule } from "../../platform/module.ts";
import { linksLegacy, linksMigrations } from "./schema.ts";
import { linkTools } from "./tools.ts";

/** Task-entity links: connections between tasks and the entities they concern. */
export const linksModule = defineModule({
  name: "links",
  dependsOn: ["tasks", "graph"],
  tools: linkTools,
  migrations: linksMigrations,
  legacy: linksLegacy,
});
