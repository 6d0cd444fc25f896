import { defineModule } from "../../platform/module.ts";
import { lookupSources } from "../../store/lookup-source.ts";
import { entityLookupSource } from "./lookup.ts";
import { graphLegacy, graphMigrations } from "./schema.ts";
import { graphScopeOf } from "./store.ts";
import { graphTools } from "./tools.ts";

/**
 * The knowledge graph: entities, observations, relations (catalog "Knowledge graph"). Its
 * entities are one of find_by_title's sources (store/lookup-source.ts).
 */
export const graphModule = defineModule({
  name: "graph",
  dependsOn: ["platform"],
  tools: graphTools,
  migrations: graphMigrations,
  legacy: graphLegacy,
  contributes: [
    lookupSources.contribute((db, engine, caller) => entityLookupSource(db, engine.dialect, graphScopeOf(caller))),
  ],
});
