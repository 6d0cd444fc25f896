import { defineModule } from "../../platform/module.ts";
import { resumeContinuity } from "../sessions/hooks.ts";
import { governanceFixtures } from "./fixtures.ts";
import { governanceMigrations } from "./schema/migrations.ts";
import { continuity } from "./service/continuity.ts";
import { governanceTools } from "./tools.ts";

/**
 * Context governance: chunks, claims, facts with truth maintenance, context packs, audits and
 * the memory replay. Chunks are materialized from tasks and notes; packs are written to the
 * sessions module's pack table and name its sessions; task-scoped packs read the links and graph
 * tables.
 */
export const governanceModule = defineModule({
  name: "governance",
  dependsOn: ["tasks", "graph", "links", "sessions"],
  tools: governanceTools,
  fixtures: governanceFixtures,
  migrations: governanceMigrations,
  contributes: [resumeContinuity.contribute(continuity)],
});
