import { defineModule } from "../../platform/module.ts";
import { debateFixtures } from "./fixtures.ts";
import { debateMigrations } from "./schema.ts";
import { debateTools } from "./tools.ts";

/**
 * Debate: structured disagreement between roles bound to sessions: posts, private delivery with
 * receipts, worker claims on platform leases, and the debate/v1 blind protocol with its
 * order-swapped adjudication. It reads session ownership from the sessions module's table.
 */
export const debateModule = defineModule({
  name: "debate",
  dependsOn: ["platform", "sessions"],
  tools: debateTools,
  fixtures: debateFixtures,
  migrations: debateMigrations,
});
