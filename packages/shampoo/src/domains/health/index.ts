import { defineModule } from "../../platform/module.ts";
import { healthTools } from "./tools.ts";

/**
 * Health: doctor, licence, status. No tables of its own: it reads the others' (through the
 * engine's catalog and `read()`), and offers the points other modules plug their checks into
 * (hooks.ts). It depends on the platform only, so coordination, debate and auth can depend on it.
 */
export const healthModule = defineModule({
  name: "health",
  dependsOn: ["platform"],
  tools: healthTools,
  migrations: {},
});
