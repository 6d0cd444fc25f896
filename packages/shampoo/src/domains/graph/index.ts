import { defineModule } from "../../platform/module.ts";
import { lookupSources } from "../../store/lookup-source.ts";
import { graphFixtures } from "./fixtures.ts";
import { graphLegacy, graphMigrations } from "./schema.ts";
import { flushAccessNotes } from "./store/access.ts";
import { entityLookupSource } from "./store/lookup.ts";
import { tidySearchIndexes } from "./store/merge.ts";
import { graphScopeOf } from "./store/rows.ts";
import { graphTools } from "./tools.ts";

/**
 * The knowledge graph: entities, observations, relations (catalog "Knowledge graph"). Its
 * entities are one of find_by_title's sources (store/lookup-source.ts). At start it tidies its
 * SQLite word indexes; at close it writes the reads' waiting access notes.
 */
export const graphModule = defineModule({
  name: "graph",
  dependsOn: ["platform"],
  tools: graphTools,
  fixtures: graphFixtures,
  migrations: graphMigrations,
  legacy: graphLegacy,
  opened: (database) => tidySearchIndexes(database.db, database.dialect),
  closing: (database) => flushAccessNotes(database),
  contributes: [
    lookupSources.contribute((db, engine, caller) => entityLookupSource(db, engine.dialect, graphScopeOf(caller))),
  ],
});
