import { defineModule } from "../../platform/module.ts";
import { graphLegacy, graphMigrations } from "./schema.ts";
import { graphTools } from "./tools.ts";

/** The knowledge graph: entities, observations, relations (catalog "Knowledge graph"). */
export const graphModule = defineModule({
  name: "graph",
  dependsOn: ["platform"],
  tools: graphTools,
  migrations: graphMigrations,
  legacy: graphLegacy,
});
